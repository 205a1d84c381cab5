// The generic documented-error check: send the route one request variant described in the catalogue
// (an unknown or another user's id, a credential, a query value) and expect the documented answer.
import {
  type CallOptions,
  type CheckContext,
  type DataKey,
  type ErrorExpectation,
  expandDeep,
  expectError,
  judgeEach,
  NotApplicable,
  resourceParam,
  type Route,
  type TokenKey,
  unknownIdLike,
} from '../check-api';

export interface RequestVariant {
  /** unknown | beyond-32-bits | other | unknown-device | malformed-device: replaces the route's resource id. */
  id?: 'unknown' | 'beyond-32-bits' | 'other' | 'unknown-device' | 'malformed-device';
  /**
   * "none" sends no Authorization header; any other string is sent as the raw header, `@token` in it
   * replaced by the primary user's valid token (a valid token under another scheme, or none).
   */
  auth?: string;
  /** A token key; "@scope" is the scope under test, "@routeScope" the route's first scope. */
  token?: string;
  query?: Record<string, string>;
  /** Sent only to routes taking this query parameter. */
  ifQuery?: string;
}

/** A device id no serial number looks like: spaces and punctuation. */
const MALFORMED_DEVICE_ID = 'not a device id!';

/** An id past 32 bits (2^33 + 1) and within 53 (a JSON number, a 64-bit integer): no resource of the run has it. */
const BEYOND_32_BITS_ID = String(2 ** 33 + 1);

const OTHER: Record<string, DataKey> = { userId: 'otherUserId', carId: 'otherCarId', tripId: 'otherTripId' };

function variantOptions(ctx: CheckContext, route: Route, v: RequestVariant): CallOptions {
  const options: CallOptions = { query: v.query ? expandDeep(v.query, new Date(ctx.now())) : undefined };
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
  if (v.auth !== undefined) options.authorization = v.auth === 'none' ? null : v.auth.replace('@token', () => ctx.token('full'));
  if (v.token) {
    const scope = v.token.includes('@routeScope') ? route.scopes[0] : ctx.scope;
    options.token = v.token.replace('@routeScope', scope ?? '').replace('@scope', scope ?? '') as TokenKey;
  }
  return options;
}

export async function errorCase(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  if (route.method !== 'GET') ctx.requireWrites();
  const variants = (ctx.param<RequestVariant[]>('variants') ?? [ctx.param<RequestVariant>('request') ?? {}]).filter(
    (v) => !v.ifQuery || route.query.includes(v.ifQuery),
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
  await judgeEach(
    route,
    variants,
    (variant) => ctx.call(route, variantOptions(ctx, route, variant)),
    (res) => expectError(res, expected),
  );
}
