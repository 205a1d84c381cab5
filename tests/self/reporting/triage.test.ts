// The triage (src/verdict/triage.ts) on synthetic records: each kind of cause found in the answers, a
// check counted by one cause only, the thresholds, and a clean run without a triage; then how the
// console, Markdown and HTML show it (first in the failures) without touching a verdict.
import { expect, test } from '@playwright/test';
import type { Exchange } from '../../../src/transport/api';
import type { Certificate } from '../../../src/verdict/model';
import { renderConsole } from '../../../src/rendering/render-console';
import { renderHtml } from '../../../src/rendering/render-html';
import { renderMarkdown } from '../../../src/rendering/render-md';
import { triage } from '../../../src/verdict/triage';
import { answersLikeTheApi, baseUrlCandidates, tryBaseUrls } from '../../../src/verdict/triage-base-url';
import { BODIES, exchange, FACTS, record } from './synthetic-exchanges';
import { certificate, check, requirement } from './synthetic';

const TRIP = 'GET /trips/{tripId}';
const STATS = 'GET /trips/{tripId}/stats';
const CAR = 'GET /cars/{carId}';
const CARS = 'GET /users/me/cars';
const ME = 'GET /users/me';
const ASSOCIATE = 'POST /devices/{deviceId}/associate?carId={carId}';
const DISSOCIATE = 'POST /devices/{deviceId}/dissociate';

/** Passing checks of routes that work: the evidence a real run has besides its failures. */
function healthy(): ReturnType<typeof record>[] {
  return [
    record(`RESP-STATUS ${ME}`, [exchange(ME, 'full', 200, BODIES.user)], false),
    record(`RESP-STATUS ${CAR}`, [exchange(CAR, 'full', 200, BODIES.car('2026-01-01T10:00:00+01:00'))], false),
    record(`AUTH-MISSING ${CAR}`, [exchange(CAR, 'none', 401, BODIES.authMissing)], false),
  ];
}

const framework = (id: string, credential: Parameters<typeof exchange>[1]) => exchange(id, credential, 404, BODIES.frameworkNotFound(id.split(' ')[1]));

test('a clean run has no triage', () => {
  expect(triage(healthy(), FACTS)).toBeUndefined();
});

test('not implemented: routes answering a non-API 404 to every valid request explain every check that needed them', () => {
  const records = [
    ...healthy(),
    record(`RESP-STATUS ${TRIP}`, [framework(TRIP, 'full')]),
    record(`RESP-STATUS ${STATS}`, [framework(STATS, 'full')]),
    record(`ERR-TRIP-NOT-FOUND ${TRIP}`, [framework(TRIP, 'full')]),
    // An authentication layer in front of the router answers the API's 401: still not implemented.
    record(`AUTH-MISSING ${TRIP}`, [exchange(TRIP, 'none', 401, BODIES.authMissing)], false),
    record(`SCOPE-MISSING ${STATS} [trips_read]`, [framework(STATS, 'withoutScope.trips_read')]),
    // A check of another route that needs a trip.
    record('COH-TRIP-STATS', [exchange(CAR, 'full', 200, '[]'), framework(TRIP, 'full')]),
  ];
  const t = triage(records, FACTS)!;
  expect(t.causes.map((k) => k.id)).toEqual(['not-implemented']);
  const [cause] = t.causes;
  expect(cause.title).toBe('2 routes answer a non-API 404 to every valid request (not implemented?)');
  expect(cause.routes.sort()).toEqual([TRIP, STATS].sort());
  expect(cause.explains).toBe(5);
  expect(t).toMatchObject({ failed: 5, explained: 5 });
  expect(cause.example!.curl).toContain('$VDS_TOKEN_FULL');
  expect(cause.example!.body).toContain('"statusCode":404');
  expect(cause.fix).toMatch(/^Implement these routes/);
});

test('not implemented needs every valid request refused: a route serving its own ids but answering a framework 404 to unknown ones is implemented', () => {
  const records = [...healthy(), ...['A', 'B', 'C'].map((n) => record(`ERR-CAR-NOT-FOUND-${n} ${CAR}`, [framework(CAR, 'full')]))];
  expect(triage(records, FACTS)?.causes.map((k) => k.id) ?? []).not.toContain('not-implemented');
});

