// The few members of oidc-provider (v8, plain JavaScript without types of its own) that the
// authorization-server-oidc variant uses (authorization-server.ts), typed here instead of adding
// @types/oidc-provider as one more dependency.

declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContextWithOIDC {
    status: number;
    body: unknown;
    type: string;
    method: string;
    path: string;
    state: Record<string, unknown>;
    get(field: string): string;
    set(field: string, value: string): void;
    remove(field: string): void;
    response: { get(field: string): string };
    oidc?: { route?: string; client?: { clientId: string } };
  }

  export interface AdapterPayload {
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
    [key: string]: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: { missingOIDCScope?: string[] } };
    params: Record<string, string | undefined>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface AccessTokenRecord {
    clientId: string;
    accountId: string;
    scope?: string;
    exp: number;
    iat: number;
  }

  export interface GrantRecord {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    use(middleware: (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>): void;
    on(event: string, listener: (...args: unknown[]) => void): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Interaction: { find(uid: string): Promise<InteractionDetails | undefined> };
    AccessToken: { find(value: string, options?: { ignoreExpiration?: boolean }): Promise<AccessTokenRecord | undefined> };
    Grant: new (init: { accountId: string; clientId: string }) => GrantRecord;
  }
}
