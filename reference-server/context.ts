// What every route plugin shares: the mode, the active fault and variant, the clock and the in-memory state.

import type { AuthorizationServer } from './auth/authorization-server';
import type { TokenStore } from './auth/tokens';
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