test("not implemented on every route the run reached: the first suspect is baseUrl's path, and the other base URLs tried say where the API is", async () => {
  const routes = [ME, CAR, CARS, TRIP];
  const records = routes.flatMap((id) => [record(`RESP-STATUS ${id}`, [framework(id, 'full')]), record(`RESP-CONTRACT ${id}`, [framework(id, 'full')])]);
  const baseUrl = 'http://127.0.0.1:1/v3';
  const t = triage(records, { ...FACTS, baseUrl })!;
  const [cause] = t.causes;
  expect(cause.title).toBe("Every route the run reached (4) answers a non-API 404 to every valid request: baseUrl's path may lack or repeat a prefix");
  expect(cause.fix).toMatch(/^Check the path of baseUrl \(http:\/\/127\.0\.0\.1:1\/v3\): the spec puts every route below \/v3/);
  expect(cause.basePath).toEqual({ baseUrl, tried: [] });
  // Without the base URL (an older caller), or with one route working, it is the routes' cause as before.
  expect(triage(records, FACTS)!.causes[0].title).toBe('4 routes answer a non-API 404 to every valid request (not implemented?)');
  expect(triage([...records, ...healthy()], { ...FACTS, baseUrl })!.causes[0].basePath).toBeUndefined();

  // What was tried words the cause: the base URL that answered like the API first.
  expect(baseUrlCandidates(baseUrl)).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:1/v3/v3']);
  expect(baseUrlCandidates('https://api.example.com/vds/v3/')).toEqual(['https://api.example.com/vds', 'https://api.example.com/vds/v3/v3']);
  const answering = (at: string, status: number) => async (b: string) => ({
    baseUrl: b,
    request: `GET ${b}/users/me -> ${b === at ? status : 404}`,
    likeTheApi: b === at,
  });
  const certificateWith = () => ({ triage: structuredClone(t) }) as Certificate;

  const atRoot = certificateWith();
  await tryBaseUrls(atRoot, answering('http://127.0.0.1:1', 401));
  expect(atRoot.triage!.causes[0].title).toBe(
    'Every route the run reached (4) answers a non-API 404 to every valid request: the API answered at http://127.0.0.1:1 instead (baseUrl has a path segment too many)',
  );
  expect(atRoot.triage!.causes[0].fix).toBe(
    "The API answered at http://127.0.0.1:1, not at http://127.0.0.1:1/v3: serve the routes below /v3, as the spec puts them (vehicle-data-service-v3.md § Endpoints, Hosts; the target file's baseUrl ends with /v3), e.g. through a gateway or the server's base path. Tried: GET http://127.0.0.1:1/users/me -> 401 (like the API); GET http://127.0.0.1:1/v3/v3/users/me -> 404 (not the API).",
  );
  expect(atRoot.triage!.causes[0].basePath!.tried.map((x) => x.likeTheApi)).toEqual([true, false]);

  const twice = certificateWith();
  await tryBaseUrls(twice, answering('http://127.0.0.1:1/v3/v3', 200));
  expect(twice.triage!.causes[0].title).toMatch(/the API answered at http:\/\/127\.0\.0\.1:1\/v3\/v3 instead \(baseUrl lacks a path prefix\)$/);
  expect(twice.triage!.causes[0].fix).toMatch(
    /^The API answered at http:\/\/127\.0\.0\.1:1\/v3\/v3, not at http:\/\/127\.0\.0\.1:1\/v3: set baseUrl to http:\/\/127\.0\.0\.1:1\/v3\/v3\. Tried: /,
  );

  const nowhere = certificateWith();
  await tryBaseUrls(nowhere, answering('elsewhere', 200));
  expect(nowhere.triage!.causes[0].title).toBe(cause.title);
  expect(nowhere.triage!.causes[0].fix).toMatch(
    /Tried instead: GET http:\/\/127\.0\.0\.1:1\/users\/me -> 404 \(not the API\); GET .* -> 404 \(not the API\): neither answered like the API\.$/,
  );
  // Tried once: a second call sends nothing.
  let sent = 0;
  await tryBaseUrls(nowhere, async (b) => (sent++, { baseUrl: b, request: '', likeTheApi: false }));
  expect(sent).toBe(0);
});

