// Shared caches (OWASP API1, broken object level authorization through a cache): an answer kept for
// one caller and given to another. Every protected read route is read with the primary user's token,
// and at once, on the same URL, without a token, with a token short of scopes and with the second
// user's token: each must get its own answer, as if the first had never been asked. A cache in front
// of the route that keys its answers by method and URL alone (or by the token's scopes, not its user)
// serves the first answer again to the others for as long as it keeps it.
import {
  type ApiResponse,
  type CallOptions,
  type CheckContext,
  ConformanceFailure,
  type ErrorExpectation,
  expectError,
  expectObject,
  expectObjects,
  expectStatus,
  fail,
  type FailureDetails,
  NotApplicable,
  NotRun,
  resourceParam,
  type Route,
  sameValue,
  show,
  together,
  type TokenKey,
  unreadable,
} from '../check-api';
import { callValid, validQuery } from './responses';

/** One request sent right after the primary user's success, on the same URL, and what its answer must be. */
interface Follower {
  /** Who sends it, in words (reports name it). */
  who: string;
  options: CallOptions;
  /** Throws a ConformanceFailure (or NotRun: not judged) when the answer is not the follower's own. */
  judge: (res: ApiResponse, first: ApiResponse) => void;
}

/** The forms of a route's answer this module reads: the connected user's own routes. */
const ME = 'GET /users/me';
const ME_CARS = 'GET /users/me/cars';

/**
 * The spec's part, on every protected read route: right after the primary user's success, the same URL
 * without Authorization is refused with an AUTHENTICATION_ERROR ("the cloud environment requires the
 * header"), with a token that has no scope at all it is 403 AUTHORIZATION_ERROR (scopes are checked
 * per route), and with the second user's token the routes of a user are refused with 403
 * AUTHORIZATION_ERROR (a token unable to access a given user), /users/me answers another user ("the
 * connected user") and /users/me/cars none of the primary user's cars. Which member holds a user's or
 * a car's id is the profile's (the means of reading them).
 */
export async function coreNoSharedCache(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const followers: Array<() => Follower> = [
    () => ({
      who: 'without Authorization',
      options: { authorization: null },
      judge: (res) => expectError(res, { status: '4xx', type: 'AUTHENTICATION_ERROR', tip: 'any' }),
    }),
    () => ({
      who: 'with a token without scopes',
      options: usable(ctx, 'noScopes'),
      judge: (res) => expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR', tip: 'any' }),
    }),
  ];
  if (route.pathParams.includes('userId')) {
    followers.push(() => ({
      who: "with the second user's token",
      options: usable(ctx, 'otherUser'),
      judge: (res) => expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR', tip: 'any' }),
    }));
  } else if (route.route === ME || route.route === ME_CARS) {
    followers.push(() => ({
      who: "with the second user's token",
      options: usable(ctx, 'otherUser'),
      judge: (res, first) => theirOwn(route, res, first, '2xx'),
    }));
  }
  await readThenFollow(ctx, route, followers);
}

/**
 * The profile's part: right after the primary user's success, the same URL without Authorization is
 * 401 "Authorization is missing", with a token lacking the route's scope 403 "Token does not have the
 * required scope" (its tip naming it), and with the second user's token 403 "Token can't access this
 * user / car / trip" on a route of another user's resource, or their own user and cars on /users/me*.
 */
export async function noSharedCache(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const scope = route.scopes[0];
  const followers: Array<() => Follower> = [
    () => ({
      who: 'without Authorization',
      options: { authorization: null },
      judge: (res) => expectError(res, { status: 401, type: 'AUTHENTICATION_ERROR', message: 'Authorization is missing' }),
    }),
    () => ({
      who: `with a token without ${scope}`,
      options: usable(ctx, `withoutScope.${scope}` as TokenKey),
      judge: (res) =>
        expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR', message: 'Token does not have the required scope', tip: 'names-scope', scope }),
    }),
  ];
  if (route.pathParams.length) {
    const forbidden = ctx.catalogue.pathParams[resourceParam(route)]?.forbidden;
    const expected: ErrorExpectation = { status: 403, type: 'AUTHORIZATION_ERROR', ...(forbidden ? { message: forbidden } : {}) };
    followers.push(() => ({ who: "with the second user's token", options: usable(ctx, 'otherUser'), judge: (res) => expectError(res, expected) }));
  } else if (route.route === ME || route.route === ME_CARS) {
    followers.push(() => ({
      who: "with the second user's token",
      options: usable(ctx, 'otherUser'),
      judge: (res, first) => theirOwn(route, res, first, route.success.status, ctx.run.data.otherUserId),
    }));
  }
  await readThenFollow(ctx, route, followers);
}

