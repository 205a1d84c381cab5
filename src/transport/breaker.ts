// Which routes a run stops sending requests to: a route that never answers costs the run its
// time-out about twice, not once per check. A route opens (gets no more requests this run) when
// MAX_SILENT_REQUESTS requests to it in a row got no complete answer, or, while the run is prepared,
// when PREPARATION_SILENT_REQUESTS requests to it in a row waited out requestTimeoutMs without a byte
// of answer (silent); an answer closes it again. A request to an open route is not sent: it fails at
// once (api.ts, "not sent"), naming the no-answer it repeats, so the checks of that route still fail,
// and only they.
//
// Why fewer silent requests are enough while the run is prepared than among the checks: the
// preparation (global setup: token proofs, discovery, the latency sampling) sends its requests one at
// a time, or a few, before anything else of the suite runs, so a request that got not even a status
// line within requestTimeoutMs there is the server's doing; among the checks, a dozen in flight on a
// busy machine, one late answer may be the suite's own queueing, and the route opens only after
// MAX_SILENT_REQUESTS. Why two and not one: a server's first request to a route may be slow once (a
// cold start) and every later one fast; the checks must then judge the route, not its first answer.
// An answer that began and did not end in time (a large body on a busy machine) is slow, not silent:
// it never opens a route by itself.
//
// One breaker per run and process, because the route is met first where the run is prepared and then
// by the checks in each worker: the preparation publishes the routes it opened
// (RunContext.silentRoutes), and each worker's checks start from them (run-check.ts joins the run), so
// the time-out the sampling waited out is not waited out again by a dozen checks in flight together.
// A new run (a new state folder) starts from nothing: in-process runs of the project's own tests
// never inherit another run's routes.
//
// Requests are counted by route: the catalogue route the caller names, else the API route whose path
// template the URL matches (discovery asks /cars/5001/trips, the route GET /cars/{carId}/trips), else
// the URL's path. Hostile input (checks/fuzz.ts: a fuzzed id or query, sent together) is not sent to
// an open route, and is never counted: a server hanging on hostile input fails the fuzz checks, not
// the other checks of the route.

import { resetPace } from './request-slots';

/** No answers in a row that open a route among the checks. */
export const MAX_SILENT_REQUESTS = 3;
/** Silent requests in a row (not a byte of answer) that open a route while the run is prepared. */
const PREPARATION_SILENT_REQUESTS = 2;

/** A route's path template as the catalogue gives it: method, path (/cars/{carId}/trips), its id. */
export interface RouteTemplate {
  method: string;
  path: string;
  route: string;
}

interface RouteState {
  /** No answers in a row. */
  silent: number;
  /** Of them, silent ones (not a byte of answer) in a row. */
  quiet: number;
  /** Why requests are no longer sent (set when the route opened). */
  open?: string;
}

interface RunBreaker {
  id: string;
  /** Routes that gave an answer in this run. */
  answeredOnce: Set<string>;
  /** Routes whose request, sent again alone, still got no answer (in time, or before its connection closed): their failures are the server's. */
  unansweredAlone: Set<string>;
  /** PREPARATION_SILENT_REQUESTS silent requests in a row open a route (the run's preparation); else MAX_SILENT_REQUESTS no answers in a row. */
  openOnSilence: boolean;
  /** The API's path prefix (/v3): a template matches only below it. */
  basePath: string;
  templates: Array<{ method: string; pattern: RegExp; route: string }>;
  routes: Map<string, RouteState>;
}

let current: RunBreaker = {
  id: '',
  answeredOnce: new Set(),
  unansweredAlone: new Set(),
  openOnSilence: false,
  basePath: '',
  templates: [],
  routes: new Map(),
};

export interface JoinOptions {
  /** The routes the run's preparation opened (route -> why): they start open. */
  silent?: Record<string, string>;
  /** The run's preparation: one silent request opens a route. */
  preparing?: boolean;
}