test('an answer like the API: a success, a refusal asking for a credential, or the error array; not a 404 of another kind', () => {
  expect(answersLikeTheApi(200, { id: 1 })).toBe(true);
  expect(answersLikeTheApi(401, { title: 'Invalid security scheme used' })).toBe(true);
  expect(answersLikeTheApi(404, [{ type: 'PARAMETERS_ERROR', message: 'User not found', tip: 'Check the id' }])).toBe(true);
  expect(answersLikeTheApi(404, { statusCode: 404, error: 'Not Found' })).toBe(false);
  expect(answersLikeTheApi(405, 'Method Not Allowed')).toBe(false);
});

test('no answer: a route that times out or drops the connection explains the checks that waited on it', () => {
  const reset = 'the connection was reset by the server';
  const dropped = (n: number) => exchange(STATS, 'full', undefined, '', { error: n < 3 ? reset : `not sent: the last 3 requests to ${STATS} got no answer` });
  const records = [...healthy(), ...[0, 1, 2, 3, 4].map((n) => record(`CHECK-${n} ${STATS}`, [dropped(n)]))];
  const t = triage(records, FACTS)!;
  expect(t.causes).toHaveLength(1);
  expect(t.causes[0]).toMatchObject({ id: 'no-answer', title: `${STATS} gives no answer: ${reset}`, explains: 5, routes: [STATS] });
});

test("authentication refused: the primary user's valid token answered 401 on every route tried", () => {
  const refused = (id: string, credential: Parameters<typeof exchange>[1] = 'full') => exchange(id, credential, 401, BODIES.invalidToken);
  const records = [
    record(`RESP-STATUS ${ME}`, [refused(ME)]),
    record(`RESP-STATUS ${CAR}`, [refused(CAR)]),
    record(`RESP-STATUS ${CARS}`, [refused(CARS)]),
    record(`SCOPE-NOT-NEEDED ${CAR}`, [refused(CAR, 'withoutScope.users_read')]),
    record(`AUTH-MISSING ${CAR}`, [exchange(CAR, 'none', 401, BODIES.authMissing)], false),
  ];
  const t = triage(records, FACTS)!;
  expect(t.causes.map((k) => k.id)).toEqual(['auth-refused']);
  expect(t.causes[0].title).toBe("The primary user's valid token is refused as unauthenticated on every route tried (3)");
  expect(t.causes[0].explains).toBe(4);
});

test('scope map: device routes served to tokens without devices_management (one group)', () => {
  const served = (id: string, credential: Parameters<typeof exchange>[1]) => exchange(id, credential, 204);
  const records = [
    ...healthy(),
    record(`SCOPE-MISSING ${ASSOCIATE} [devices_management]`, [served(ASSOCIATE, 'withoutScope.devices_management')]),
    record(`SCOPE-MISSING ${DISSOCIATE} [devices_management]`, [served(DISSOCIATE, 'withoutScope.devices_management')]),
    record(`CORE-SCOPE-REFUSED ${DISSOCIATE}`, [served(DISSOCIATE, 'noScopes')]),
    // A scope refused where the route needs it is the map working.
    record(`SCOPE-MISSING ${CAR} [cars_read]`, [exchange(CAR, 'withoutScope.cars_read', 403, BODIES.scopeMissing)], false),
  ];
  const t = triage(records, FACTS)!;
  expect(t.causes).toHaveLength(1);
  expect(t.causes[0]).toMatchObject({ id: 'scope-map', explains: 3 });
  expect(t.causes[0].title).toBe(
    'The scope map is off on 2 routes of the devices group: served without devices_management; served to a token without any scope',
  );
  expect(t.causes[0].fix).toContain(`${DISSOCIATE} needs devices_management`);
});

test('scope map: a scope refused where the route does not need it, on one route only, is left to the list by requirement', () => {
  const records = [
    ...healthy(),
    ...['a', 'b', 'c'].map((n) => record(`SCOPE-NOT-NEEDED-${n} ${CAR}`, [exchange(CAR, 'withoutScope.trips_read', 403, BODIES.scopeMissing)])),
  ];
  expect(triage(records, FACTS)).toBeUndefined();
});