/**
 * The Authorization of a token the run holds, or NotRun naming it (that follower is then not sent, said
 * in a warning: the others still judge the cache).
 */
function usable(ctx: CheckContext, key: TokenKey): { authorization: string } {
  const token = ctx.tokenIfGiven(key);
  if (!token) throw new NotRun(ctx.run.tokenNotes[key] ?? `tokens.${key} is not available`, `tokens.${key}`);
  return { authorization: `Bearer ${token}` };
}

/**
 * The second user's answer on /users/me or /users/me/cars is their own: another user than the
 * primary's (the id the second user's data gives, when known), or a list holding none of the primary
 * user's cars.
 */
function theirOwn(route: Route, res: ApiResponse, first: ApiResponse, status: number | '2xx', otherUserId?: string): void {
  expectStatus(res, status, `${route.route} with the second user's token answers the second user's own`);
  if (route.route === ME) {
    const mine = (first.json as Record<string, unknown> | undefined)?.id;
    const theirs = expectObject(res, 'the connected user').id;
    if (mine === undefined || theirs === undefined) throw unreadable("a user record without an id (the profile's user record)", 'RESP-CONTRACT');
    if (sameValue(mine, theirs) || (otherUserId !== undefined && String(theirs) !== otherUserId)) {
      fail({
        expected: `the second user${otherUserId ? ` (id ${otherUserId})` : ''}, not the primary user read just before (id ${show(mine)})`,
        actual: `user id ${show(theirs)}`,
        pointer: '/id',
        exchange: res.exchange,
      });
    }
    return;
  }
  const mine = new Set(expectObjects(first, "the primary user's cars").map((c) => JSON.stringify(c.id)));
  if (mine.size === 0) throw new NotRun("the primary user lists no car: an answer kept for them would not show in the second user's list");
  const shared = expectObjects(res, "the second user's cars").find((c) => mine.has(JSON.stringify(c.id)));
  if (shared) {
    fail({
      expected: "the second user's own cars, none of the primary user's read just before (a car belongs to one user)",
      actual: `car ${show(shared.id)} of the primary user is listed`,
      exchange: res.exchange,
    });
  }
}

/**
 * The primary user's success on the route (its data window where a route may answer "no data"), then
 * at once every follower on the same URL, each judged; every follower's problem is reported. A
 * follower whose token the run lacks is not sent (a warning names it).
 */
async function readThenFollow(ctx: CheckContext, route: Route, makers: Array<() => Follower>): Promise<void> {
  const followers: Follower[] = [];
  const unsent: string[] = [];
  for (const make of makers) {
    try {
      followers.push(make());
    } catch (err) {
      if (!(err instanceof NotRun || err instanceof NotApplicable)) throw err;
      unsent.push(err.reason);
    }
  }
  const first = await callValid(ctx, route);
  if (first.status < 200 || first.status > 299) {
    throw new NotRun(`the primary user's request answered ${first.status}, not a success a cache could keep (CORE-ROUTE-ANSWERS judges the route)`);
  }
  // The same URL as the first request: its data window where callValid added one.
  const query = validQuery(ctx, route);
  const answers = await together(followers.map((f) => ctx.call(route, { query, ...f.options })));
  const problems: FailureDetails[] = [];
  const notJudged: string[] = [];
  answers.forEach((res, i) => {
    const f = followers[i];
    try {
      f.judge(res, first);
    } catch (err) {
      if (err instanceof ConformanceFailure) problems.push({ ...err.details, expected: `${f.who}: ${err.details.expected}` });
      else if (err instanceof NotRun) notJudged.push(`${f.who}: ${err.reason}`);
      else throw err;
    }
  });
  if (unsent.length) ctx.warn(`not sent: ${unsent.join('; ')}`);
  if (problems.length) {
    fail({
      expected: `right after the primary user's success (${first.status}), each request on the same URL gets its own answer, none the one just given`,
      actual: problems.map((p) => `\n          ${p.expected}, actual ${p.actual}`).join(''),
      exchange: problems.find((p) => p.exchange)?.exchange,
    });
  }
  if (notJudged.length) throw new NotRun(notJudged.join('; '));
}
