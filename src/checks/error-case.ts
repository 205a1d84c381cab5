// The generic documented-error check: send the route the request variants described in the catalogue
// (an unknown or another user's id, a credential, a query value) and expect the documented answer.
// A variant may stand for a family of requests, generated from the run's credentials: the near-miss
// forms of a token (nearMiss), its forgeries where its format can be read (forged: a JWT), every token
// the run holds (token: "@others"), a credential of another kind presented as the bearer token
// (credential), the token in a place the documents do not give it (headers, query, bodyMembers, form,
// with no Authorization header). The tokens the server issued in the run come first: beside a token the
// target file gives (often a long-lived one configured for a test client), the server's own token store
// is where a defect of its issued tokens lives.
import {
  type CallOptions,
  type CheckContext,
  ConformanceFailure,
  type ErrorExpectation,
  expandDeep,
  expectError,
  judgeEach,
  NEAR_MISS_WORDS,
  nearMisses,
  type NearMissForm,
  NotApplicable,
  NotRun,
  forgeInputs,
  forgeries,
  forgingNeedsTheCredential,
  type ForgedForm,
  heldRefreshTokens,
  readJwt,
  resourceParam,
  type Route,
  type TokenKey,
  unknownIdLike,
  OTHER_ID,
} from '../check-api';
import { codeForTokenEndpoint } from './token-endpoint';

export interface RequestVariant {
  /** unknown | beyond-32-bits | other | unknown-device | malformed-device: replaces the route's resource id. */
  id?: 'unknown' | 'beyond-32-bits' | 'other' | 'unknown-device' | 'malformed-device';
  /**
   * "none" sends no Authorization header; any other string is sent as the raw header, `@token` in it
   * replaced by the primary user's valid token (a valid token under another scheme, or none), `@token:basic`
   * by HTTP Basic's form of it (base64 of the token and a colon: the token as Basic's user name).
   */
  auth?: string;
  /**
   * A token key; "@scope" is the scope under test, "@routeScope" the route's first scope; "@others" every
   * token the run holds but `full` (one request each).
   */
  token?: string;
  /** The token (`token`, default full) presented nearly right: one request per form (check-api near-miss.ts). */
  nearMiss?: NearMissForm[];
  /** The token (`token`, default full) forged, where it is a JWT: one request per forgery (check-api forged.ts). */
  forged?: ForgedForm[];
  /** A credential of another kind presented as the bearer token: the run's refresh token, a fresh code, the client secret. */
  credential?: 'refresh-token' | 'code' | 'client-secret';
  /** Query parameters; `@token` in a value is the primary user's token. */
  query?: Record<string, string>;
  /** Request headers; `@token` in a value is the primary user's token, `@sandboxHost` the sandbox's host beside the target. */
  headers?: Record<string, string>;
  /** Members added to the route's JSON body (or a body of their own); `@token` in a value is the primary user's token. */
  bodyMembers?: Record<string, string>;
  /** An application/x-www-form-urlencoded body in place of the route's; `@token` in a value is the primary user's token. */
  form?: Record<string, string>;
  /** Sent only to routes taking this query parameter. */
  ifQuery?: string;
  /** Sent only to this route. */
  ifRoute?: string;
  /** Sent only to routes of this method. */
  ifMethod?: 'GET' | 'POST';
}

/** A bearer token's syntax (RFC 6750 § 2.1). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A device id no serial number looks like: spaces and punctuation. */
const MALFORMED_DEVICE_ID = 'not a device id!';

/** An id past 32 bits (2^33 + 1) and within 53 (a JSON number, a 64-bit integer): no resource of the run has it. */
const BEYOND_32_BITS_ID = String(2 ** 33 + 1);

/** One request of a variant: its options, and what it is when it fails (a near-miss form, a credential). */
interface Request {
  options: CallOptions;
  what?: string;
}

function withToken<T>(value: T, token: () => string): T {
  if (typeof value === 'string') return value.replace('@token:basic', () => Buffer.from(`${token()}:`).toString('base64')).replace('@token', token) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withToken(v, token)])) as T;
  return value;
}

/**
 * `@sandboxHost` in a header's value: the host the spec's route form gives the sandbox beside the
 * target (https://{env}.<host>/v3: the target's first label "cloud" replaced by "sandbox", else
 * "sandbox." before the target's host), with the target's port.
 */
function withSandboxHost(ctx: CheckContext, headers: Record<string, string>): Record<string, string> {
  const url = new URL(ctx.target.baseUrl);
  const host = /^cloud\./i.test(url.hostname) ? url.hostname.replace(/^cloud\./i, 'sandbox.') : `sandbox.${url.hostname}`;
  const named = `${host}${url.port ? `:${url.port}` : ''}`;
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('@sandboxHost', named)]));
}