test('error body: errors that are JSON objects, not the array, on several routes', () => {
  const objectError = (id: string, credential: Parameters<typeof exchange>[1], status: number) =>
    exchange(id, credential, status, '{"type":"AUTHENTICATION_ERROR","message":"Authorization is missing","tip":"Send a token"}');
  const records = [
    ...healthy().slice(0, 2),
    record(`AUTH-MISSING ${ME}`, [objectError(ME, 'none', 401)]),
    record(`AUTH-MISSING ${CAR}`, [objectError(CAR, 'none', 401)]),
    record(`CORE-ERROR-BODY ${CARS}`, [objectError(CARS, 'noScopes', 403)]),
  ];
  const t = triage(records, FACTS)!;
  expect(t.causes.map((k) => [k.id, k.explains])).toEqual([['error-body', 3]]);
  expect(t.causes[0].title).toBe("Errors on 3 routes are a JSON object {type, message, tip}, not the spec's array of {type, message, tip}");
});

test("error body: an array whose type is not one of the spec's three", () => {
  const singular = (id: string) => exchange(id, 'full', 400, JSON.stringify([{ type: 'PARAMETER_ERROR', message: 'Invalid limit', tip: 'A tip' }]));
  const t = triage([...healthy(), record(`Q-1 ${CAR}`, [singular(CAR)]), record(`Q-2 ${CARS}`, [singular(CARS)])], FACTS)!;
  expect(t.causes[0].title).toBe('Errors on 2 routes are typed "PARAMETER_ERROR", not one of the spec\'s three types');
});

test("dates: every car date ending in Z (the car record's shape is +hh:mm), on several routes", () => {
  const zulu = BODIES.car('2026-01-01T09:00:00Z');
  const records = [
    record(`RESP-CONTRACT ${CAR}`, [exchange(CAR, 'full', 200, zulu)], true, {
      failure: {
        check: `RESP-CONTRACT ${CAR}`,
        expected: 'format vds-car-date',
        actual: '"2026-01-01T09:00:00Z"',
        pointer: '/creationDate',
        request: `GET http://127.0.0.1:1/v3/cars/5001 -> 200`,
      },
    }),
    record(`CORE-CAR-RECORD ${CARS}`, [exchange(CARS, 'full', 200, `[${zulu}]`)]),
    // A failure at another member of the same answer failed for another reason.
    record(`RESP-CONTRACT-NAME ${CAR}`, [exchange(CAR, 'full', 200, zulu)], true, {
      failure: { check: 'x', expected: 'string', actual: '1', pointer: '/name', request: `GET http://127.0.0.1:1/v3/cars/5001 -> 200` },
    }),
  ];
  const t = triage(records, FACTS)!;
  expect(t.causes).toHaveLength(1);
  expect(t.causes[0]).toMatchObject({
    id: 'date-shape',
    explains: 2,
    title: 'Dates are written ending in Z in place of an offset +hh:mm on 2 routes (e.g. creationDate "2026-01-01T09:00:00Z")',
  });
  expect(t.causes[0].fix).toContain('YYYY-MM-DDThh:mm:ss+hh:mm');
  expect(t.explained).toBe(2);
  expect(t.failed).toBe(3);
});

test('dates: epoch numbers and dates without an offset are named as such', () => {
  const user = (date: unknown) => JSON.stringify({ id: 101, firstName: 'A', lastName: 'B', email: 'a@b.test', creationDate: date });
  const byShape = (value: unknown) =>
    triage(
      [record(`R-1 ${ME}`, [exchange(ME, 'full', 200, user(value))]), record(`R-2 ${CAR}`, [exchange(CAR, 'full', 200, BODIES.car(value as string))])],
      FACTS,
    )?.causes[0].title;
  expect(byShape(1767258000)).toMatch(/^Dates are written as epoch seconds \(numbers\) on 2 routes/);
  expect(byShape('2026-01-01T09:00:00')).toMatch(/^Dates are written without an offset \(no Z or ±hh:mm\) on 2 routes/);
  expect(byShape('2026-01-01 09:00:00+00:00')).toMatch(/^Dates are written with a space in place of the T on 2 routes/);
});

