// The request pipeline of every protected route, in the order of the profile's decision table:
// authentication (401, and the token's own 403s) -> scope (403) -> existence (404) -> access (403)
// -> query parameters (400/416) -> answer. An unauthenticated caller learns nothing about ids.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { cookies, SSO_COOKIE } from '../http/cookies';
import { ApiError, internalError, REWORDED_TIP_PREFIX } from '../http/errors';
import { answerFromCache } from '../http/response-cache';
import type { RouteKey } from '../route-keys';
import { findApplication, SCOPES, type Scope } from './clients';
import { requiredScopes, sandboxOpen } from './scopes';
import type { AccessToken } from './tokens';

export type ResourceKind = 'user' | 'car' | 'trip';

/** A resource found by the existence step, with the user it belongs to. */
export interface Owned<R> {
  kind: ResourceKind | 'device';
  /** The owning user; null for a resource that has none (a free device). */
  ownerId: number | null;
  value: R;
}

export interface RouteSteps<R, Q> {
  route: RouteKey;
  /** Existence: returns the addressed resource or throws 404 (or 400 where the profile says so). */
  load?: () => Owned<R>;
  /** Access: replaces the default "token user owns the resource" check when given. */
  access?: (resource: R, token: AccessToken) => void;
  /** Query parameters: parsed and validated (400/416). */
  query?: () => Q;
  /** The answer; its return value is sent when the reply was not sent already. */
  respond: (resource: R, query: Q, token: AccessToken | null) => unknown;
}

const AUTH_TIPS = {
  missing: 'Add an Authorization header: Authorization: Bearer <access token>',
  malformed: 'Use the form Authorization: Bearer <access token>',
  invalid: 'Get a new access token from /auth/access_token',
};

/** Variant expired-tokens-forgotten: how long after its expiry a token is purged. */
const FORGET_EXPIRED_AFTER_MS = 5_000;
/** Authentication: the Bearer header and the token's state. */
async function authenticate(request: FastifyRequest, ctx: AppContext, route: RouteKey): Promise<AccessToken> {
  const { faults } = ctx;
  // fault route-token-from-query (per route): this route also takes the token from ?access_token= (RFC 6750 2.3 left on).
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.access_token;
  // fault blind-sso-cookie-authenticates-api: the sign-in's session cookie stands in for a missing header (the web dashboard's way in).
  const session = request.headers.authorization === undefined && faults.has('blind-sso-cookie-authenticates-api') ? cookies(request)[SSO_COOKIE] : undefined;
  const header =
    request.headers.authorization ??
    (faults.on('route-token-from-query', route) && typeof fromQuery === 'string' ? `Bearer ${fromQuery}` : undefined) ??
    (session ? `Bearer ${session}` : undefined);
  if (header === undefined || header.trim() === '') {
    // fault missing-auth-403: "no header" treated as "not allowed".
    throw new ApiError(faults.has('missing-auth-403') ? 403 : 401, 'AUTHENTICATION_ERROR', 'Authorization is missing', AUTH_TIPS.missing);
  }
  // fault bearer-without-token-500: the token is taken as the header's second word, which "Bearer" alone lacks.
  if (faults.has('bearer-without-token-500') && /^bearer *$/i.test(header)) throw internalError("Cannot read properties of undefined (reading 'trim')");
  // fault bearer-scheme-not-checked: the token is the header's last word, whatever comes before it.
  // fault blind-bearer-scheme-case-sensitive: the scheme compared as written ("Bearer " only), not case-insensitively.
  const match = faults.has('bearer-scheme-not-checked')
    ? /(\S+) *$/.exec(header)
    : faults.has('blind-bearer-scheme-case-sensitive')
      ? /^Bearer +(\S+) *$/.exec(header)
      : /^bearer +(\S+) *$/i.exec(header);
  if (!match) {
    // fault malformed-auth-invalid-token: every header problem reported as a bad token.
    const message = faults.has('malformed-auth-invalid-token') ? 'Invalid token' : 'Authorization is malformed';
    throw new ApiError(401, 'AUTHENTICATION_ERROR', message, AUTH_TIPS.malformed);
  }
  // fault unknown-token-as-first-user: a token the store does not know falls back to a default session.
  // variant authorization-server-oidc: the tokens oidc-provider issued are looked up in it.
  // fault route-token-prefix-match (per route): this route looks the token up as a prefix (a LIKE 'value%' query).
  // fault issued-tokens-prefix-match: the tokens a grant issued are looked up as a prefix (configured ones exactly).
  // fault refresh-token-as-access: the lookup falls back to the refresh tokens (one table, the kind never read).
  // variant jwt-access-tokens: a token is read from its verified claims, its record found by the id it names.
  const found =
    (ctx.tokens.jwt ? await ctx.tokens.accessOfJwt(match[1], faults) : ctx.tokens.access(match[1])) ??
    (faults.on('route-token-prefix-match', route) ? ctx.tokens.accessByPrefix(match[1]) : undefined) ??
    (faults.has('issued-tokens-prefix-match') ? ctx.tokens.issuedByPrefix(match[1]) : undefined) ??
    (faults.has('refresh-token-as-access') ? ctx.tokens.accessOfRefresh(match[1]) : undefined) ??
    (await ctx.authorizationServer?.accessToken(match[1]));
  // variant expired-tokens-forgotten: an expired token is purged a while after it expired: then unknown.
  const known = found && ctx.variants.has('expired-tokens-forgotten') && ctx.tokens.isForgotten(found, ctx.now(), FORGET_EXPIRED_AFTER_MS) ? undefined : found;
  const token = known ?? (faults.has('unknown-token-as-first-user') ? defaultSession(ctx) : undefined);
  if (!token) {
    // fault unknown-token-revoked: a token missing from the store is taken for a revoked one.
    if (faults.has('unknown-token-revoked'))
      throw new ApiError(403, 'AUTHORIZATION_ERROR', 'Token has been revoked', 'Ask the user to sign in again to get a new access token');
    throw new ApiError(401, 'AUTHENTICATION_ERROR', 'Invalid token', AUTH_TIPS.invalid);
  }
  // fault revoked-token-accepted: the revocation flag is never read.
  if (token.revoked && !faults.has('revoked-token-accepted')) {
    throw new ApiError(403, 'AUTHORIZATION_ERROR', 'Token has been revoked', 'Ask the user to sign in again to get a new access token');
  }
  // fault expired-token-accepted: the expiry is never compared with the clock.
  if (ctx.tokens.isExpired(token, ctx.now()) && !faults.has('expired-token-accepted')) {
    // fault expired-token-invalid: a verification library's "expired" error mapped, like every other of its errors, to an unknown token.
    if (faults.has('expired-token-invalid')) throw new ApiError(401, 'AUTHENTICATION_ERROR', 'Invalid token', AUTH_TIPS.invalid);
    // fault expired-token-401: expiry reported as an authentication failure.
    if (faults.has('expired-token-401'))
      throw new ApiError(401, 'AUTHENTICATION_ERROR', 'Token has expired', 'Refresh the access token with your refresh token');
    // fault expired-token-revoked: one refusal for both, in the revocation's words.
    if (faults.has('expired-token-revoked'))
      throw new ApiError(403, 'AUTHORIZATION_ERROR', 'Token has been revoked', 'Ask the user to sign in again to get a new access token');
    throw new ApiError(403, 'AUTHORIZATION_ERROR', 'Token has expired', 'Refresh the access token with your refresh token');
  }
  return token;
}

