// What every route plugin shares: the mode, the active fault and variant, the clock and the in-memory state.
// Shared types live here, below the modules that implement them (the authorization server among them),
// so that no module reaches itself through its imports.

import type { FastifyInstance } from 'fastify';
import type { AccessToken, TokenStore } from './auth/tokens';
import type { Store } from './data/store';
import type { Faults, Variants } from './switches';

export type Mode = 'cloud' | 'sandbox';

/** The two switches that change how records and errors are written: a fault and a variant. */
export interface Switches {
  readonly faults: Faults;
  readonly variants: Variants;
}

export interface AppContext extends Switches {
  readonly mode: Mode;
  /** Epoch ms from the app's clock (the `now` option). */
  readonly now: () => number;
  readonly store: Store;
  readonly tokens: TokenStore;
  /** The HTTP versions requests came in, counted (GET /_control/protocols): a deployment's test sees which its clients spoke. */
  protocols?: Map<string, number>;
  /** Variant authorization-server-oidc: oidc-provider runs the sign-in page and the token endpoint. */
  authorizationServer?: AuthorizationServer;
}

/** What the rest of the reference sees of the authorization server (variant authorization-server-oidc: auth/authorization-server.ts). */
export interface AuthorizationServer {
  /** The access token the provider issued with this value (expired ones too), with the control API's marks; undefined when unknown. */
  accessToken(value: string): Promise<AccessToken | undefined>;
  /** Forgets every code, token, grant, session and interaction (POST /_control/reset). */
  reset(): void;
  /** The routes under /v3: the provider's two endpoints and the interaction pages. */
  plugin(app: FastifyInstance): Promise<void>;
}