test('content type: JSON answers labelled text/plain, where the failure is about that label', () => {
  const plain = (id: string) =>
    exchange(id, 'full', 200, '[{"type":"Point","coordinates":[2.35,48.85]}]', { responseHeaders: { 'content-type': 'text/plain; charset=utf-8' } });
  const failure = (key: string, id: string) => ({
    failure: {
      check: key,
      expected: 'content-type application/json or application/geo+json',
      actual: 'content-type text/plain; charset=utf-8',
      request: `GET ${plain(id).url} -> 200`,
    },
  });
  const CAR_GEO = 'GET /cars/{carId}/locations.geojson';
  const TRIP_GEO = 'GET /trips/{tripId}/locations.geojson';
  const t = triage(
    [
      ...healthy(),
      record(`RESP-GEOJSON-CONTENT-TYPE ${CAR_GEO}`, [plain(CAR_GEO)], true, failure('a', CAR_GEO)),
      record(`RESP-GEOJSON-CONTENT-TYPE ${TRIP_GEO}`, [plain(TRIP_GEO)], true, failure('b', TRIP_GEO)),
      // The same label on a check that failed for another reason is not explained by it.
      record(`QUERY-LIMIT ${CAR_GEO}`, [plain(CAR_GEO)]),
    ],
    FACTS,
  )!;
  expect(t.causes).toHaveLength(1);
  expect(t.causes[0]).toMatchObject({ id: 'content-type', title: '2 routes label JSON answers text/plain', explains: 2 });
});

test('each failing check counts for one cause only (the first rule that explains it), and causes are ranked by checks explained', () => {
  // Trips are missing (framework 404, a JSON object); errors elsewhere are objects too.
  const objectError = (id: string) => exchange(id, 'none', 401, '{"message":"Authorization is missing"}');
  const records = [
    ...healthy().slice(0, 2),
    ...['1', '2', '3', '4'].map((n) => record(`T-${n} ${TRIP}`, [framework(TRIP, 'full')])),
    record(`AUTH-MISSING ${ME}`, [objectError(ME)]),
    record(`AUTH-MISSING ${CAR}`, [objectError(CAR)]),
    record(`AUTH-MISSING ${CARS}`, [objectError(CARS)]),
    record(`ONE-OFF ${CAR}`, [exchange(CAR, 'full', 500, BODIES.notFound)]),
  ];
  const t = triage(records, FACTS)!;
  expect(t.causes.map((k) => [k.id, k.explains])).toEqual([
    ['not-implemented', 4],
    ['error-body', 3],
  ]);
  expect(t.causes[1].routes.sort()).toEqual([CAR, CARS, ME].sort()); // the missing route's 404 is not an error body of the API's
  expect(t.failed).toBe(8);
  expect(t.explained).toBe(7);
  const all = t.causes.flatMap((k) => k.checks);
  expect(new Set(all).size).toBe(all.length);
});

test("below the thresholds no cause is shown: one route's error shape, two checks on a missing route", () => {
  const objectError = exchange(CAR, 'none', 401, '{"message":"no"}');
  expect(
    triage([...healthy(), record(`A ${CAR}`, [objectError]), record(`B ${CAR}`, [objectError]), record(`C ${CAR}`, [objectError])], FACTS),
  ).toBeUndefined();
  expect(triage([record(`A ${TRIP}`, [framework(TRIP, 'full')]), record(`B ${TRIP}`, [framework(TRIP, 'full')])], FACTS)).toBeUndefined();
});

test('records without credentials (an older run) never make a route look not implemented', () => {
  const noCredential: Exchange = { ...framework(TRIP, 'full') };
  delete noCredential.credential;
  const t = triage(
    ['1', '2', '3'].map((n) => record(`T-${n} ${TRIP}`, [noCredential])),
    FACTS,
  );
  expect(t?.causes.map((k) => k.id) ?? []).not.toContain('not-implemented');
});

// ---------------------------------------------------------------------------------------------
// The renderings

