// The answers docs/openapi.yaml documents for a route besides its success, read from the catalogue:
// each requirement that provokes an error there (error-case's variants and expectation, a malformed id,
// a check's `expect` or `provokes`), the route's documented no-data answer and its other documented
// answers (routes.yaml `errors`: the token endpoint's legacy body, the sign-in page's HTML 404). Each
// comes with the request that provokes it on the embedded reference, whose real answer is its example
// (scripts/openapi-reference.ts); the success's request too.
import { resourceParam, type Catalogue, type Requirement, type Route, type RouteError } from '../src/catalogue/catalogue';
import { expandDeep, rawBody, unknownIdLike } from '../src/catalogue/templates';
import type { RequestVariant } from '../src/checks/error-case';
import { EXAMPLE_IDS, EXAMPLES_AT, type Credential, type ExampleRequest } from './openapi-reference';
import { NEAR_MISS_WORDS } from '../src/check-api/near-miss';

/** The body of a documented error: the spec's array, the legacy object, or an HTML page. */
export type ErrorBody =
  | {
      kind: 'errorArray';
      /** The types any of which will do; empty when no document names one. */
      types: string[];
      message?: string;
      /** What the documents require of the tip, in words. */
      tip: string;
    }
  | { kind: 'legacy'; message?: string }
  | { kind: 'html' };

export interface DocumentedAnswer {
  /** The response keys it may come with ("404", "4XX"); its example sits under the one the reference answers. */
  statuses: string[];
  /** The example's key: the requirement id (and scope), or `noData`. */
  key: string;
  body: ErrorBody;
  summary: string;
  description: string;
  /** The request that provokes it on the reference (its example), when the reference can be made to answer it. */
  request?: ExampleRequest;
}

/** A car creation body within every bound (v3-profile.md § Query parameters, car creation body): the examples' car. */
const CREATION_BODY = { make: 'Renault', model: 'Clio', name: 'Family car', year: 2019, numberPlate: 'AB-123-CD', timezone: 'Europe/Paris' };

/** The examples of the documented request bodies, by contract: what the success examples were answered to. */
export const REQUEST_BODY_EXAMPLES: Record<string, Record<string, unknown>> = {
  carCreationBody: CREATION_BODY,
  tokenRequest: { grant_type: 'authorization_code', code: '@code-with-redirect', redirect_uri: EXAMPLE_IDS.redirectUri },
};

/**
 * The value the success examples give each query parameter they send: a list limited to two items
 * where the route takes a limit, the sign-in page's parameters (routes.yaml queryParameters). The
 * others are left out: the route's defaults.
 */
const EXAMPLE_QUERY: Record<string, string> = {
  limit: '2',
  client_id: EXAMPLE_IDS.clientId,
  redirect_uri: EXAMPLE_IDS.redirectUri,
  scope: 'users_read cars_read',
  state: 'af0ifjsldkj',
};

/** A device id no serial number looks like, and an id past 32 bits: as the error-case check sends them (src/checks/error-case.ts). */
const MALFORMED_DEVICE_ID = 'not a device id!';
const BEYOND_32_BITS_ID = String(2 ** 33 + 1);
/** A range of 20 days, a year ago: no car of the reference has trips there. */
const NO_DATA_RANGE = { begin: '@now-400d', end: '@now-380d' };
/** The reference's conforming variant that answers 404 "Statistics not found" there (its default answers 0: both conform). */
const STATS_404_VARIANT = 'stats-no-data-404';
/** The reference's conforming variant that refuses a car text holding a control character (its default keeps it: both conform). */
const CONTROLS_REFUSED_VARIANT = 'car-text-controls-refused';
/** A pin no device of the reference has, of the right form. */
const WRONG_PIN = '000000';

const OTHER: Record<string, string> = { userId: EXAMPLE_IDS.otherUserId, carId: EXAMPLE_IDS.otherCarId, tripId: EXAMPLE_IDS.otherTripId };
const now = new Date(EXAMPLES_AT);

