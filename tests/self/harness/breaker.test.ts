// The breaker of silent routes (src/transport/breaker.ts, through src/transport/api.ts): while a run is prepared,
// one request that gets not a byte of answer within requestTimeoutMs stops the run sending to its
// route; among the checks it takes MAX_SILENT_REQUESTS in a row; an answer that began and ran late
// never opens a route by itself; a request not sent fails at once, naming the no-answer it repeats;
// the routes the preparation opened start open in the checks' run, and another run starts from none.
// Requests are counted by route, also where the caller names none (the URL's catalogue route).
// Hostile input (a fuzzed id) is refused on an open route and never counted.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { ApiClient, NoAnswerError, type ApiResponse } from '../../../src/transport/api';
import { joinRun, MAX_SILENT_REQUESTS, routeKeyOf, silentRoutes } from '../../../src/transport/breaker';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import { Redactor } from '../../../src/util/redact';
import { listenOnLoopback } from '../support/loopback-server';

const TIMEOUT_MS = 300;
const ROUTES = loadCatalogue().routes;

/** /v3/cars/{id}/status never answers; /v3/cars/{id}/locations sends its status line and never ends its body; anything else answers 200. */
async function start() {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    req.resume();
    if ((req.url ?? '').endsWith('/status')) return;
    if ((req.url ?? '').endsWith('/locations')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  const { origin, close } = await listenOnLoopback(server);
  return { base: `${origin}/v3`, seen, close };
}

async function outcome(request: Promise<ApiResponse>): Promise<string> {
  try {
    return `answered ${(await request).status}`;
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    return err.exchange.error!;
  }
}

test('while a run is prepared, two silent requests in a row open its route (one may be a cold start); the checks start from it; a slow answer never opens a route alone', async () => {
  const s = await start();
  try {
    const api = new ApiClient(s.base, TIMEOUT_MS, new Redactor([]));
    joinRun('preparation of run 1', s.base, ROUTES, { preparing: true });
    // Discovery names no route: the URL's catalogue route is counted.
    expect(await outcome(api.get('/cars/5001/status'))).toMatch(/^no complete answer within 300 ms/);
    expect(silentRoutes()).toEqual({});
    expect(await outcome(api.get('/cars/5003/status'))).toMatch(/^no complete answer within 300 ms/);
    const notSent = await outcome(api.get('/cars/5002/status', { route: 'GET /cars/{carId}/status' }));
    expect(notSent).toBe(
      'not sent: GET /cars/{carId}/status gave no answer earlier in this run: 2 requests to it in a row got not a byte of answer ' +
        '(the last: no complete answer within 300 ms (requestTimeoutMs)); the run sends it no more requests',
    );
    expect(s.seen.filter((u) => u.endsWith('/status'))).toHaveLength(2);
    // Its status line came: slow, not silent.
    expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^no complete answer within 300 ms/);
    expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^no complete answer/);
    expect(silentRoutes()).toEqual({
      'GET /cars/{carId}/status': '2 requests to it in a row got not a byte of answer (the last: no complete answer within 300 ms (requestTimeoutMs))',
    });

    // The checks of that run: the published routes start open, nothing else is carried over.
    joinRun('run 1', s.base, ROUTES, { silent: silentRoutes() });
    const started = performance.now();
    expect(await outcome(api.get('/cars/5001/status', { route: 'GET /cars/{carId}/status' }))).toMatch(/^not sent: /);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
    expect(s.seen.filter((u) => u.endsWith('/status'))).toHaveLength(2);
    expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^no complete answer/);
    // Among the checks, MAX_SILENT_REQUESTS in a row open a route (an answer of another route does not count).
    expect(await outcome(api.get('/cars/5001/trips'))).toBe('answered 200');
    for (let i = 1; i < MAX_SILENT_REQUESTS; i++) expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^no complete answer/);
    expect(await outcome(api.get('/cars/5001/locations'))).toMatch(
      /^not sent: GET \/cars\/\{carId\}\/locations gave no answer earlier in this run: the last 3 requests to it got no answer/,
    );

    // Another run starts from nothing.
    joinRun('preparation of run 2', s.base, ROUTES, { preparing: true });
    expect(silentRoutes()).toEqual({});
    expect(await outcome(api.get('/cars/5001/trips'))).toBe('answered 200');
  } finally {
    await s.close();
  }
});

test('hostile input (a fuzzed id) is not sent to an open route, and its missing answers never open one nor its answers close one', async () => {
  const s = await start();
  try {
    const api = new ApiClient(s.base, TIMEOUT_MS, new Redactor([]));
    joinRun('hostile run', s.base, ROUTES);
    const hostile = { route: 'GET /cars/{carId}/status', hostile: true };
    // Many hostile requests together, none answered: the route stays closed for the other checks.
    const many = await Promise.all(Array.from({ length: MAX_SILENT_REQUESTS + 2 }, () => outcome(api.get('/cars/%00/status', hostile))));
    for (const o of many) expect(o).toMatch(/^no complete answer within 300 ms/);
    expect(silentRoutes()).toEqual({});
    // The route opens on the checks' own requests; a hostile one is then not sent.
    for (let i = 0; i < MAX_SILENT_REQUESTS; i++) expect(await outcome(api.get('/cars/5001/status'))).toMatch(/^no complete answer/);
    const seen = s.seen.length;
    expect(await outcome(api.get('/cars/%00/status', hostile))).toMatch(/^not sent: GET \/cars\/\{carId\}\/status gave no answer earlier/);
    expect(s.seen).toHaveLength(seen);
    // A hostile request answered between the no-answers of a route does not reset their count.
    for (let i = 1; i < MAX_SILENT_REQUESTS; i++) expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^no complete answer/);
    expect(await outcome(api.get('/cars/5001/locations?fuzz=1', { route: 'GET /cars/{carId}/locations', hostile: true }))).toBe('answered 200');
    expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^no complete answer/);
    expect(await outcome(api.get('/cars/5001/locations'))).toMatch(/^not sent: /);
  } finally {
    await s.close();
  }
});

test('a request is counted by the route its caller names, else the catalogue route its URL matches below the API prefix, else its path', () => {
  joinRun('routes', 'http://h.test/v3', ROUTES);
  expect(routeKeyOf('GET', 'http://h.test/v3/cars/5001/trips?begin=x', undefined)).toBe('GET /cars/{carId}/trips');
  expect(routeKeyOf('GET', 'http://h.test/v3/users/me', undefined)).toBe('GET /users/me');
  expect(routeKeyOf('GET', 'http://h.test/v3/users/me/cars', undefined)).toBe('GET /users/me/cars');
  expect(routeKeyOf('GET', 'http://h.test/v3/users/101/cars', undefined)).toBe('GET /users/{userId}/cars');
  expect(routeKeyOf('GET', 'http://h.test/v3/cars/5001/locations.geojson', undefined)).toBe('GET /cars/{carId}/locations.geojson');
  expect(routeKeyOf('POST', 'http://h.test/v3/cars/5001/trips', undefined)).toBe('/v3/cars/5001/trips');
  expect(routeKeyOf('POST', 'http://h.test/_control/reset', undefined)).toBe('/_control/reset');
  expect(routeKeyOf('GET', 'http://h.test/v3/cars/5001', 'GET /cars/{carId}')).toBe('GET /cars/{carId}');
});
