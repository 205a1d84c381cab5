// Variant authorization-server-oidc: the sign-in page and the token endpoint are run by a real,
// certified authorization server, oidc-provider (v8, a Koa application), mounted into the Fastify app
// at /v3/auth, as a vendor puts an off-the-shelf OAuth server in front of its API. What is written
// here is the thin adapter such a vendor writes to meet the profile (v3-profile.md § Sign-in page,
// § Token endpoint, § Records: token, § Conflicts and decisions), and nothing more:
//   - the profile's sign-in link (client_id, scope, redirect_uri, state; no response_type) read as an
//     OAuth authorization request: response_type=code, and the scopes the application has of those
//     requested (all of them when none are), as the profile grants them;
//   - GET /auth/auth answers 200 with the sign-in page (the profile's table), not a redirect to it;
//     the login and consent pages are our own HTML, driven by oidc-provider's interaction API;
//   - the token answer gets the profile's member oidc-provider lacks (expires_at; its token_type
//     Bearer is the profile's bearer, RFC 6749 5.1: case insensitive);
//   - the errors get the profile's statuses and bodies (the error array, the legacy body of an
//     invalid code or refresh token, 404 HTML for an unknown client or redirect URI);
//   - the resource routes (guard.ts) accept its access tokens, looked up in the provider.
// Codes, tokens, grants and sessions live in an in-memory adapter of this app instance, which the
// control API's reset forgets; expire and revoke mark a token here (the guard reads the marks).

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Adapter, AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import type { AppContext, AuthorizationServer } from '../context';
import { parseFields } from '../http/body';
import { APPLICATIONS, findApplication, type Scope, SCOPES, secretOf } from './clients';
import { framingHeaders } from './framing';
import { escapeHtml, page, renderErrorPage } from './signin-page';
import type { AccessToken } from './tokens';

/** Where the provider is mounted: its endpoints are /v3/auth/auth and /v3/auth/access_token. */
const MOUNT = '/v3/auth';
const ACCESS_TOKEN_TTL_S = 3600;
const CODE_TTL_S = 60;
const REFRESH_TOKEN_TTL_S = 14 * 24 * 3600;
const SESSION_TTL_S = 3600;

// ---------------------------------------------------------------- storage