/** The ids of a route's request: the primary user's; the device and car (or pin) its association needs. */
function routeIds(route: Route): Record<string, string> {
  const device = 'pin' in route.fixedQuery ? EXAMPLE_IDS.deviceForPin : EXAMPLE_IDS.deviceForCar;
  return {
    userId: EXAMPLE_IDS.userId,
    carId: 'carId' in route.fixedQuery ? EXAMPLE_IDS.freeCarId : EXAMPLE_IDS.carId,
    tripId: EXAMPLE_IDS.tripId,
    deviceId: device.id,
    pin: device.pin,
  };
}

/** The route's request with its ids (some replaced), by the primary user unless said otherwise; a valid body where it takes one. */
function request(route: Route, ids: Record<string, string> = {}, more: Partial<ExampleRequest> = {}): ExampleRequest {
  const values = { ...routeIds(route), ...ids };
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name]));
  const fixed = Object.fromEntries(Object.entries(route.fixedQuery).map(([k, v]) => [k, v.replace(/\{(\w+)\}/g, (_m, name: string) => values[name])]));
  const credential: Credential = route.clientAuth ? { client: 'full' } : route.public ? 'none' : { token: 'full' };
  const body = route.body ? REQUEST_BODY_EXAMPLES[route.body.contract] : undefined;
  const isForm = route.body?.contentType === 'application/x-www-form-urlencoded';
  return {
    method: route.method,
    path,
    credential,
    ...(body ? (isForm ? { form: body as Record<string, string> } : { json: body }) : {}),
    ...more,
    ...(Object.keys(fixed).length || more.query ? { query: { ...fixed, ...more.query } } : {}),
  };
}

/** The request of the route's success example: its query parameters as EXAMPLE_QUERY gives them. */
export function successRequest(route: Route): ExampleRequest {
  const query = Object.fromEntries(route.query.filter((n) => n in EXAMPLE_QUERY).map((n) => [n, EXAMPLE_QUERY[n]]));
  return request(route, {}, Object.keys(query).length ? { query } : {});
}

/**
 * A forged token the example shows (the reference's tokens are opaque: none of its own can be forged): an
 * unsecured JWT (alg "none", no signature) claiming the primary user and every scope.
 */
const FORGED_EXAMPLE = [
  { alg: 'none', typ: 'JWT' },
  { sub: EXAMPLE_IDS.userId, scope: 'users_read cars_read' },
]
  .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
  .join('.')
  .concat('.');

function variantRequest(route: Route, v: RequestVariant, scope: string | undefined): ExampleRequest {
  const ids: Record<string, string> = {};
  const param = () => resourceParam(route);
  if (v.id === 'unknown-device') ids.deviceId = unknownIdLike(routeIds(route).deviceId);
  else if (v.id === 'malformed-device') ids.deviceId = MALFORMED_DEVICE_ID;
  else if (v.id === 'unknown') ids[param()] = unknownIdLike(routeIds(route)[param()]);
  else if (v.id === 'beyond-32-bits') ids[param()] = BEYOND_32_BITS_ID;
  else if (v.id === 'other') ids[param()] = OTHER[param()];
  const tokenKey = v.token?.replace('@routeScope', route.scopes[0]).replace('@scope', scope ?? '');
  const nearMiss = v.nearMiss?.[0];
  const otherKind = v.credential && { 'refresh-token': '@refresh', code: '@code', 'client-secret': '@client-secret' }[v.credential];
  const credential: Credential = otherKind
    ? { header: `Bearer ${otherKind}` }
    : v.forged
      ? { header: `Bearer ${FORGED_EXAMPLE}` }
      : v.auth !== undefined
        ? v.auth === 'none'
          ? 'none'
          : { header: v.auth }
        : { token: tokenKey ?? 'full', ...(nearMiss ? { nearMiss } : {}) };
  return request(route, ids, { credential, ...(v.query ? { query: expandDeep(v.query, now) } : {}) });
}