function withTriage(): Certificate {
  const c = certificate(
    [requirement('RESP-STATUS', { class: 'profile' }), requirement('ERR-CAR', { class: 'profile' }), requirement('CORE-OK')],
    [
      check('RESP-STATUS', TRIP, 'failed', { failure: { check: `RESP-STATUS ${TRIP}`, expected: 'status 200', actual: 'status 404' } }),
      check('RESP-STATUS', STATS, 'failed', { failure: { check: `RESP-STATUS ${STATS}`, expected: 'status 200', actual: 'status 404' } }),
      check('ERR-CAR', CAR, 'failed', { failure: { check: `ERR-CAR ${CAR}`, expected: '404 PARAMETERS_ERROR', actual: 'status 500' } }),
      check('CORE-OK', ME, 'passed'),
    ],
  );
  return {
    ...c,
    triage: {
      failed: 3,
      explained: 2,
      causes: [
        {
          id: 'not-implemented',
          title: '2 routes answer a non-API 404 to every valid request (not implemented?)',
          explains: 2,
          checks: [`RESP-STATUS ${TRIP}`, `RESP-STATUS ${STATS}`],
          routes: [TRIP, STATS],
          example: {
            check: `RESP-STATUS ${TRIP}`,
            request: 'GET http://127.0.0.1:1/v3/trips/t1 -> 404',
            curl: `curl -sS -i 'http://127.0.0.1:1/v3/trips/t1' -H "Authorization: Bearer $VDS_TOKEN_FULL"`,
            body: '{"statusCode":404}',
          },
          fix: 'Implement these routes.',
        },
      ],
    },
  };
}

test('console: the failures start with the causes (a few lines each), then the other failures by requirement', () => {
  const out = renderConsole(withTriage(), '/tmp/reports');
  const lines = out.split('\n');
  const first = lines.findIndex((l) => l.startsWith('  Failed'));
  expect(lines[first]).toBe('  Failed: 3 checks; likely causes first (2 of them explained, each by one cause):');
  expect(lines[first + 1]).toBe('    ✘ 2 routes answer a non-API 404 to every valid request (not implemented?): 2 checks');
  expect(lines.slice(first + 2, first + 6)).toEqual([
    `        routes:  ${TRIP}, ${STATS}`,
    '        example: GET http://127.0.0.1:1/v3/trips/t1 -> 404 {"statusCode":404}',
    `                 curl -sS -i 'http://127.0.0.1:1/v3/trips/t1' -H "Authorization: Bearer $VDS_TOKEN_FULL"`,
    '        fix:     Implement these routes.',
  ]);
  expect(lines[first + 6]).toBe('  Other failures, by requirement:');
  expect(out).toContain(`ERR-CAR ${CAR}`);
  expect(out).not.toContain(`        RESP-STATUS ${TRIP}\n`); // explained: not repeated
  expect(out).toContain('  Requirements failed only by the causes above: RESP-STATUS');
  expect(out.trimEnd().split('\n').pop()).toBe('1 passed, 3 failed, 0 not run');
});

test("markdown and html: the triage first in the failures, each failing check still listed with its cause's number", () => {
  const md = renderMarkdown(withTriage());
  const failures = md.indexOf('## Failures');
  expect(md.indexOf('### Likely causes (triage)')).toBeGreaterThan(failures);
  expect(md.indexOf('### Likely causes (triage)')).toBeLessThan(md.indexOf('### ✘ RESP-STATUS'));
  expect(md).toContain('1. **2 routes answer a non-API 404 to every valid request (not implemented?)**: 2 failing checks');
  expect(md).toContain('   - reproduce: ` curl -sS -i \'http://127.0.0.1:1/v3/trips/t1\' -H "Authorization: Bearer $VDS_TOKEN_FULL" `');
  expect(md).toContain(`- \`RESP-STATUS ${TRIP}\` (likely cause 1)`);
  expect(md).toContain(`- \`ERR-CAR ${CAR}\`\n`);
  const html = renderHtml(withTriage());
  expect(html).toContain('<h3 id="triage">Likely causes (triage)</h3>');
  expect(html.indexOf('id="triage"')).toBeLessThan(html.indexOf('id="req-RESP-STATUS"'));
  expect(html).toContain('<a class="muted" href="#cause-1">likely cause 1</a>');
});

test('the triage changes no verdict, and a run without one renders as before', () => {
  const c = withTriage();
  const { triage: _, ...without } = c;
  expect(c.verdict).toEqual(without.verdict);
  expect(renderMarkdown(without as Certificate)).not.toContain('Likely causes');
  expect(renderConsole(without as Certificate, '/tmp/reports')).toContain('  Failed:\n');
});
