// A delay on some routes only ('GET /cars/:carId/status=200'): a server that got slower on one route,
// the case nightly monitoring must notice while every other route keeps its pace. Not a fault: an
// answer's time is no documented behaviour, so no conformance check fails on it.
import { ROUTE_SCOPES, type RouteKey } from './route-keys';

export type RouteLatency = Partial<Record<RouteKey, number>>;

function isRouteKey(key: string): key is RouteKey {
  return Object.hasOwn(ROUTE_SCOPES, key);
}

/** Throws with a message naming the bad part; `source` names the flag or the variable. */
export function checkRouteLatency(latency: Record<string, number>, source = 'routeLatencyMs'): RouteLatency {
  for (const [key, ms] of Object.entries(latency)) {
    if (!isRouteKey(key)) throw new Error(`Invalid ${source}: unknown route '${key}' (valid: ${Object.keys(ROUTE_SCOPES).join(', ')})`);
    if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`Invalid ${source}: '${key}' needs an integer number of ms, 0 or more (got ${String(ms)})`);
  }
  return latency as RouteLatency;
}

/** 'GET /cars/:carId/status=200,GET /users/me=50' as a table of delays. */
export function parseRouteLatency(spec: string, source: string): RouteLatency {
  const table: Record<string, number> = {};
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^(.+?)\s*=\s*(\d{1,6})$/.exec(part);
    if (!m) throw new Error(`Invalid ${source} '${part}' (valid: ROUTE=MS, e.g. 'GET /cars/:carId/status=200'; several separated by commas)`);
    table[m[1]] = Number(m[2]);
  }
  return checkRouteLatency(table, source);
}

/** The key of the route a request was routed to ('GET /cars/:carId'), from Fastify's route URL under /v3. */
export function routeKeyOf(method: string, routeUrl: string | undefined): string | undefined {
  return routeUrl?.startsWith('/v3/') ? `${method} ${routeUrl.slice(3)}` : undefined;
}