/** Models whose ids are secrets handed to clients (opaque values): the control API lists them as issued. */
const SECRET_MODELS = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken']);
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** One app instance's storage of the provider's models (oidc-provider's adapter interface), with expiry. */
class Storage {
  readonly entries = new Map<string, { payload: AdapterPayload; expiresAtMs: number }>();
  readonly byGrant = new Map<string, string[]>();
  readonly index = new Map<string, string>();

  get(key: string): AdapterPayload | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() >= entry.expiresAtMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  clear(): void {
    this.entries.clear();
    this.byGrant.clear();
    this.index.clear();
  }
}

function adapterFor(storage: Storage, onSecret: (value: string) => void): new (model: string) => Adapter {
  return class MemoryAdapter implements Adapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${this.model}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const key = this.key(id);
      storage.entries.set(key, { payload, expiresAtMs: Date.now() + expiresIn * 1000 });
      if (this.model === 'Session' && payload.uid) storage.index.set(`sessionUid:${payload.uid}`, id);
      if (payload.userCode) storage.index.set(`userCode:${payload.userCode}`, id);
      if (GRANTABLE.has(this.model) && payload.grantId) storage.byGrant.set(payload.grantId, [...(storage.byGrant.get(payload.grantId) ?? []), key]);
      if (SECRET_MODELS.has(this.model)) onSecret(id);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return storage.get(this.key(id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = storage.index.get(`sessionUid:${uid}`);
      return id === undefined ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = storage.index.get(`userCode:${userCode}`);
      return id === undefined ? undefined : this.find(id);
    }

    async consume(id: string): Promise<void> {
      const payload = storage.get(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      storage.entries.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of storage.byGrant.get(grantId) ?? []) storage.entries.delete(key);
      storage.byGrant.delete(grantId);
    }
  };
}

/** The provider's signing key (ID tokens, never asked for here: the API's scopes are not OpenID's), made once a process. */
let signingKey: Record<string, unknown> | undefined;
function signingKeys(): { keys: Array<Record<string, unknown>> } {
  signingKey ??= { ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256' };
  return { keys: [signingKey] };
}

// ---------------------------------------------------------------- the profile's sign-in link

/**
 * The profile's sign-in link as an OAuth 2 authorization request: response_type=code (the profile's
 * flow; its link has no response_type), and the scopes the token gets (v3-profile.md § Sign-in page:
 * "the token gets the requested scopes that the application has"; no scope parameter: all of them; a
 * blank one, or none the application has: none). The provider itself would refuse a scope the
 * application lacks (invalid_scope), and it issues no code for a sign-in that grants no scope at all
 * (access_denied): a sign-in for none of the API's scopes is an OpenID sign-in only (`openid`), whose
 * token then holds none of them.
 */
export function signInRequest(search: string): string {
  const params = new URLSearchParams(search);
  if (!params.has('response_type')) params.set('response_type', 'code');
  const app = findApplication(params.get('client_id') ?? undefined);
  if (app) {
    const asked = params.get('scope');
    const granted = asked === null ? [...app.scopes] : app.scopes.filter((s) => asked.split(/\s+/).includes(s));
    params.set('scope', granted.length ? granted.join(' ') : 'openid');
  }
  return params.toString();
}

// ---------------------------------------------------------------- the profile's token answers

interface ErrorAnswer {
  status: number;
  body: unknown;
}

const errorArray = (type: string, message: string, tip: string) => [{ type, message, tip }];

/**
 * The token endpoint's errors as the profile states them (v3-profile.md § Token endpoint and
 * § Conflicts and decisions), from oidc-provider's RFC 6749 errors: no authenticated client 401
 * AUTHENTICATION_ERROR; a missing parameter 400 "Missing parameter"; an invalid code or refresh token
 * (invalid_grant) 403 with the legacy body; any other request error 400 PARAMETERS_ERROR.
 */
export function tokenError(out: { error?: string; error_description?: string }, clientAuthenticated: boolean): ErrorAnswer {
  const description = out.error_description ?? out.error ?? 'invalid request';
  if (out.error === 'server_error') return { status: 500, body: errorArray('PARAMETERS_ERROR', 'Internal server error', 'Retry later') };
  if (description === 'failed to parse the request body') {
    return { status: 400, body: errorArray('PARAMETERS_ERROR', 'Malformed body', 'Send application/x-www-form-urlencoded parameters') };
  }
  if (!clientAuthenticated || out.error === 'invalid_client') {
    const missing = description === 'no client authentication mechanism provided';
    return {
      status: 401,
      body: errorArray(
        'AUTHENTICATION_ERROR',
        missing ? 'Client authentication is missing' : 'Invalid client credentials',
        'Send the client id and secret of your application with HTTP Basic authentication',
      ),
    };
  }
  if (out.error === 'invalid_grant') return { status: 403, body: { message: 'Invalid authentication' } };
  if (description.startsWith('missing required parameter')) {
    return { status: 400, body: errorArray('PARAMETERS_ERROR', 'Missing parameter', 'Send grant_type with code (authorization_code) or refresh_token') };
  }
  if (out.error === 'unsupported_grant_type') {
    return { status: 400, body: errorArray('PARAMETERS_ERROR', 'Unsupported grant type', 'Use grant_type=authorization_code or grant_type=refresh_token') };
  }
  return { status: 400, body: errorArray('PARAMETERS_ERROR', description, 'Check the parameters of the token request') };
}

// ---------------------------------------------------------------- pages

function loginPage(p: { uid: string; applicationName: string; username?: string; error?: string }): string {
  const error = p.error ? `\n<p class="error" role="alert">${escapeHtml(p.error)}</p>` : '';
  const username = p.username === undefined ? '' : ` value="${escapeHtml(p.username)}"`;
  return page(
    'Sign in - Vehicle Data Service',
    `<main>
<h1>Sign in</h1>
<p><strong>${escapeHtml(p.applicationName)}</strong> asks to access your Vehicle Data Service account.</p>${error}
<form method="post" action="${MOUNT}/interaction/${encodeURIComponent(p.uid)}/login">
  <label for="username">Email</label>
  <input id="username" name="username" type="email" autocomplete="username" required${username}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
</main>`,
  );
}

function consentPage(p: { uid: string; applicationName: string; scopes: string[] }): string {
  const scopes = p.scopes.map((s) => `<li>${escapeHtml(s === 'openid' ? 'know who you are' : s)}</li>`).join('');
  const base = `${MOUNT}/interaction/${encodeURIComponent(p.uid)}`;
  return page(
    'Authorize - Vehicle Data Service',
    `<main>
<h1>Allow ${escapeHtml(p.applicationName)} to access your data?</h1>
<p>${escapeHtml(p.applicationName)} will be able to:</p>
<ul>${scopes}</ul>
<form method="post" action="${base}/abort"><button type="submit">Deny</button></form>
<form method="post" action="${base}/confirm"><button type="submit">Allow</button></form>
</main>`,
  );
}

const applicationName = (clientId: string | undefined) => findApplication(clientId)?.name ?? 'An application';

// ---------------------------------------------------------------- the server

export async function authorizationServer(ctx: AppContext): Promise<AuthorizationServer> {
  // oidc-provider is an ES module: loaded here, when the variant is on, through a dynamic import.
  const { default: ProviderClass } = (await import('oidc-provider')) as { default: typeof Provider };
  const { faults, store } = ctx;
  const storage = new Storage();
  /** The guard's view of each access token looked up (the control API's marks live on it). */
  const views = new Map<string, AccessToken>();

  const provider = new ProviderClass(`http://127.0.0.1${MOUNT}`, {
    adapter: adapterFor(storage, (value) => ctx.tokens.recordIssued(value)),
    clients: APPLICATIONS.map((a) => ({
      client_id: a.clientId,
      // variant encoded-credentials: a secret HTTP Basic must encode (oidc-provider decodes it as RFC 6749 2.3.1 says,
      // and keeps it printable ASCII, Appendix A.2).
      client_secret: secretOf(a, ctx.variants.has('encoded-credentials'), true),
      client_name: a.name,
      // One registered redirect URI (the suite's): with several, OpenID Connect makes redirect_uri required, where the profile has it optional.
      redirect_uris: [a.redirectUris[0]],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // v3-profile.md § Scopes per route: POST /auth/access_token, "HTTP Basic (client id : client secret)".
      token_endpoint_auth_method: 'client_secret_basic',
      // The application's scopes (v3-profile.md § Sign-in page), and openid for a sign-in that asks for none of them.
      scope: ['openid', ...a.scopes].join(' '),
    })),
    scopes: [...SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    features: { devInteractions: { enabled: false } },
    // The profile's flow has no code_challenge: PKCE stays required of public clients only (the applications are confidential).
    pkce: { methods: ['S256'], required: (_ctx: unknown, client: { clientAuthMethod: string }) => client.clientAuthMethod === 'none' },
    routes: { authorization: '/auth', token: '/access_token' },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${MOUNT}/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) =>
      store.seed.users.some((u) => String(u.id) === sub) ? { accountId: sub, claims: async () => ({ sub }) } : undefined,
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // Refresh: new access and refresh tokens; the old refresh token dies.
    rotateRefreshToken: true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: CODE_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: REFRESH_TOKEN_TTL_S,
      Interaction: SESSION_TTL_S,
      Session: SESSION_TTL_S,
      IdToken: SESSION_TTL_S,
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    jwks: signingKeys(),
    renderError: async (koa: KoaContextWithOIDC, out: Record<string, string>) => {
      koa.state.error = out;
    },
  });

  // The adapter around each answer of the provider's two endpoints.
  provider.use(async (koa, next) => {
    await next();
    const route = koa.oidc?.route;
    if (route === 'token') await tokenAnswer(koa);
    else if (route === 'authorization' || route === 'resume') await pageAnswer(koa, route);
  });

  async function tokenAnswer(koa: KoaContextWithOIDC): Promise<void> {
    const body = koa.body as Record<string, unknown> | undefined;
    if (koa.status === 200 && typeof body?.access_token === 'string') {
      const answer: Record<string, unknown> = { ...body };
      // v3-profile.md § Records, token: expires_at int (unix seconds).
      // fault oidc-token-without-expires-at: the provider's answer passed on as it is (expires_in only).
      if (!faults.has('oidc-token-without-expires-at')) answer.expires_at = Math.floor(Date.now() / 1000) + Number(body.expires_in);
      koa.body = answer;
      return;
    }
    if (koa.status < 400) return;
    // fault oidc-invalid-grant-passed-through: invalid_grant left as oidc-provider answers it (RFC 6749 5.2: 400).
    if (body?.error === 'invalid_grant' && faults.has('oidc-invalid-grant-passed-through')) return;
    const { status, body: errorBody } = tokenError((body ?? {}) as Record<string, string>, Boolean(koa.oidc?.client));
    koa.status = status;
    koa.body = errorBody;
    koa.type = 'application/json; charset=utf-8';
  }

  async function pageAnswer(koa: KoaContextWithOIDC, route: string): Promise<void> {
    // v3-profile.md § Scopes per route: GET /auth/auth answers 200 with the sign-in page. The provider
    // sends the browser on to its interaction; the interaction's first page is answered right here.
    const location = koa.status === 303 ? koa.response.get('location') : '';
    if (route === 'authorization' && location.startsWith(`${MOUNT}/interaction/`)) {
      const uid = decodeURIComponent(location.slice(`${MOUNT}/interaction/`.length));
      const interaction = await provider.Interaction.find(uid);
      if (interaction?.prompt.name === 'login') {
        koa.remove('location');
        koa.status = 200;
        koa.type = 'text/html; charset=utf-8';
        koa.body = loginPage({ uid, applicationName: applicationName(interaction.params.client_id) });
        for (const [name, value] of Object.entries(framingHeaders(ctx.variants, faults))) koa.set(name, value);
      }
      return;
    }
    if (koa.status < 400) return;
    const out = (koa.state.error ?? koa.body ?? {}) as { error?: string; error_description?: string };
    // v3-profile.md § Sign-in page: an unknown client_id or an unregistered redirect_uri answers 404 with an HTML body.
    const unknown = out.error === 'invalid_client' || out.error === 'invalid_redirect_uri';
    koa.status = unknown ? 404 : koa.status;
    koa.type = 'text/html; charset=utf-8';
    koa.body = unknown
      ? renderErrorPage('Unknown application', 'The client_id or the redirect_uri of this sign-in link is not registered.')
      : renderErrorPage('Sign in', out.error_description ?? 'This sign-in link cannot be used.');
  }

  const handle = provider.callback();

  /** Hands the request, its body unread, to the provider mounted at /v3/auth. */
  function toProvider(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.hijack();
    const raw = request.raw as typeof request.raw & { baseUrl?: string };
    const url = new URL(raw.url ?? '/', 'http://localhost');
    const search = request.method === 'GET' && url.pathname === `${MOUNT}/auth` ? signInRequest(url.search) : url.search.slice(1);
    raw.baseUrl = MOUNT;
    raw.url = `${url.pathname.slice(MOUNT.length)}${search ? `?${search}` : ''}`;
    return handle(raw, reply.raw);
  }

  /** The interaction of this browser (its cookie), or the page that says to sign in again. */
  async function interactionOf(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await provider.interactionDetails(request.raw, reply.raw);
    } catch {
      reply.code(400).type('text/html; charset=utf-8').send(renderErrorPage('Sign in again', 'This page has expired: sign in again from the application.'));
      return undefined;
    }
  }

  async function finish(request: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>, merge: boolean): Promise<void> {
    reply.hijack();
    await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: merge });
  }

  function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
    return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').headers(framingHeaders(ctx.variants, faults)).send(html);
  }

  return {
    async accessToken(value: string): Promise<AccessToken | undefined> {
      const found = await provider.AccessToken.find(value, { ignoreExpiration: true }).catch(() => undefined);
      if (!found) {
        views.delete(value);
        return undefined;
      }
      let view = views.get(value);
      if (!view) {
        const scopes = (found.scope ?? '').split(' ').filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
        view = {
          value,
          clientId: found.clientId,
          userId: Number(found.accountId),
          scopes,
          expiresAt: found.exp * 1000,
          issuedAt: found.iat * 1000,
          lifetimeS: found.exp - found.iat,
          forcedExpired: false,
          revoked: false,
        };
        views.set(value, view);
      }
      return view;
    },

    reset(): void {
      storage.clear();
      views.clear();
    },

    async plugin(app: FastifyInstance): Promise<void> {
      await app.register(async (mounted) => {
        // The provider reads the body itself: this context leaves it in the request stream.
        mounted.removeAllContentTypeParsers();
        mounted.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
        mounted.get('/auth/auth', toProvider);
        mounted.get('/auth/auth/:uid', toProvider);
        mounted.post('/auth/access_token', toProvider);
      });

      app.get('/auth/interaction/:uid', async (request, reply) => {
        const interaction = await interactionOf(request, reply);
        if (!interaction) return reply;
        const name = applicationName(interaction.params.client_id);
        if (interaction.prompt.name === 'login') return sendPage(reply, 200, loginPage({ uid: interaction.uid, applicationName: name }));
        return sendPage(reply, 200, consentPage({ uid: interaction.uid, applicationName: name, scopes: interaction.prompt.details.missingOIDCScope ?? [] }));
      });

      app.post('/auth/interaction/:uid/login', async (request, reply) => {
        const interaction = await interactionOf(request, reply);
        if (!interaction) return reply;
        const { fields } = parseFields(request.body, request.headers['content-type']);
        const user = fields.username === undefined ? undefined : store.userByEmail(fields.username);
        if (!user || user.password !== fields.password) {
          const name = applicationName(interaction.params.client_id);
          return sendPage(reply, 401, loginPage({ uid: interaction.uid, applicationName: name, username: fields.username, error: 'Wrong email or password' }));
        }
        await finish(request, reply, { login: { accountId: String(user.id) } }, false);
        return reply;
      });

      // The user allows the application: a grant of the scopes the request asked for (already the application's).
      app.post('/auth/interaction/:uid/confirm', async (request, reply) => {
        const interaction = await interactionOf(request, reply);
        if (!interaction) return reply;
        const accountId = interaction.session?.accountId;
        const clientId = interaction.params.client_id;
        if (interaction.prompt.name !== 'consent' || !accountId || !clientId) return sendPage(reply, 400, renderErrorPage('Sign in again', 'Sign in first.'));
        const grant = new provider.Grant({ accountId, clientId });
        const scopes = interaction.prompt.details.missingOIDCScope ?? [];
        if (scopes.length) grant.addOIDCScope(scopes.join(' '));
        const grantId = await grant.save();
        await finish(request, reply, { consent: { grantId } }, true);
        return reply;
      });

      // The user denies it: RFC 6749 4.1.2.1, access_denied.
      app.post('/auth/interaction/:uid/abort', async (request, reply) => {
        const interaction = await interactionOf(request, reply);
        if (!interaction) return reply;
        await finish(request, reply, { error: 'access_denied', error_description: 'The user denied the application' }, false);
        return reply;
      });
    },
  };
}
