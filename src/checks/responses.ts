// Checks on one valid request to a route: status, content type, record shape; and the shape of its
// errors, what ids that are not ids give, and which credentials it accepts.
import {
  errorProvokers,
  errorStatusesOf,
  type ApiResponse,
  type CallOptions,
  type CheckContext,
  checkContract,
  ConformanceFailure,
  describeViolations,
  type ErrorExpectation,
  expandTemplate,
  expectContentType,
  expectContract,
  expectError,
  expectJson,
  expectObjects,
  expectStatus,
  fail,
  judgeEach,
  type FailureDetails,
  NotApplicable,
  NotRun,
  resourceParam,
  type Route,
  show,
  statusMatches,
  together,
  type TokenKey,
  unknownIdLike,
  unreadable,
  OTHER_ID,
} from '../check-api';

/** Warns about members neither document knows (an implementation may add fields; leaks are worth seeing). */
function warnUnknown(ctx: CheckContext, pointers: string[]): void {
  if (pointers.length)
    ctx.warn(`members neither document knows: ${pointers.slice(0, 10).join(', ')}${pointers.length > 10 ? ` (+${pointers.length - 10})` : ''}`);
}

/** The query of a valid request (callValid's): the run's data window on a route that may answer "no data" without it. */
export function validQuery(ctx: CheckContext, route: Route): Record<string, string> {
  return route.noData && ctx.run.window ? ctx.run.window : {};
}

/**
 * A valid request to the route. A route that may answer "no data" instead (car statistics over a
 * range without trips: v3-profile.md § Conflicts and decisions) is asked over the run's data window,
 * where it has data; when no window is known, its documented no-data answer means not run.
 */
export async function callValid(ctx: CheckContext, route: Route, options: CallOptions = {}): Promise<ApiResponse> {
  const window = validQuery(ctx, route);
  const res = await ctx.call(route, { ...options, query: { ...window, ...options.query } });
  if (route.noData && !ctx.run.window && res.status === route.noData.status) {
    expectError(res, { status: route.noData.status, type: 'PARAMETERS_ERROR', message: route.noData.message });
    throw new NotRun(
      `over the default range the route answered "${route.noData.message}" (documented when there is no data), and discovery found no data window to ask it over`,
    );
  }
  return res;
}

/**
 * The route exists and serves its purpose (vehicle-data-service-v3.md § Endpoints): a valid request
 * answers a success with a JSON body. The spec shows no status code: any 2xx (the exact one is the
 * profile's, RESP-STATUS).
 */
export async function routeAnswers(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  let res = await callValid(ctx, route);
  // The spec shows no query parameter: a route the profile gives parameters to may ask for them (the
  // profile's defaults are the profile's). A refused request without them is asked again over the
  // run's data window (the profile's begin and end, as a means); refused again, the spec cannot be judged here.
  const refused = (r: ApiResponse) => (r.status === 400 || r.status === 416) && route.query.length > 0;
  if (refused(res) && route.query.includes('begin') && ctx.run.window) res = await ctx.call(route, { query: ctx.run.window });
  ctx.expectProfileParametersTaken(res, route);
  if (refused(res)) throw unreadable(`${route.route} refused a request without the profile's query parameters with ${res.status}`, 'QUERY-RANGE-DEFAULT');
  expectStatus(res, '2xx', `${route.route} serves its purpose: ${route.purpose}`);
  expectJson(res, 'a JSON body (the service is an HTTP API for data)');
}

/**
 * The spec's one detailed answer: GET /users/{userId}/cars is a JSON array of car records, each with
 * the car record's fields. A car identifier names one car: no id twice in the list. An empty list
 * holds no record to judge (discovery then finds no car either): not run.
 */
export async function carListRecords(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const res = await callValid(ctx, route);
  expectStatus(res, '2xx', "the list of the user's cars");
  warnUnknown(ctx, expectContract(res, 'car[]'));
  const cars = res.json as Array<{ id: unknown }>;
  if (cars.length === 0) throw new NotRun('the user has no car: the list holds no car record to check (give a user with cars)');
  const seen = new Map<string, number>();
  cars.forEach((car, i) => {
    const before = seen.get(String(car.id));
    if (before !== undefined) {
      fail({
        expected: 'each car once: a car identifier names one car',
        actual: `cars ${before} and ${i} both have id ${show(car.id)}`,
        pointer: `/${i}/id`,
        exchange: res.exchange,
      });
    }
    seen.set(String(car.id), i);
  });
}

