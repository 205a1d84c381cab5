// Authentication, scopes, access and the order of checks, on every protected route; both modes.

import { expect, test } from '@playwright/test';
import { expectErrorShape, firstError, Harness, Res, SEED_IDS } from './helpers';
import { ALL_SCOPES, routeCases } from './route-table';

const call = (h: Harness, method: string, url: string, token?: string, headers?: Record<string, string>, body?: unknown) =>
  h.request(method, url, { token, headers, json: body });

function expectError(res: Res, status: number, type: string, message: string): void {
  expect({ status: res.status, type: firstError(res).type, message: firstError(res).message }, res.text).toEqual({ status, type, message });
  expectErrorShape(res);
}

test.describe('cloud mode, every protected route', () => {
  let h: Harness;
  test.beforeEach(async () => {
    h = await Harness.start();
  });
  test.afterEach(async () => h.close());

  test('succeeds with a full token', async () => {
    const token = await h.alice();
    for (const route of routeCases(h)) {
      const res = await call(h, route.method, route.own, token, undefined, route.body);
      expect(res.status, `${route.key}: ${res.text}`).toBe(route.success);
      if (route.success === 204) expect(res.text).toBe('');
      else expect(res.contentType).toBe('application/json; charset=utf-8');
    }
  });

  test('401 without, with a malformed and with an unknown Authorization', async () => {
    for (const route of routeCases(h)) {
      for (const url of [route.own, route.unknown ?? route.own]) {
        expectError(await call(h, route.method, url), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing');
        for (const header of ['Basic YTpi', 'Bearer', 'Bearer   ', 'sometoken', 'Token abc', 'Bearer a b']) {
          expectError(await call(h, route.method, url, undefined, { authorization: header }), 401, 'AUTHENTICATION_ERROR', 'Authorization is malformed');
        }
        expectError(await call(h, route.method, url, 'no-such-token'), 401, 'AUTHENTICATION_ERROR', 'Invalid token');
      }
    }
  });

  test('the Bearer scheme is case-insensitive', async () => {
    const token = await h.alice();
    expect((await h.get('/v3/users/me', undefined, { authorization: `bearer ${token}` })).status).toBe(200);
    expect((await h.get('/v3/users/me', undefined, { authorization: `BEARER ${token}` })).status).toBe(200);
  });

  test('expired and revoked tokens: 403 before anything else', async () => {
    const expired = (await h.tokenResponse()).access_token;
    const revoked = (await h.tokenResponse()).access_token;
    expect((await h.post('/_control/tokens/expire', { json: { token: expired } })).status).toBe(204);
    expect((await h.post('/_control/tokens/revoke', { json: { token: revoked } })).status).toBe(204);
    for (const route of routeCases(h)) {
      for (const url of [route.own, route.unknown ?? route.own]) {
        expectError(await call(h, route.method, url, expired), 403, 'AUTHORIZATION_ERROR', 'Token has expired');
        expectError(await call(h, route.method, url, revoked), 403, 'AUTHORIZATION_ERROR', 'Token has been revoked');
      }
    }
  });

  test('a token expires after 3600 s on the clock', async () => {
    const token = await h.alice();
    h.clock.now += 3599_000;
    expect((await h.get('/v3/users/me', token)).status).toBe(200);
    h.clock.now += 1000;
    expectError(await h.get('/v3/users/me', token), 403, 'AUTHORIZATION_ERROR', 'Token has expired');
  });

  test('scope map: the required scopes suffice, each missing one gives 403 naming it', async () => {
    for (const route of routeCases(h)) {
      const exact = await h.token({ scope: route.scopes.join(' ') });
      const res = await call(h, route.method, route.own, exact, undefined, route.body);
      expect(res.status, `${route.key} with ${route.scopes.join(' ')}`).not.toBe(403);
      for (const missing of route.scopes) {
        const others = await h.token({ scope: ALL_SCOPES.filter((s) => s !== missing).join(' ') });
        for (const url of [route.own, route.unknown ?? route.own]) {
          const denied = await call(h, route.method, url, others, undefined, route.body);
          expectError(denied, 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope');
          expect(String(firstError(denied).tip)).toContain(missing);
        }
      }
    }
    // A token without any scope (empty intersection with the limited app) is refused everywhere.
    const none = await h.token({ client: 'limited', scope: 'devices_management' });
    for (const route of routeCases(h))
      expectError(await call(h, route.method, route.own, none), 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope');
  });

  test("another user's user, car and trip: 403 with the resource's message", async () => {
    const token = await h.alice();
    for (const route of routeCases(h).filter((r) => r.other)) {
      expectError(await call(h, route.method, route.other!, token, undefined, route.body), 403, 'AUTHORIZATION_ERROR', `Token can't access this ${route.kind}`);
    }
  });

  test('unknown ids: 404 with the resource message', async () => {
    const token = await h.alice();
    for (const route of routeCases(h)) {
      if (!route.unknown) continue;
      const res = await call(h, route.method, route.unknown, token, undefined, route.body);
      const message = route.kind === null ? 'Device not found' : `${route.kind[0].toUpperCase()}${route.kind.slice(1)} not found`;
      expectError(res, 404, 'PARAMETERS_ERROR', message);
    }
  });

  test('order of checks: 401, then scope 403, then 404, then access 403, then 400/416', async () => {
    const full = await h.alice();
    const limited = await h.token({ client: 'limited' });
    // unknown id + no token -> 401 (nothing leaks about ids)
    expectError(await h.get('/v3/cars/424242/locations?limit=-1'), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing');
    // unknown id + token without the scope -> scope 403
    expectError(await h.get('/v3/cars/424242/locations?limit=-1', limited), 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope');
    // unknown id + bad query -> 404
    expectError(await h.get('/v3/cars/424242/locations?limit=-1', full), 404, 'PARAMETERS_ERROR', 'Car not found');
    // another user's car + bad query -> access 403
    expectError(await h.get(`/v3/cars/${SEED_IDS.bobCar}/locations?limit=-1`, full), 403, 'AUTHORIZATION_ERROR', "Token can't access this car");
    expectError(await h.get(`/v3/cars/${SEED_IDS.bobCar}/trips?begin=garbage`, full), 403, 'AUTHORIZATION_ERROR', "Token can't access this car");
    // own car + bad query -> 400 / 416
    expectError(await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/locations?limit=-1`, full), 400, 'PARAMETERS_ERROR', "Limit can't be less than 0");
    expectError(
      await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/trips?begin=2026-03-10T00:00:00Z&end=2026-03-01T00:00:00Z`, full),
      416,
      'PARAMETERS_ERROR',
      'Range issue in dates',
    );
    // bad body on another user's car creation -> 403 first; no token -> 401 first
    expectError(
      await h.post(`/v3/users/${SEED_IDS.bob}/cars`, { token: full, body: '{not json', headers: { 'content-type': 'application/json' } }),
      403,
      'AUTHORIZATION_ERROR',
      "Token can't access this user",
    );
    expectError(
      await h.post(`/v3/users/${SEED_IDS.bob}/cars`, { body: '{not json', headers: { 'content-type': 'application/json' } }),
      401,
      'AUTHENTICATION_ERROR',
      'Authorization is missing',
    );
    // an expired token with the wrong scope: the token's state comes first
    const expired = (await h.tokenResponse({ client: 'limited' })).access_token;
    await h.post('/_control/tokens/expire', { json: { token: expired } });
    expectError(await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/status`, expired), 403, 'AUTHORIZATION_ERROR', 'Token has expired');
  });
});

test.describe('sandbox mode', () => {
  let h: Harness;
  test.beforeEach(async () => {
    h = await Harness.start({ mode: 'sandbox' });
  });
  test.afterEach(async () => h.close());

  test('read routes by id answer without a token and ignore any Authorization header', async () => {
    for (const route of routeCases(h).filter((r) => r.sandboxOpen)) {
      for (const headers of [{}, { authorization: 'Bearer not-a-token' }, { authorization: 'Basic abc' }] as Record<string, string>[]) {
        const res = await call(h, route.method, route.own, undefined, headers);
        expect(res.status, `${route.key} ${JSON.stringify(headers)}`).toBe(200);
      }
      // Other users' data too: the sandbox has no connected user.
      if (route.other) expect((await call(h, route.method, route.other)).status).toBe(200);
      if (route.unknown) expect((await call(h, route.method, route.unknown)).status).toBe(404);
    }
  });

  test('/users/me*, car creation and device routes still need a token', async () => {
    for (const route of routeCases(h).filter((r) => !r.sandboxOpen)) {
      expectError(await call(h, route.method, route.own, undefined, undefined, route.body), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing');
    }
    const token = await h.alice();
    for (const route of routeCases(h).filter((r) => !r.sandboxOpen)) {
      const res = await call(h, route.method, route.own, token, undefined, route.body);
      expect(res.status, route.key).toBe(route.success);
    }
  });

  test('query parameters are still validated', async () => {
    expectError(await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/locations?limit=-3`), 400, 'PARAMETERS_ERROR', "Limit can't be less than 0");
    expectError(await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/signals?name=Nope`), 400, 'PARAMETERS_ERROR', 'Wrong signal name');
  });
});