// ---- the requests of the checks that provoke their errors in code ---------------------------------

type Recipe = (route: Route, req: Requirement) => ExampleRequest | undefined;

/** Associates a device with a car, by the primary user: the step before a conflict. */
const associateCar = (deviceId: string, carId: string): ExampleRequest => ({
  method: 'POST',
  path: `/devices/${encodeURIComponent(deviceId)}/associate`,
  query: { carId },
  credential: { token: 'full' },
});
/** Associates a device with the primary user by its pin. */
const pinAssociation = (deviceId: string, pin: string): ExampleRequest => ({
  method: 'POST',
  path: `/devices/${encodeURIComponent(deviceId)}/associate`,
  query: { pin },
  credential: { token: 'full' },
});
const createCar: ExampleRequest = { method: 'POST', path: `/users/${EXAMPLE_IDS.userId}/cars`, json: CREATION_BODY, credential: { token: 'full' } };
const pinAttempt = (route: Route, pin: string) => request(route, { deviceId: EXAMPLE_IDS.lockableDevice.id, pin });
const tokenRequest = (route: Route, form: Record<string, string>, more: Partial<ExampleRequest> = {}) => request(route, {}, { form, ...more });
const CODE_GRANT = { grant_type: 'authorization_code', code: '@code' };
const REFRESH_GRANT = { grant_type: 'refresh_token', refresh_token: '@refresh' };