export async function responseStatus(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  expectStatus(await callValid(ctx, route), route.success.status, 'the documented success status');
}

export async function responseContentType(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const res = await callValid(ctx, route);
  expectStatus(res, route.success.status, 'the documented success status, to read its content type');
  expectContentType(res, route.success.contentTypes ?? ['application/json']);
}

export async function responseContract(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const contract = ctx.param<string>('contract') ?? route.success.contract;
  if (!contract) throw new Error(`${route.route} has no contract in routes.yaml`);
  const res = await callValid(ctx, route);
  expectStatus(res, route.success.status, `the documented success status with a ${contract} body`);
  warnUnknown(ctx, expectContract(res, contract));
}

/** Advisory (neither document states an order): warns when history items are not in date order. */
export async function dateOrder(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const query = route.query.includes('begin') ? ctx.window() : {};
  const res = await ctx.call(route, { query });
  expectStatus(res, route.success.status);
  const items = expectObjects(res, 'items');
  const times = items.map((i) => Date.parse(String(i[route.dates[0]])));
  const ascending = times.every((t, i) => i === 0 || t >= times[i - 1]);
  const descending = times.every((t, i) => i === 0 || t <= times[i - 1]);
  if (!ascending && !descending) ctx.warn(`${items.length} items are in no date order (by ${route.dates[0]})`);
}

/** One way to make a route answer an error: what it sends, and when it applies. */
interface Provocation {
  label: string;
  options: (ctx: CheckContext, route: Route) => CallOptions | undefined;
}

/**
 * The errors a route can be made to answer without changing anything: each that applies to the route
 * and the target is sent (its inputs missing: skipped). The cloud's credentials errors need no token.
 */
const PROVOCATIONS: Provocation[] = [
  { label: 'no Authorization', options: (ctx) => (ctx.target.env === 'cloud' ? { authorization: null } : undefined) },
  { label: 'a token without scopes', options: (ctx) => (ctx.target.env === 'cloud' && ctx.run.tokens.noScopes ? { token: 'noScopes' } : undefined) },
  {
    label: 'an unknown id',
    options: (ctx, route) => {
      const param = route.pathParams.find((p) => p !== 'deviceId');
      return param && route.group !== 'devices' ? { ids: { [param]: unknownIdLike(ctx.idFor(route, param)) } } : undefined;
    },
  },
  {
    label: "another user's id",
    options: (ctx, route) => {
      const param = route.group === 'devices' ? undefined : route.pathParams.find((p) => OTHER_ID[p]);
      return param && ctx.target.env === 'cloud' && ctx.run.data[OTHER_ID[param]] ? { ids: { [param]: ctx.run.data[OTHER_ID[param]]! } } : undefined;
    },
  },
  { label: 'limit=-1', options: (_ctx, route) => (route.query.includes('limit') ? { query: { limit: '-1' } } : undefined) },
  {
    label: 'an unknown device',
    options: (ctx, route) => (route.pathParams.includes('deviceId') ? { ids: { deviceId: unknownIdLike(ctx.idFor(route, 'deviceId')) } } : undefined),
  },
];

/**
 * Every error the route answers is the spec's error body (vehicle-data-service-v3.md § Errors: "an
 * error response body is a JSON array of objects" with string type, message and tip, and one of the
 * three types). The route is made to answer each kind of error it can without changing anything,
 * and then every error answer the group's other checks received on the route is judged too (a 409 of
 * a device check, a 416 of a range check, a 400 of any kind: the requests were sent anyway). Whether
 * each should have been an error, and its exact status and message, are other requirements'.
 */