function variantOptions(ctx: CheckContext, route: Route, v: RequestVariant): CallOptions {
  const full = () => ctx.token('full');
  const options: CallOptions = { query: v.query ? withToken(expandDeep(v.query, new Date(ctx.now())), full) : undefined };
  if (v.id === 'unknown-device') {
    options.ids = { deviceId: unknownIdLike(ctx.idFor(route, 'deviceId')) };
  } else if (v.id === 'malformed-device') {
    options.ids = { deviceId: MALFORMED_DEVICE_ID };
  } else if (v.id === 'unknown') {
    const param = resourceParam(route);
    options.ids = { [param]: unknownIdLike(ctx.idFor(route, param)) };
  } else if (v.id === 'beyond-32-bits') {
    options.ids = { [resourceParam(route)]: BEYOND_32_BITS_ID };
  } else if (v.id === 'other') {
    options.ids = { [resourceParam(route)]: ctx.data(OTHER_ID[resourceParam(route)]) };
  }
  if (v.auth !== undefined) options.authorization = v.auth === 'none' ? null : withToken(v.auth, full);
  if (v.token) {
    const scope = v.token.includes('@routeScope') ? route.scopes[0] : ctx.scope;
    options.token = v.token.replace('@routeScope', scope ?? '').replace('@scope', scope ?? '') as TokenKey;
  }
  if (v.headers) options.headers = withToken(withSandboxHost(ctx, v.headers), full);
  if (v.bodyMembers) options.bodyMembers = withToken(v.bodyMembers, full);
  if (v.form) options.form = withToken(v.form, full);
  return options;
}

/** The tokens the server issued in the run first (those issued beside given ones, then those the run minted), then the given ones. */
function issuedFirst(ctx: CheckContext, keys: TokenKey[]): TokenKey[] {
  const rank = (k: TokenKey) => (k.startsWith('issued.') ? 0 : ['control', 'signin'].includes(ctx.run.tokenOrigins?.[k] ?? '') ? 1 : 2);
  return [...keys].sort((a, b) => rank(a) - rank(b));
}

/**
 * The run's tokens a variant presents: its key (default full; for full, the primary token the server
 * issued in the run first, where the run holds one beside the given one), or every other token the run
 * holds ("@others"), those the server issued first.
 */
function presentedTokens(ctx: CheckContext, v: RequestVariant, options: CallOptions): Array<{ key: TokenKey; value: string }> {
  if (v.token === '@others') {
    const held = (Object.keys(ctx.run.tokens) as TokenKey[]).filter((key) => key !== 'full' && key !== 'issued.full' && ctx.run.tokens[key]);
    return issuedFirst(ctx, held).map((key) => ({ key, value: ctx.run.tokens[key]! }));
  }
  const key = options.token ?? 'full';
  const issued = key === 'full' ? ctx.tokenIfGiven('issued.full') : undefined;
  return [...(issued ? [{ key: 'issued.full' as const, value: issued }] : []), { key, value: ctx.token(key) }];
}

/** The forgeries of the presented tokens that can be read (JWTs); the opaque ones are named in `opaque`. */
function forgedRequests(ctx: CheckContext, v: RequestVariant, options: CallOptions, opaque: string[]): Request[] {
  forgingNeedsTheCredential();
  const inputs = forgeInputs(ctx.run);
  return presentedTokens(ctx, v, options).flatMap(({ key, value }) => {
    const token = readJwt(value);
    if (!token) {
      opaque.push(`tokens.${key}`);
      return [];
    }
    return forgeries(token, v.forged!, inputs).map((f) => {
      // A forgery holds most of the token (its claims, or its signature): redacted as the token is.
      ctx.redactor.add(f.value);
      return {
        options: { ...options, token: undefined, authorization: `Bearer ${f.value}`, credential: `${key} (forged: ${f.form})` },
        what: `tokens.${key} forged: ${f.what}`,
      };
    });
  });
}

/**
 * The credentials of another kind than an access token the run holds, each as the bearer token: every
 * refresh token (those of the tokens the server issued in the run first), a fresh code, the client
 * secret; none (with the reason in `skipped`) when the run holds none of that kind.
 */
async function otherKind(
  ctx: CheckContext,
  kind: NonNullable<RequestVariant['credential']>,
  skipped: string[],
): Promise<Array<{ value: string; what: string }>> {
  if (kind === 'client-secret') {
    const secret = ctx.target.oauth?.clientSecret;
    if (!secret) skipped.push(`the client secret (oauth.clientSecret is not in ${ctx.target.source})`);
    // One that no bearer token could be (RFC 6750 § 2.1, b64token) makes a malformed header: AUTH-MALFORMED's to judge.
    else if (!B64TOKEN.test(secret)) skipped.push("the client secret (it is not of a bearer token's syntax, RFC 6750 § 2.1: the header would be malformed)");
    return secret && B64TOKEN.test(secret) ? [{ value: secret, what: 'the client secret' }] : [];
  }
  if (kind === 'refresh-token') {
    const held = heldRefreshTokens(ctx.run);
    const keys = issuedFirst(
      ctx,
      held.map((h) => h.key),
    );
    if (!held.length) skipped.push('a refresh token (the run minted no token: the target file gives them)');
    return keys.map((key) => ({ value: held.find((h) => h.key === key)!.value, what: `the refresh token of tokens.${key}` }));
  }
  try {
    return [{ value: (await codeForTokenEndpoint(ctx)).code, what: 'a fresh code' }];
  } catch (err) {
    // No code to present: its own checks judge why (the sign-in page's, the token endpoint's).
    if (!(err instanceof NotRun) && !(err instanceof ConformanceFailure)) throw err;
    skipped.push(`a code (${err.message.split('\n')[0]})`);
    return [];
  }
}