/** How each check that provokes an error in its own code (not error-case) does it, on the reference's data: by check name. */
const RECIPES: Record<string, Recipe> = {
  'malformed-id': (route, req) => request(route, { [resourceParam(route)]: (req.params.values as string[])[0] }),
  'stats-no-data': (route) => request(route, {}, { query: expandDeep(NO_DATA_RANGE, now), variant: STATS_404_VARIANT }),
  'created-car-forbidden': (route) => ({ ...request(route, { carId: EXAMPLE_IDS.createdCarId }, { credential: { token: 'otherUser' } }), before: [createCar] }),
  'car-create-invalid': (route, req) => {
    const [first] = Object.values(req.params.bodies as Record<string, unknown>);
    const raw = rawBody(first);
    return request(route, {}, raw !== undefined ? { json: undefined, raw: { contentType: 'application/json', text: raw } } : { json: expandDeep(first, now) });
  },
  // Control characters a text need not hold (CAR-CREATE-TEXT-CONTROLS): the reference keeps them, its conforming variant refuses them.
  'car-create-texts': (route, req) =>
    req.params.expect
      ? request(route, {}, { json: expandDeep(Object.values(req.params.bodies as Record<string, unknown>)[0], now), variant: CONTROLS_REFUSED_VARIANT })
      : undefined,
  'core-scope-missing': () => undefined, // per scope: scopedRequest
  'device-car-associate-again': () => ({
    ...associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.freeCarId),
    before: [associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.freeCarId)],
  }),
  'device-car-associate-race': (route) => RECIPES['device-car-associate-again'](route, undefined as never),
  'device-associated-other-car': () => ({
    ...associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.spareCarId),
    before: [associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.freeCarId)],
  }),
  'device-dissociate-again': (route) => request(route, { deviceId: EXAMPLE_IDS.deviceForCar.id }),
  'device-dissociate-race': (route) => request(route, { deviceId: EXAMPLE_IDS.deviceForCar.id }),
  'device-associated-by-pin': (route) => ({ ...request(route), before: [associateCar(EXAMPLE_IDS.deviceForPin.id, EXAMPLE_IDS.freeCarId)] }),
  'device-forbidden': (route) => ({
    ...request(route, { deviceId: EXAMPLE_IDS.deviceForCar.id }, { credential: { token: 'otherUser' } }),
    before: [associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.freeCarId)],
  }),
  'device-cross-user': (route) =>
    route.path.endsWith('/dissociate')
      ? request(route, { deviceId: EXAMPLE_IDS.otherDeviceId })
      : associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.otherFreeCarId),
  // What the primary user's write left (a device on their car, a device linked to them by its pin), tried by the second user.
  'device-state-cross-user': (route, req) => {
    const onCar = req.params.left === 'device-on-car';
    const left = onCar ? EXAMPLE_IDS.deviceForCar : EXAMPLE_IDS.deviceForPin;
    const before = onCar ? associateCar(left.id, EXAMPLE_IDS.freeCarId) : pinAssociation(left.id, left.pin);
    const byOther = { token: 'otherUser' };
    const attempt: ExampleRequest = route.path.endsWith('/dissociate')
      ? request(route, { deviceId: left.id }, { credential: byOther })
      : route.query.includes('pin')
        ? { ...pinAssociation(left.id, left.pin), credential: byOther }
        : { ...associateCar(left.id, EXAMPLE_IDS.otherFreeCarId), credential: byOther };
    return { ...attempt, before: [before] };
  },
  // A device id in another case than its serial names no device.
  'device-id-exact': (route) => ({
    ...request(route, { deviceId: EXAMPLE_IDS.deviceForCar.id.toLowerCase() }),
    before: [associateCar(EXAMPLE_IDS.deviceForCar.id, EXAMPLE_IDS.freeCarId)],
  }),
  'device-pin-wrong': (route) => pinAttempt(route, WRONG_PIN),
  'device-pin-lockout': (route) => ({
    ...pinAttempt(route, EXAMPLE_IDS.lockableDevice.pin),
    before: [1, 2, 3].map(() => pinAttempt(route, WRONG_PIN)),
  }),
  'device-pin-malformed': (route) => pinAttempt(route, 'abc'),
  'device-bad-car': () => associateCar(EXAMPLE_IDS.deviceForCar.id, 'abc'),
  'core-device-scope-restricted': (route) => request(route, {}, { credential: { token: 'restrictedApp' } }),
  'token-code-single-use': (route) => ({ ...tokenRequest(route, CODE_GRANT), before: [tokenRequest(route, CODE_GRANT)] }),
  'token-bad-client': (route) => tokenRequest(route, CODE_GRANT, { credential: { client: 'wrong-secret' } }),
  'token-no-client': (route) => tokenRequest(route, CODE_GRANT, { credential: 'none' }),
  'token-missing-param': (route) => tokenRequest(route, { grant_type: 'authorization_code' }),
  'token-invalid-code': (route) => tokenRequest(route, { grant_type: 'authorization_code', code: 'vds-conformance-code-never-issued' }),
  'token-invalid-refresh': (route) => tokenRequest(route, { grant_type: 'refresh_token', refresh_token: 'vds-conformance-refresh-never-issued' }),
  'token-code-other-app': (route) => tokenRequest(route, CODE_GRANT, { credential: { client: 'restricted' } }),
  'token-code-redirect-uri': (route) =>
    tokenRequest(route, { grant_type: 'authorization_code', code: '@code-with-redirect', redirect_uri: 'https://attacker.example/callback' }),
  'token-refresh-other-app': (route) => tokenRequest(route, REFRESH_GRANT, { credential: { client: 'restricted' } }),
  'signin-rejects': (route, req) => {
    const page = successRequest(route);
    const refused: Record<string, string> =
      req.params.variant === 'unknown-client' ? { client_id: 'vds-conformance-unknown-client' } : { redirect_uri: 'https://attacker.example/callback' };
    return { ...page, query: { ...page.query, ...refused } };
  },
};

// ---- the documented answers -------------------------------------------------------------------

interface ErrorExpect {
  status: number | number[] | string;
  type?: string | string[];
  message?: string;
  tip?: string;
  scope?: string;
}