/** The session a faulty server falls back to: the first user, every scope, never expiring. */
function defaultSession(ctx: AppContext): AccessToken {
  return {
    value: 'default-session',
    clientId: 'vds-conformance',
    userId: ctx.store.seed.users[0].id,
    scopes: [...SCOPES],
    expiresAt: Number.MAX_SAFE_INTEGER,
    issuedAt: 0,
    lifetimeS: Number.MAX_SAFE_INTEGER,
    forcedExpired: false,
    revoked: false,
  };
}

function checkScopes(route: RouteKey, token: AccessToken, ctx: AppContext, request?: FastifyRequest): void {
  // faults dissociate-scope-reconnect-only, pin-scope-reconnect-only: that device route counts as missing only
  // the scopes reconnecting would add (the token's application has them), so a scope the application does not
  // have (the restricted devices_management) is never missing there.
  const app = reconnectOnly(route, ctx, request) ? findApplication(token.clientId) : undefined;
  const missing: Scope[] = requiredScopes(route, ctx.faults).filter((s) => !token.scopes.includes(s) && (!app || app.scopes.includes(s)));
  if (missing.length === 0) return;
  const { faults, variants } = ctx;
  // fault scope-tip-names-first-scope: the tip names the route's first scope, not the missing one.
  // fault scope-tip-names-held-scopes (per route): the tip names the scopes the token holds instead.
  const inTip: readonly string[] = faults.on('scope-tip-names-held-scopes', route)
    ? token.scopes
    : faults.has('scope-tip-names-first-scope')
      ? requiredScopes(route, ctx.faults).slice(0, 1)
      : missing;
  const named = `${inTip.join(' and ')} scope${inTip.length > 1 ? 's' : ''}`;
  // fault missing-scope-tip-omits-scope: a generic tip.
  // variant tips-reworded: worded in its own style here, as only this tip must name something (the scope).
  const tip = faults.has('missing-scope-tip-omits-scope')
    ? 'Add the required scope to your app scopes and reconnect the user'
    : variants.has('tips-reworded')
      ? `${REWORDED_TIP_PREFIX}your application was granted the ${named} and that the user signed in again`
      : `Add the ${named} to your app scopes and reconnect the user`;
  // fault missing-scope-401: scope problems reported as authentication problems.
  if (faults.has('missing-scope-401')) throw new ApiError(401, 'AUTHENTICATION_ERROR', 'Token does not have the required scope', tip);
  throw new ApiError(403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope', tip);
}

/** Whether the route, as this request uses it, has one of the faults that compare the scopes with the application's only. */
function reconnectOnly(route: RouteKey, ctx: AppContext, request: FastifyRequest | undefined): boolean {
  const { faults } = ctx;
  if (route === 'POST /devices/:deviceId/dissociate') return faults.has('dissociate-scope-reconnect-only');
  const byPin = (request?.query as Record<string, unknown> | undefined)?.pin !== undefined;
  return route === 'POST /devices/:deviceId/associate' && byPin && faults.has('pin-scope-reconnect-only');
}

const ACCESS_TIPS: Record<ResourceKind, string> = {
  user: 'Make sure the user is accessible with this token',
  car: 'Make sure the car is accessible with this token',
  trip: 'Make sure the trip is accessible with this token',
};

export function accessDenied(kind: ResourceKind): ApiError {
  return new ApiError(403, 'AUTHORIZATION_ERROR', `Token can't access this ${kind}`, ACCESS_TIPS[kind]);
}

/** The default access rule: a token reads and writes only its own user's resources. */
function checkOwner<R>(route: RouteKey, resource: Owned<R>, token: AccessToken, ctx: AppContext): void {
  // Devices always bring their own access rule (see routes/devices.ts).
  if (resource.kind === 'device' || resource.ownerId === token.userId) return;
  const { faults } = ctx;
  // faults created-car-*: a car created since the seed (POST /users/{userId}/cars) was never given an owner check.
  if (resource.kind === 'car' && !ctx.store.seed.cars.some((c) => c.id === (resource.value as { id: number }).id)) {
    if (faults.has('created-car-no-owner-check')) return;
    if (faults.has('created-car-subroutes-unchecked') && route !== 'GET /cars/:carId') return;
  }
  // faults cross-user-*: one route forgets the ownership check.
  if (route === 'GET /trips/:tripId' && faults.has('cross-user-trip-readable')) return;
  if (route === 'GET /cars/:carId' && faults.has('cross-user-car-readable')) return;
  if (route === 'GET /users/:userId/cars' && faults.has('cross-user-user-cars-readable')) return;
  if (route === 'GET /users/:userId' && faults.has('cross-user-user-readable')) return;
  if (route === 'POST /users/:userId/cars' && faults.has('cross-user-car-create')) return;
  // fault cross-user-trip-message-car: the trip check reuses the car check's error.
  if (resource.kind === 'trip' && faults.has('cross-user-trip-message-car')) throw accessDenied('car');
  throw accessDenied(resource.kind);
}

type Step = 'auth' | 'scope' | 'load' | 'access' | 'query';

/** The routes fault response-cache-by-scopes caches: the cars' and the trips' read routes. */
const CACHED_BY_SCOPES = /^GET \/(cars|trips)\//;

function stepOrder(ctx: AppContext): Step[] {
  const { faults } = ctx;
  // fault auth-checked-after-existence: the id lookup runs before the auth middleware.
  if (faults.has('auth-checked-after-existence')) return ['load', 'auth', 'scope', 'access', 'query'];
  // fault scope-checked-after-existence: the scope check sits in the handler, after the lookup.
  if (faults.has('scope-checked-after-existence')) return ['auth', 'load', 'scope', 'access', 'query'];
  // fault access-checked-before-scope: the ownership check sits in the auth middleware, the scope check in the handler.
  if (faults.has('access-checked-before-scope')) return ['auth', 'load', 'access', 'scope', 'query'];
  // fault query-checked-before-access: query validation moved into a preValidation hook.
  if (faults.has('query-checked-before-access')) return ['auth', 'scope', 'load', 'query', 'access'];
  // fault query-checked-before-existence: query validation runs before the id lookup.
  if (faults.has('query-checked-before-existence')) return ['auth', 'scope', 'query', 'load', 'access'];
  return ['auth', 'scope', 'load', 'access', 'query'];
}

/** Runs one protected route: the steps in order, then the answer. Errors are thrown as ApiError. */
export async function runRoute<R = undefined, Q = undefined>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  steps: RouteSteps<R, Q>,
): Promise<unknown> {
  // fault blind-sandbox-by-host-header: the environment read from the host the request names, not from the deployment.
  const forwarded = request.headers['x-forwarded-host'];
  const host = (typeof forwarded === 'string' ? forwarded : undefined) ?? request.headers.host ?? '';
  const sandboxHost = /^sandbox\./i.test(host) && ctx.faults.has('blind-sandbox-by-host-header');
  const open =
    ((ctx.mode === 'sandbox' || sandboxHost) && sandboxOpen(steps.route, ctx.faults)) ||
    // fault blind-head-skips-auth: the auth hook is bound to GET and POST, so the generated HEAD route runs without it.
    (request.method === 'HEAD' && ctx.faults.has('blind-head-skips-auth')) ||
    // fault status-route-unprotected: the route was registered without the auth hook.
    (steps.route === 'GET /cars/:carId/status' && ctx.faults.has('status-route-unprotected'));
  // fault response-cache-shared (per route): a cache in front of the route keeps its successes by method
  // and URL, and answers them again to whoever asks meanwhile, before any check.
  if (ctx.faults.on('response-cache-shared', steps.route) && answerFromCache(ctx.store, `${request.method} ${request.url}`, request, reply)) return reply;
  let token: AccessToken | null = null;
  let resource: Owned<R> | undefined;
  let query: Q = undefined as Q;
  for (const step of stepOrder(ctx)) {
    switch (step) {
      case 'auth':
        // Sandbox read routes ignore any Authorization header (profile: "may ignore it").
        if (!open) token = await authenticate(request, ctx, steps.route);
        // fault response-cache-by-scopes: the cars and trips routes' successes are cached once the token is
        // authenticated, by URL and the token's scopes (what the answer was thought to depend on), not its user.
        if (token && CACHED_BY_SCOPES.test(steps.route) && ctx.faults.has('response-cache-by-scopes')) {
          if (answerFromCache(ctx.store, `${request.method} ${request.url} ${[...token.scopes].sort().join(' ')}`, request, reply)) return reply;
        }
        // fault status-says-token-expired: this route compares the expiry (ms) with a clock in seconds, so every token has expired.
        if (token && steps.route === 'GET /cars/:carId/status' && ctx.faults.has('status-says-token-expired')) {
          throw new ApiError(403, 'AUTHORIZATION_ERROR', 'Token has expired', 'Refresh the access token with your refresh token');
        }
        break;
      case 'scope':
        if (token) checkScopes(steps.route, token, ctx, request);
        break;
      case 'load':
        resource = steps.load?.();
        break;
      case 'access':
        if (token && resource) {
          if (steps.access) steps.access(resource.value, token);
          else checkOwner(steps.route, resource, token, ctx);
        }
        break;
      case 'query':
        query = steps.query ? steps.query() : (undefined as Q);
        break;
    }
  }
  // fault route-query-id-overrides-path (per route): once the checks passed on the path's resource, the
  // handler reads its parameters through a helper that merges the query over the path (a v2 client's
  // ?carId= kept working), and loads the resource the query names.
  if (ctx.faults.on('route-query-id-overrides-path', steps.route) && steps.load) {
    const params = request.params as Record<string, string>;
    const q = (request.query ?? {}) as Record<string, unknown>;
    const name = ['tripId', 'carId', 'userId'].find((n) => n in params && typeof q[n] === 'string');
    if (name) {
      params[name] = q[name] as string;
      resource = steps.load();
    }
  }
  // fault route-answers-500: this route's answer fails in the serializer (a response schema that
  // rejects the route's own record), after every check passed.
  if (ctx.faults.on('route-answers-500', steps.route)) throw new Error(`serialization of the ${steps.route} answer failed`);
  if (request.method === 'GET') {
    // fault personal-data-cache-public (per route): the route's answers declared storable by every cache, shared ones
    // included, for five minutes (a CDN rule written for the public pages, put on the API too).
    if (ctx.faults.on('personal-data-cache-public', steps.route)) reply.header('cache-control', 'public, max-age=300');
    // variant reads-cache-declared: the users' answers kept by the client's own cache a minute; the cars' and trips'
    // storable by any cache but stale at once, so that a cache asks the server again before each use (RFC 9111 § 4.3).
    else if (ctx.variants.has('reads-cache-declared'))
      reply.header('cache-control', steps.route.startsWith('GET /users/') ? 'private, max-age=60' : 'max-age=0, must-revalidate');
  }
  const result = await steps.respond(resource?.value as R, query, token);
  return reply.sent ? reply : result;
}
