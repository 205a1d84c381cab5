// The server's answer time per route, measured so that the suite's own load does not enter it. The
// checks' requests go a dozen at a time on a machine that also runs the runner, a worker, Chromium
// (and, locally, the server): their durations are mostly the client's own queueing, so they stay in
// the exchanges but are never compared. Here, once per run before any check (global setup), each read
// route is asked a few times, one request at a time, round by round over the routes (a burst of load
// on the machine then touches one sample of many routes, not every sample of one), after a round that
// is not counted (connections, the server's first use of a route).
//
// On a distant server (a round trip of SAMPLED_SIDE_BY_SIDE_MS or more, run-context.ts) each request is mostly the round trip, so
// every route is sampled side by side, each still one request at a time, its rounds one after
// another: the client only waits, and the sampling costs the run its rounds' round trips (114
// requests at 300 ms: 2 s, not 34 s one at a time).
//
// What is asked, so that the figures stay comparable night after night: the route's valid request with
// the run's ids and the primary token (none on a sandbox's open routes); only GET routes of the API
// (never a write, so --monitor and read-only targets are safe; the sign-in page is not an API answer);
// lists asked for LIST_LIMIT items and ranges over the run's 28-day data window (a month's data grows
// day by day, and with it the answer). A route whose answer is unusable (an error status, no answer,
// a body too large) stops being asked: its note says why, and it is not compared that night.
import { MAX_LIST_BODY_BYTES, MAX_SILENT_REQUESTS, NoAnswerError, RateLimitedError, type Query } from '../transport/api';
import { fillRoute, type Catalogue, type Route } from '../catalogue/catalogue';
import type { Preparation } from './preparation';
import { SAMPLED_SIDE_BY_SIDE_MS, type RunContext } from './run-context';
import type { DataKey, Target } from './target';

/** Rounds asked first and not counted. */
const WARM_UP_ROUNDS = 1;
/** Items a list route is asked for. */
const LIST_LIMIT = 10;

import { SAMPLES_PER_ROUTE, type LatencySampling, type RouteSamples } from '../transport/answer-times';

export { SAMPLES_PER_ROUTE, type LatencySampling };

function samplingMethod(sideBySide: boolean): string {
  return (
    `${SAMPLES_PER_ROUTE} requests per GET route of the API, one at a time, before any check and after ${WARM_UP_ROUNDS} round not counted` +
    (sideBySide ? ' (a distant server: every route side by side, each one request at a time)' : '') +
    ", with the primary token (none on a sandbox's open routes); lists asked for " +
    `${LIST_LIMIT} items, ranges over the run's data window: the server's answer time as this machine sees it (round trip included). ` +
    "The checks' own request durations (many in flight at once) are not used: they measure the suite's own queueing."
  );
}

/** The GET routes of the API: the ones sampled (never a write; not the sign-in page). */
export function sampledRoutes(catalogue: Pick<Catalogue, 'routes'>): Route[] {
  return catalogue.routes.filter((r) => r.method === 'GET' && !r.public);
}

const DATA_FOR: Record<string, DataKey> = { userId: 'userId', carId: 'carId', tripId: 'tripId' };

type Inputs = Pick<RunContext, 'tokens' | 'data' | 'window'>;

/** The request that samples a route, or why it cannot be asked. */
function requestFor(route: Route, target: Target, run: Inputs): { path: string; query: Query; authorization: string | null } | { note: string } {
  let authorization: string | null = null;
  if (!(target.env === 'sandbox' && route.sandboxOpen)) {
    if (!run.tokens.full) return { note: 'not sampled: no primary token (tokens.full)' };
    authorization = `Bearer ${run.tokens.full}`;
  }
  const filled = fillRoute(route, (name) => run.data[DATA_FOR[name]] || undefined);
  if (!filled) {
    const absent = route.pathParams.find((name) => !run.data[DATA_FOR[name]]) ?? '';
    return { note: `not sampled: data.${DATA_FOR[absent] ?? absent} is not available` };
  }
  const { path } = filled;
  const query: Record<string, string> = {};
  if (route.query.includes('begin') && run.window) Object.assign(query, run.window);
  if (route.query.includes('limit')) query.limit = String(LIST_LIMIT);
  return { path, query, authorization };
}