/** This process now serves the run `id` (its state folder, or its preparation): unless it already did, nothing else is remembered. */
export function joinRun(id: string, baseUrl: string, templates: readonly RouteTemplate[], options: JoinOptions = {}): void {
  if (current.id === id) return;
  const byLiteralsFirst = [...templates].sort((a, b) => params(a.path) - params(b.path));
  const silent = options.silent ?? {};
  resetPace();
  current = {
    id,
    answeredOnce: new Set(),
    unansweredAlone: new Set(),
    openOnSilence: options.preparing === true,
    basePath: new URL(baseUrl).pathname.replace(/\/$/, ''),
    templates: byLiteralsFirst.map((t) => ({ method: t.method, route: t.route, pattern: templatePattern(t.path) })),
    routes: new Map(Object.entries(silent).map(([route, why]) => [route, { silent: MAX_SILENT_REQUESTS, quiet: PREPARATION_SILENT_REQUESTS, open: why }])),
  };
}

function params(path: string): number {
  return (path.match(/\{/g) ?? []).length;
}

/** /cars/{carId}/trips -> a pattern of the path after the API's prefix (an id is one path segment). */
function templatePattern(path: string): RegExp {
  const literal = path.split(/\{\w+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('[^/]+')}$`);
}

/** What the breaker counts a request by: the route the caller named, else the API route its URL matches, else its path. */
export function routeKeyOf(method: string, url: string, route?: string): string {
  if (route) return route;
  const path = new URL(url).pathname;
  const { basePath } = current;
  if (basePath && path.startsWith(`${basePath}/`)) {
    const rest = path.slice(basePath.length);
    const found = current.templates.find((t) => t.method === method && t.pattern.test(rest));
    if (found) return found.route;
  }
  return path;
}

/** Why a request to this route is not sent, or undefined when it may be. */
export function refusal(key: string): string | undefined {
  return current.routes.get(key)?.open;
}

/** The route answered: it is closed again (a request in flight when it opened may come back). */
export function answered(key: string): void {
  current.routes.delete(key);
  current.answeredOnce.add(key);
  // It answers again: a later failure may be the run's load again, worth a turn alone.
  current.unansweredAlone.delete(key);
}

/**
 * Whether a request that timed out, or whose fresh connection was closed before any byte of answer,
 * while others were in flight is sent again alone before it counts (network.ts): after a close (a
 * request written late on a busy machine; a second close costs no time-out), when the answer had begun
 * (a large answer read slowly), or when the route has answered in this run (a silent route that never
 * did is the server's, as before); and the route's request was not already unanswered alone.
 */
export function worthSendingAlone(key: string, evidence: { began: boolean; closed: boolean }): boolean {
  return !current.unansweredAlone.has(key) && (evidence.closed || evidence.began || current.answeredOnce.has(key));
}

/** Sent alone, the route's request still got no answer: its later failures of the kind are the server's, until it answers again. */
export function failedAlone(key: string): void {
  current.unansweredAlone.add(key);
}

/**
 * The route gave no complete answer (`error`: why, in words): `silent`, a time-out before any byte of
 * answer; `slow`, a time-out after the answer began; `network`, the connection failed. It opens after
 * MAX_SILENT_REQUESTS in a row, or PREPARATION_SILENT_REQUESTS silent ones in a row while the run is prepared.
 */
export function unanswered(key: string, kind: 'silent' | 'slow' | 'network', error: string): void {
  const state = current.routes.get(key) ?? { silent: 0, quiet: 0 };
  state.silent += 1;
  state.quiet = kind === 'silent' ? state.quiet + 1 : 0;
  if (!state.open && state.silent >= MAX_SILENT_REQUESTS) state.open = `the last ${state.silent} requests to it got no answer (the last: ${error})`;
  if (!state.open && current.openOnSilence && state.quiet >= PREPARATION_SILENT_REQUESTS) {
    state.open = `${state.quiet} requests to it in a row got not a byte of answer (the last: ${error})`;
  }
  current.routes.set(key, state);
}

/** The routes this run no longer sends to, and why: what the preparation publishes to the workers. */
export function silentRoutes(): Record<string, string> {
  return Object.fromEntries([...current.routes].filter(([, s]) => s.open).map(([route, s]) => [route, s.open!]));
}