export async function errorBody(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  if (route.method !== 'GET') ctx.requireWrites();
  if (ctx.target.env === 'sandbox' && !route.sandboxOpen) ctx.token('full'); // not applicable to a tokenless sandbox
  let errors = 0;
  const judged = new Set<number>();
  const skipped: string[] = [];
  const provoked: Array<{ label: string; options: CallOptions }> = [];
  for (const p of PROVOCATIONS) {
    try {
      const options = p.options(ctx, route);
      if (options) provoked.push({ label: p.label, options });
    } catch (err) {
      if (!(err instanceof NotRun || err instanceof NotApplicable)) throw err;
      skipped.push(`${p.label} (${err.reason})`);
    }
  }
  // Sent together (none changes anything, none needs another's answer), judged in turn.
  const answers = await together(provoked.map(({ options }) => ctx.call(route, options)));
  for (const [i, res] of answers.entries()) {
    const p = provoked[i];
    if (res.status < 400) continue;
    errors += 1;
    judged.add(res.status);
    expectError(res, { status: res.status, tip: 'any' });
    if ((res.json as Array<{ message: string }>).some((e) => e.message === '')) ctx.warn(`${p.label}: an error element has an empty message`);
  }
  const seen = ctx.errorsSeen();
  for (const { res } of seen) judged.add(res.status);
  const wrong: Array<{ by: string; details: FailureDetails }> = [];
  for (const { by, res } of seen) {
    try {
      expectError(res, { status: res.status, tip: 'any' });
    } catch (err) {
      if (!(err instanceof ConformanceFailure)) throw err;
      wrong.push({ by, details: err.details });
    }
  }
  if (wrong.length) {
    const [first] = wrong;
    const others = [...new Set(wrong.slice(1).map((w) => `${w.details.exchange?.status ?? '?'} (${w.by})`))];
    fail({
      ...first.details,
      actual:
        `the ${first.details.exchange?.status ?? ''} answered to ${first.by}: ${first.details.actual}` +
        (others.length
          ? `\n          and ${wrong.length - 1} more error answer(s) of this route: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', ...' : ''}`
          : ''),
    });
  }
  if (errors + seen.length === 0) {
    throw new NotRun(`no request made the route answer an error to judge${skipped.length ? ` (not sent: ${skipped.join('; ')})` : ''}`);
  }
  // The route's documented errors (the statuses the catalogue's requirements provoke on it) that no
  // check of this run provoked, because none that could ran (a selection without them: the checks
  // that write run only when asked for): not judged, so not passed.
  const unprovoked = errorStatusesOf(ctx.catalogue, route.route)
    .filter((status) => !judged.has(status))
    .map((status) => ({
      status,
      // Those that apply to this target and run in this route's group (a once-check of another group
      // feeds that group's judgement).
      by: errorProvokers(ctx.catalogue, route.route, status)
        .filter((r) => r.env.includes(ctx.target.env) && (r.per !== 'once' || r.group === route.group))
        .map((r) => r.id),
    }))
    .filter(({ by }) => by.length > 0 && !by.some((id) => ctx.ran(id)));
  if (unprovoked.length) {
    throw new NotRun(
      `the ${unprovoked.map((u) => u.status).join(' and ')} answers of this route were not provoked in this run: ` +
        `run ${[...new Set(unprovoked.flatMap((u) => u.by))].slice(0, 4).join(', ')} (or the whole suite) to judge their body`,
    );
  }
}

/**
 * Ids that are not ids are refused as unknown ones are (v3-profile.md § Errors: a user, car or trip
 * that does not exist is 404 PARAMETERS_ERROR; one that cannot exist may also be a 400): a 400 or 404
 * PARAMETERS_ERROR with the error array for each.
 */
export async function malformedId(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const param = resourceParam(route);
  const problems: string[] = [];
  const values = ctx.param<string[]>('values').map((raw) => expandTemplate(raw, new Date(ctx.now())));
  await judgeEach(
    route,
    values,
    (value) => ctx.call(route, { ids: { [param]: value } }),
    (res, value) => {
      const label = value.length > 30 ? `${value.slice(0, 12)}…(${value.length} chars)` : value;
      if (!statusMatches(res.status, [400, 404])) {
        problems.push(`{${param}}=${label}: status ${res.status}`);
        return;
      }
      const violations = res.json === undefined ? [] : checkContract('errorArray', res.json);
      if (res.json === undefined) problems.push(`{${param}}=${label}: ${res.status} but ${res.jsonError}`);
      else if (violations.length) problems.push(`{${param}}=${label}: ${res.status} but ${describeViolations(violations, 2).trim()}`);
      else if (!(res.json as Array<{ type: string }>).some((e) => e.type === 'PARAMETERS_ERROR')) {
        problems.push(`{${param}}=${label}: ${res.status} but type ${show((res.json as Array<{ type: string }>)[0]?.type)}, not PARAMETERS_ERROR`);
      }
    },
  );
  if (problems.length) {
    fail({ expected: '400 or 404 PARAMETERS_ERROR with the error array for every malformed id', actual: problems.join('\n          ') });
  }
}

/**
 * In a sandbox the read routes by id answer without any Authorization header: for the spec (core) a
 * success with a JSON body, for the profile (SANDBOX-OPEN) the route's documented success.
 */
export async function sandboxOpen(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const res = await callValid(ctx, route, { authorization: null });
  ctx.expectSuccess(res, route, 'the sandbox serves read routes by id without Authorization');
  expectJson(res);
}