/** The requests a variant stands for (the near-miss forms, the forgeries, the run's tokens, a credential of another kind). */
async function requestsOf(ctx: CheckContext, route: Route, v: RequestVariant, skipped: string[], opaque: string[]): Promise<Request[]> {
  const options = variantOptions(ctx, route, v);
  if (v.credential) {
    return (await otherKind(ctx, v.credential, skipped)).map(({ value, what }) => {
      ctx.redactor.add(value);
      return { options: { ...options, token: undefined, authorization: `Bearer ${value}`, credential: v.credential }, what: `${what} as the bearer token` };
    });
  }
  if (v.forged) return forgedRequests(ctx, v, options, opaque);
  if (v.nearMiss) {
    return presentedTokens(ctx, v, options).flatMap(({ key, value }) =>
      nearMisses(value, v.nearMiss).map((miss) => {
        // A near-miss is almost the whole secret: redacted as the secret is.
        ctx.redactor.add(miss.value);
        return {
          options: { ...options, token: undefined, authorization: `Bearer ${miss.value}`, credential: `${key} (near-miss: ${miss.form})` },
          what: `tokens.${key} with ${NEAR_MISS_WORDS[miss.form]}`,
        };
      }),
    );
  }
  if (v.token === '@others') {
    return presentedTokens(ctx, v, options).map(({ key }) => ({ options: { ...options, token: key as TokenKey }, what: `tokens.${key}` }));
  }
  return [{ options }];
}

/** The documented answer, and another that will do as well, but not (`unlessNamed`) for a token the target names. */
type CaseExpectation = ErrorExpectation & { or?: ErrorExpectation & { unlessNamed?: boolean } };

/** Whether the target names the token (its file, or one of its commands), as opposed to one the run minted or kept itself. */
function namedByTarget(ctx: CheckContext, key: TokenKey): boolean {
  const origin = ctx.run.tokenOrigins?.[key];
  return origin === 'target' || origin === 'command';
}

export async function errorCase(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  if (route.method !== 'GET') ctx.requireWrites();
  const variants = (ctx.param<RequestVariant[]>('variants') ?? [ctx.param<RequestVariant>('request') ?? {}]).filter(
    (v) => (!v.ifQuery || route.query.includes(v.ifQuery)) && (!v.ifRoute || v.ifRoute === route.route) && (!v.ifMethod || v.ifMethod === route.method),
  );
  const { or, ...documented } = ctx.param<CaseExpectation>('expect');
  const { unlessNamed, ...other } = or ?? { unlessNamed: false };
  // The other answer does not do for a token the target names (decision D-EXPIRED-NAMED: the expired token).
  const named = unlessNamed ? variants.map((v) => v.token as TokenKey | undefined).find((key) => key && namedByTarget(ctx, key)) : undefined;
  const expected: ErrorExpectation = named
    ? { ...documented, why: `tokens.${named} is named by ${ctx.target.source} (decision D-EXPIRED-NAMED)` }
    : { ...documented, ...(or ? { or: other as ErrorExpectation } : {}) };
  // A non-empty tip is the profile's decision (tip wording); the spec only says the tip is a string.
  if (ctx.requirement.class === 'core') expected.tip ??= 'any';
  if (expected.message === '@notFound') expected.message = ctx.catalogue.pathParams[resourceParam(route)]?.notFound;
  if (expected.tip === 'names-scope' && !expected.scope) {
    const v = variants[0];
    expected.scope = v.token?.includes('@routeScope') ? route.scopes[0] : ctx.scope;
  }
  if (variants.some((v) => v.id === 'other') && ctx.target.env === 'sandbox') {
    throw new NotApplicable('cross-user access needs tokens: it applies to cloud targets');
  }
  const skipped: string[] = [];
  const opaque: string[] = [];
  const requests: Request[] = [];
  for (const v of variants) requests.push(...(await requestsOf(ctx, route, v, skipped, opaque)));
  if (requests.length === 0 && opaque.length && !skipped.length) {
    throw new NotApplicable(
      `the tokens presented (${opaque.join(', ')}) are opaque - none is a JWT (three base64url parts, the first a JSON header naming its algorithm): an opaque token offers nothing to forge`,
    );
  }
  if (requests.length === 0) throw new NotRun(`no credential to present: ${skipped.join('; ')}`);
  if (skipped.length) ctx.warn(`not presented: ${skipped.join('; ')}`);
  await judgeEach(
    route,
    requests,
    (r) => ctx.call(route, r.options),
    (res, r) => expectError(res, { ...expected, ...(r.what ? { why: r.what } : {}) }),
  );
}