/** OpenAPI response keys: 404 -> "404", [400, 404] -> both, "4xx" -> "4XX". */
const statusKeys = (status: ErrorExpect['status']): string[] => (Array.isArray(status) ? status : [status]).map((s) => String(s).toUpperCase());

/** What the documents require of a tip, in words: the spec only that it is a string, the profile that it is non-empty (and names a missing scope). */
function tipWords(req: Requirement, scope: string | undefined): string {
  const any = req.class === 'core' ? 'any text' : 'any non-empty text';
  return scope ? `${any} naming the scope ${scope}` : any;
}

function describeVariant(v: RequestVariant, route: Route, c: Catalogue, scope: string | undefined): string {
  const resource = () => c.pathParams[resourceParam(route)].resource;
  const parts: string[] = [];
  if (v.id === 'unknown') parts.push(`a ${resource()} id that does not exist`);
  if (v.id === 'beyond-32-bits') parts.push(`a ${resource()} id past 32 bits`);
  if (v.id === 'other') parts.push(`another user's ${resource()}`);
  if (v.id === 'unknown-device') parts.push('a well-formed device id that does not exist');
  if (v.id === 'malformed-device') parts.push('a malformed device id');
  if (v.auth === 'none') parts.push('no Authorization header');
  else if (v.auth !== undefined) parts.push(`Authorization: ${v.auth.replace('@token', '<a valid access token>')}`);
  if (v.token) parts.push(`token ${v.token.replace('@routeScope', route.scopes[0]).replace('@scope', scope ?? '')} (a target file token key)`);
  if (v.nearMiss) parts.push(`the ${v.token === '@others' ? 'token' : 'full token'} nearly right (${v.nearMiss.map((f) => NEAR_MISS_WORDS[f]).join('; ')})`);
  if (v.credential) parts.push(`Authorization: Bearer <the ${v.credential.replace('-', ' ')}>`);
  if (v.forged) parts.push(`the ${v.token === '@others' ? 'token' : 'full token'} forged where it is a JWT (${v.forged.join(', ')})`);
  for (const [k, val] of Object.entries(v.headers ?? {})) parts.push(`${k}: ${val}`);
  if (v.bodyMembers) parts.push(`JSON members ${JSON.stringify(v.bodyMembers)}`);
  if (v.form) parts.push(`form body ${new URLSearchParams(v.form).toString().replace(/%40/g, '@')}`);
  if (v.query)
    parts.push(
      `?${Object.entries(v.query)
        .map(([k, val]) => `${k}=${val}`)
        .join('&')}`,
    );
  return parts.join(', ') || 'the request of the success';
}

const envNote = (req: Requirement) => (req.env.length === 1 ? ` (${req.env[0]} only)` : '');

function errorCaseAnswers(req: Requirement, route: Route, c: Catalogue): DocumentedAnswer[] {
  const variants = ((req.params.variants as RequestVariant[] | undefined) ?? [(req.params.request as RequestVariant | undefined) ?? {}]).filter(
    (v) => !v.ifQuery || route.query.includes(v.ifQuery),
  );
  if (variants.length === 0) return [];
  const e = req.params.expect as ErrorExpect;
  const message = e.message === '@notFound' ? c.pathParams[resourceParam(route)].notFound : e.message;
  const scopes: Array<string | undefined> = req.per === 'scope' ? route.scopes : [undefined];
  return scopes.map((scope) => {
    const named = e.tip === 'names-scope' ? (e.scope ?? (variants[0].token?.includes('@routeScope') ? route.scopes[0] : scope)) : undefined;
    const types = e.type === undefined ? [] : Array.isArray(e.type) ? e.type : [e.type];
    return {
      statuses: statusKeys(e.status),
      key: scope ? `${req.id}.${scope}` : req.id,
      body: { kind: 'errorArray', types, message, tip: tipWords(req, named) },
      summary: `${req.id}${envNote(req)}`,
      description: `${req.title}. Request: ${variants.map((v) => describeVariant(v, route, c, scope)).join(' | ')}.${types.length > 1 ? ` Type: ${types.join(' or ')}.` : ''} ${req.cite}.`,
      request: variantRequest(route, variants[0], scope),
    };
  });
}