/**
 * "A missing scope gives a 403 AUTHORIZATION_ERROR, and the tip is to add the scope to the
 * application's scopes and reconnect the user" (vehicle-data-service-v3.md § Authentication), on every
 * route and every scope it needs: a token lacking exactly that scope is refused so, with a tip that
 * names the missing scope (as the spec's own row for cars_read does; a tip naming another scope, or
 * none, points the user elsewhere). Which scopes a route needs is the profile's (§ Scopes per route):
 * a route that serves the token leaves this check not run, and SCOPE-MISSING fails instead. A refused
 * request changes nothing; a device association a route wrongly makes is undone.
 */
export async function coreScopeMissing(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const scope = ctx.scope!;
  const res = await callValid(ctx, route, { token: `withoutScope.${scope}` as TokenKey });
  if (statusMatches(res.status, '2xx')) {
    if (route.group === 'devices' && route.path.endsWith('/associate')) await undoAssociation(ctx, route);
    throw unreadable(`${route.route} served a token without ${scope}, which the profile's scope map says it needs`, 'SCOPE-MISSING');
  }
  expectError(res, { ...ctx.param<ErrorExpectation>('expect'), tip: 'names-scope', scope });
}

/** A device association a route should have refused is undone with the primary token (the device checks need it free). */
async function undoAssociation(ctx: CheckContext, route: Route): Promise<void> {
  const dissociate = ctx.catalogue.route('POST /devices/{deviceId}/dissociate');
  const device = 'pin' in route.fixedQuery ? ctx.data('freeDeviceId') : ctx.data('deviceForCarId');
  await ctx.call(dissociate, { ids: { deviceId: device } }).catch(() => undefined);
}

/** Tokens lacking only scopes the route does not need are accepted: the scope map is the documented one. */
export async function scopeNotNeeded(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const unneeded = ctx.catalogue.scopes.filter((s) => !route.scopes.includes(s));
  const missing = unneeded.filter((s) => !ctx.run.tokens[`withoutScope.${s}` as TokenKey]);
  if (missing.length) {
    throw new NotRun(`needs tokens.withoutScope.{${missing.join(',')}}: ${ctx.run.tokenNotes[`withoutScope.${missing[0]}` as TokenKey] ?? 'not available'}`);
  }
  const refused: string[] = [];
  await judgeEach(
    route,
    unneeded,
    (scope) => callValid(ctx, route, { token: `withoutScope.${scope}` as TokenKey }),
    (res, scope) => {
      if (res.status !== route.success.status) {
        const message = Array.isArray(res.json) ? (res.json[0] as { message?: unknown })?.message : undefined;
        refused.push(`without ${scope}: status ${res.status}${message ? ` ${show(message)}` : ''}`);
      }
    },
  );
  if (refused.length) {
    fail({
      expected: `status ${route.success.status} for tokens lacking only scopes the route does not need (it needs ${route.scopes.join(' + ')})`,
      actual: refused.join('; '),
    });
  }
}

/** The error the error-body check provokes must also be labelled as JSON. */
export async function errorContentType(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  if (route.method !== 'GET') ctx.requireWrites();
  if (ctx.target.env === 'sandbox' && !route.sandboxOpen) ctx.token('full'); // not applicable to a tokenless sandbox
  if (ctx.target.env !== 'cloud' && route.pathParams.length === 0)
    throw new NotRun('on a sandbox, a route without an id has no error to provoke without credentials');
  const res =
    ctx.target.env === 'cloud'
      ? await ctx.call(route, { authorization: null })
      : await ctx.call(route, { ids: { [resourceParam(route)]: 'vds-conformance-no-such-id' } });
  if (res.status < 400) throw new NotRun(`the request meant to provoke an error answered ${res.status}: no error content type to read`);
  expectContentType(res, ['application/json']);
}

/** Each car of the user, not only the one with data: edge cases (no device, no data yet) included. */
export async function contractEachCar(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const listRoute = ctx.catalogue.route('GET /users/{userId}/cars');
  const list = await ctx.call(listRoute);
  expectStatus(list, 200, "listing the user's cars");
  const cars = expectObjects(list, 'cars');
  if (cars.length === 0) throw new NotRun('the user has no car');
  for (const car of cars.slice(0, 10)) {
    const res = await ctx.call(route, { ids: { carId: String(car.id) } });
    expectStatus(res, route.success.status, `car ${show(car.id)}`);
    warnUnknown(ctx, expectContract(res, route.success.contract!));
  }
}