/** Why an answer cannot be timed as the route's answer, or undefined when it can. */
function unusable(route: Route, status: number, truncated: boolean): string | undefined {
  const documented = [route.success.status, ...(route.noData ? [route.noData.status] : [])];
  if (!documented.includes(status)) return `answered ${status} (documented: ${documented.join(' or ')}): not timed`;
  if (truncated) return 'the answer was larger than the suite reads: not timed';
  return undefined;
}

/** With the run's tokens, ids and window; `roundTripMs`: a request's round trip measured before (global setup's preflight). */
export async function sampleLatency(
  prep: Pick<Preparation, 'target' | 'api' | 'redactor'> & { catalogue: Pick<Catalogue, 'routes'>; run: Inputs },
  roundTripMs = 0,
): Promise<LatencySampling> {
  const { target, catalogue, run, redactor, api } = prep;
  const results: RouteSamples[] = [];
  const active: Array<{ route: Route; result: RouteSamples; path: string; query: Query; authorization: string | null }> = [];
  for (const route of sampledRoutes(catalogue)) {
    const request = requestFor(route, target, run);
    const result: RouteSamples = { route: route.route, samples: [] };
    results.push(result);
    if ('note' in request) result.note = request.note;
    else {
      result.path = redactor.redact(request.path);
      active.push({ route, result, ...request });
    }
  }
  let unanswered = 0;
  type Active = (typeof active)[number];
  const sampleOnce = async (a: Active, counted: boolean, again = false): Promise<void> => {
    if (unanswered >= MAX_SILENT_REQUESTS) {
      a.result.note = `not sampled further: ${MAX_SILENT_REQUESTS} requests of this run's sampling got no answer`;
      return;
    }
    try {
      const res = await api.get(a.path, {
        query: a.query,
        authorization: a.authorization,
        route: a.route.route,
        ...(a.route.success.contract?.endsWith('[]') ? { maxBytes: MAX_LIST_BODY_BYTES } : {}),
      });
      const why = unusable(a.route, res.status, res.truncated);
      if (why) a.result.note = why;
      else if (counted && !again) a.result.samples.push(res.durationMs);
    } catch (err) {
      if (err instanceof NoAnswerError) {
        // Not sent (the route gave no answer earlier in the run: breaker.ts) costs nothing: not counted.
        if (err.exchange.repeats !== undefined) {
          a.result.note = `no answer (${err.exchange.error ?? err.message}): not timed`;
          return;
        }
        // A first request that waited out the time-out may be a cold start: once more at once, and a
        // second silence is the route's (the breaker then stops sending to it for the run).
        if (!again && err.kind === 'timeout') return sampleOnce(a, counted, true);
        unanswered++;
        a.result.note = `no answer (${err.exchange.error ?? err.message}): not timed`;
      } else if (err instanceof RateLimitedError) {
        a.result.note = 'still 429 Too Many Requests after the retries: not timed';
      } else throw err;
    }
  };
  const rounds = WARM_UP_ROUNDS + SAMPLES_PER_ROUTE;
  const sideBySide = roundTripMs >= SAMPLED_SIDE_BY_SIDE_MS;
  if (sideBySide) {
    // Each route its own lane of rounds; a route whose answer is unusable stops being asked.
    await Promise.all(
      active.map(async (a) => {
        for (let round = 0; round < rounds && !a.result.note; round++) await sampleOnce(a, round >= WARM_UP_ROUNDS);
      }),
    );
  } else {
    for (let round = 0; round < rounds; round++) {
      for (const a of active.filter((x) => !x.result.note)) await sampleOnce(a, round >= WARM_UP_ROUNDS);
    }
  }
  return { method: samplingMethod(sideBySide), routes: results };
}