/**
 * The answers of a check that provokes its error in its own code: its `expect`, or the statuses it
 * `provokes` with the body routes.yaml `errors` gives that status on the route (the token endpoint's
 * legacy 403, the sign-in page's HTML 404), else the error array.
 */
function checkAnswers(req: Requirement, route: Route, recipe: Recipe | undefined): DocumentedAnswer[] {
  const e = req.params.expect as ErrorExpect | undefined;
  const provokes = req.params.provokes as number[] | undefined;
  const statuses = e ? statusKeys(e.status) : provokes?.map(String);
  if (!statuses) return [];
  const documented = e ? undefined : route.errors?.find((x) => statuses.includes(String(x.status)));
  const types = e?.type === undefined ? [] : Array.isArray(e.type) ? e.type : [e.type];
  const scopes: Array<string | undefined> = req.per === 'scope' ? route.scopes : [undefined];
  return scopes.map((scope) => {
    const example = scope ? variantRequest(route, { token: 'withoutScope.@scope' }, scope) : recipe?.(route, req);
    return {
      statuses,
      key: scope ? `${req.id}.${scope}` : req.id,
      body: documented ? errorBodyOf(documented) : { kind: 'errorArray', types, message: e?.message, tip: tipWords(req, scope) },
      summary: `${req.id}${envNote(req)}`,
      description: `${req.title}.${documented ? ` Documented: ${documented.when} (${documented.cite}).` : ''} ${req.cite}.`,
      ...(example ? { request: example } : {}),
    };
  });
}

export function errorBodyOf(e: RouteError): ErrorBody {
  if (e.contentTypes?.includes('text/html')) return { kind: 'html' };
  if (e.contract === 'legacyError') return { kind: 'legacy', message: e.message };
  return { kind: 'errorArray', types: e.type ? [e.type] : [], message: e.message, tip: 'any non-empty text' };
}

/** Every documented answer of the route but its success, in catalogue order. */
export function documentedAnswers(route: Route, c: Catalogue): DocumentedAnswer[] {
  const answers: DocumentedAnswer[] = [];
  for (const req of c.requirements.filter((r) => r.routes.includes(route.route))) {
    if (req.check === 'error-case') answers.push(...errorCaseAnswers(req, route, c));
    else if (req.check === 'malformed-id') {
      answers.push({
        statuses: statusKeys(req.params.provokes as number[]),
        key: req.id,
        body: { kind: 'errorArray', types: ['PARAMETERS_ERROR'], tip: tipWords(req, undefined) },
        summary: req.id,
        description: `${req.title}. Request: ids such as ${(req.params.values as string[]).slice(0, 3).join(', ')}. ${req.cite}.`,
        request: RECIPES['malformed-id'](route, req),
      });
    } else answers.push(...checkAnswers(req, route, RECIPES[req.check]));
  }
  if (route.noData) {
    answers.push({
      statuses: [String(route.noData.status)],
      key: 'noData',
      body: { kind: 'errorArray', types: ['PARAMETERS_ERROR'], message: route.noData.message, tip: 'any non-empty text' },
      summary: 'no data in the range',
      description: `The answer in place of the success when the range holds no data (routes.yaml noData). ${route.cite}.`,
      request: RECIPES['stats-no-data'](route, undefined as never),
    });
  }
  // A documented error no check provokes is documented all the same, without an example.
  for (const e of route.errors ?? []) {
    if (answers.some((a) => a.statuses.includes(String(e.status)))) continue;
    answers.push({ statuses: [String(e.status)], key: `documented${e.status}`, body: errorBodyOf(e), summary: e.when, description: `${e.when} (${e.cite}).` });
  }
  return answers;
}
