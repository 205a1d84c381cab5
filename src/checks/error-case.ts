// The generic documented-error check: send the route the request variants described in the catalogue
// (an unknown or another user's id, a credential, a query value) and expect the documented answer.
// A variant may stand for a family of requests, generated from the run's credentials: the near-miss
// forms of a token (nearMiss), every token the run holds (token: "@others"), a credential of another
// kind presented as the bearer token (credential), the token in a place the documents do not give it
// (headers, query, bodyMembers, form, with no Authorization header).
import {
  type CallOptions,
  type CheckContext,
  ConformanceFailure,
  type DataKey,
  type ErrorExpectation,
  expandDeep,
  expectError,
  judgeEach,
  NEAR_MISS_WORDS,
  nearMisses,
  type NearMissForm,
  NotApplicable,
  NotRun,
  refreshTokenOf,
  resourceParam,
  type Route,
  type TokenKey,
  unknownIdLike,
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
  /** A credential of another kind presented as the bearer token: the run's refresh token, a fresh code, the client secret. */
  credential?: 'refresh-token' | 'code' | 'client-secret';
  /** Query parameters; `@token` in a value is the primary user's token. */
  query?: Record<string, string>;
  /** Request headers; `@token` in a value is the primary user's token. */
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

const OTHER: Record<string, DataKey> = { userId: 'otherUserId', carId: 'otherCarId', tripId: 'otherTripId' };

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
    options.ids = { [resourceParam(route)]: ctx.data(OTHER[resourceParam(route)]) };
  }
  if (v.auth !== undefined) options.authorization = v.auth === 'none' ? null : withToken(v.auth, full);
  if (v.token) {
    const scope = v.token.includes('@routeScope') ? route.scopes[0] : ctx.scope;
    options.token = v.token.replace('@routeScope', scope ?? '').replace('@scope', scope ?? '') as TokenKey;
  }
  if (v.headers) options.headers = withToken(v.headers, full);
  if (v.bodyMembers) options.bodyMembers = withToken(v.bodyMembers, full);
  if (v.form) options.form = withToken(v.form, full);
  return options;
}

/** The run's tokens a variant presents: its key (default full), or every one the run holds but full ("@others"). */
function presentedTokens(ctx: CheckContext, v: RequestVariant, options: CallOptions): Array<{ key: string; value: string }> {
  if (v.token === '@others') {
    return (Object.entries(ctx.run.tokens) as Array<[string, string | undefined]>)
      .filter(([key, value]) => key !== 'full' && value)
      .map(([key, value]) => ({ key, value: value! }));
  }
  const key = options.token ?? 'full';
  return [{ key, value: ctx.token(key) }];
}

/**
 * A credential of another kind than an access token, as the bearer token: undefined (with the reason
 * in `skipped`) when the run holds none of that kind.
 */
async function otherKind(ctx: CheckContext, kind: NonNullable<RequestVariant['credential']>, skipped: string[]): Promise<string | undefined> {
  if (kind === 'client-secret') {
    const secret = ctx.target.oauth?.clientSecret;
    if (!secret) skipped.push(`the client secret (oauth.clientSecret is not in ${ctx.target.source})`);
    // One that no bearer token could be (RFC 6750 § 2.1, b64token) makes a malformed header: AUTH-MALFORMED's to judge.
    else if (!B64TOKEN.test(secret)) skipped.push("the client secret (it is not of a bearer token's syntax, RFC 6750 § 2.1: the header would be malformed)");
    return secret && B64TOKEN.test(secret) ? secret : undefined;
  }
  if (kind === 'refresh-token') {
    const refresh = refreshTokenOf(ctx.run, 'full');
    if (!refresh) skipped.push('a refresh token (the run minted none for tokens.full)');
    return refresh;
  }
  try {
    return (await codeForTokenEndpoint(ctx)).code;
  } catch (err) {
    // No code to present: its own checks judge why (the sign-in page's, the token endpoint's).
    if (!(err instanceof NotRun) && !(err instanceof ConformanceFailure)) throw err;
    skipped.push(`a code (${err.message.split('\n')[0]})`);
    return undefined;
  }
}

/** The requests a variant stands for (the near-miss forms, the run's tokens, a credential of another kind). */
async function requestsOf(ctx: CheckContext, route: Route, v: RequestVariant, skipped: string[]): Promise<Request[]> {
  const options = variantOptions(ctx, route, v);
  if (v.credential) {
    const value = await otherKind(ctx, v.credential, skipped);
    if (value === undefined) return [];
    ctx.redactor.add(value);
    return [
      { options: { ...options, token: undefined, authorization: `Bearer ${value}`, credential: v.credential }, what: `${v.credential} as the bearer token` },
    ];
  }
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

export async function errorCase(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  if (route.method !== 'GET') ctx.requireWrites();
  const variants = (ctx.param<RequestVariant[]>('variants') ?? [ctx.param<RequestVariant>('request') ?? {}]).filter(
    (v) => (!v.ifQuery || route.query.includes(v.ifQuery)) && (!v.ifRoute || v.ifRoute === route.route) && (!v.ifMethod || v.ifMethod === route.method),
  );
  const expected = { ...ctx.param<ErrorExpectation>('expect') };
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
  const requests: Request[] = [];
  for (const v of variants) requests.push(...(await requestsOf(ctx, route, v, skipped)));
  if (requests.length === 0) throw new NotRun(`no credential to present: ${skipped.join('; ')}`);
  if (skipped.length) ctx.warn(`not presented: ${skipped.join('; ')}`);
  await judgeEach(
    route,
    requests,
    (r) => ctx.call(route, r.options),
    (res, r) => expectError(res, { ...expected, ...(r.what ? { why: r.what } : {}) }),
  );
}
