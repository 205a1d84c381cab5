// Checks on one valid request to a route: status, content type, record shape; and the shape of its
// errors, what ids that are not ids give, and which credentials it accepts.
import {
  expectContentType, expectContract, expectError, expectJson, expectObjects, expectStatus, statusMatches,
} from '../../../harness/assertions';
import type { ApiResponse } from '../../../harness/api';
import { resourceParam, type Route } from '../../../harness/catalogue';
import type { CallOptions, CheckContext } from '../../../harness/check-context';
import { checkContract, describeViolations } from '../../../harness/contracts';
import { expandTemplate } from '../../../harness/templates';
import type { TokenKey } from '../../../harness/target';
import { fail, NotRun, show } from '../../../harness/outcome';

/** Warns about members neither document knows (an implementation may add fields; leaks are worth seeing). */
function warnUnknown(ctx: CheckContext, pointers: string[]): void {
  if (pointers.length) ctx.warn(`members neither document knows: ${pointers.slice(0, 10).join(', ')}${pointers.length > 10 ? ` (+${pointers.length - 10})` : ''}`);
}

/**
 * A valid request to the route. A route that may answer "no data" instead (car statistics over a
 * range without trips: v3-profile.md § Conflicts and decisions) is asked over the run's data window,
 * where it has data; when no window is known, its documented no-data answer means not run.
 */
async function callValid(ctx: CheckContext, route: Route, options: CallOptions = {}): Promise<ApiResponse> {
  const window = route.noData && ctx.run.window ? ctx.run.window : {};
  const res = await ctx.call(route, { ...options, query: { ...window, ...options.query } });
  if (route.noData && !ctx.run.window && res.status === route.noData.status) {
    expectError(res, { status: route.noData.status, type: 'PARAMETERS_ERROR', message: route.noData.message });
    throw new NotRun(`over the default range the route answered "${route.noData.message}" (documented when there is no data), and discovery found no data window to ask it over`);
  }
  return res;
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

/** Makes the route answer an error the simplest documented way, and checks the error body's shape. */
export async function errorBody(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  let res;
  if (ctx.target.env === 'cloud') {
    if (route.method !== 'GET') ctx.requireWrites();
    res = await ctx.call(route, { authorization: null });
  } else if (route.sandboxOpen) {
    const param = resourceParam(route);
    res = await ctx.call(route, { ids: { [param]: 'vds-conformance-no-such-id' } });
  } else {
    throw new NotRun('on a sandbox this route needs a token to answer at all; the error body is checked on the open routes');
  }
  if (res.status < 400) fail({ expected: 'an error (4xx) for a request without credentials or with an unknown id', actual: `status ${res.status}`, exchange: res.exchange });
  expectError(res, { status: res.status });
  if ((res.json as Array<{ message: string }>).some((e) => e.message === '')) ctx.warn('an error element has an empty message');
}

/** Ids that are not ids: a 4xx with the error array for each, never a 5xx, never a hang. */
export async function malformedId(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const param = resourceParam(route);
  const problems: string[] = [];
  for (const raw of ctx.param<string[]>('values')) {
    const value = expandTemplate(raw);
    const res = await ctx.call(route, { ids: { [param]: value } });
    const label = value.length > 30 ? `${value.slice(0, 12)}…(${value.length} chars)` : value;
    if (!statusMatches(res.status, '4xx')) {
      problems.push(`{${param}}=${label}: status ${res.status}`);
      continue;
    }
    const violations = res.json === undefined ? [] : checkContract('errorArray', res.json);
    if (res.json === undefined) problems.push(`{${param}}=${label}: ${res.status} but ${res.jsonError}`);
    else if (violations.length) problems.push(`{${param}}=${label}: ${res.status} but ${describeViolations(violations, 2).trim()}`);
  }
  if (problems.length) {
    fail({ expected: 'a 4xx status with the error array for every malformed id', actual: problems.join('\n          ') });
  }
}

/** In a sandbox the read routes by id answer without any Authorization header. */
export async function sandboxOpen(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const res = await callValid(ctx, route, { authorization: null });
  expectStatus(res, route.success.status, 'the sandbox serves read routes by id without Authorization');
  expectJson(res);
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
  for (const scope of unneeded) {
    const res = await callValid(ctx, route, { token: `withoutScope.${scope}` as TokenKey });
    if (res.status !== route.success.status) {
      const message = Array.isArray(res.json) ? (res.json[0] as { message?: unknown })?.message : undefined;
      refused.push(`without ${scope}: status ${res.status}${message ? ` ${show(message)}` : ''}`);
    }
  }
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
  if (ctx.target.env === 'sandbox' && !route.sandboxOpen) {
    throw new NotRun('on a sandbox this route needs a token to answer at all; errors are checked on the open routes');
  }
  if (route.method !== 'GET') ctx.requireWrites();
  const res = ctx.target.env === 'cloud'
    ? await ctx.call(route, { authorization: null })
    : await ctx.call(route, { ids: { [resourceParam(route)]: 'vds-conformance-no-such-id' } });
  if (res.status < 400) fail({ expected: 'an error (4xx) to read its content type', actual: `status ${res.status}`, exchange: res.exchange });
  expectContentType(res, ['application/json']);
}

/** Each car of the user, not only the one with data: edge cases (no device, no data yet) included. */
export async function contractEachCar(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const listRoute = ctx.catalogue.route('GET /users/{userId}/cars');
  const list = await ctx.call(listRoute);
  expectStatus(list, 200, 'listing the user\'s cars');
  const cars = expectObjects(list, 'cars');
  if (cars.length === 0) throw new NotRun('the user has no car');
  for (const car of cars.slice(0, 10)) {
    const res = await ctx.call(route, { ids: { carId: String(car.id) } });
    expectStatus(res, route.success.status, `car ${show(car.id)}`);
    warnUnknown(ctx, expectContract(res, route.success.contract!));
  }
}
