// Test-control plumbing for the suite's speed: tokens minted without the sign-in page, and the
// latency option that makes the embedded reference answer like a remote server.

import { expect, test } from '@playwright/test';
import { buildReferenceApp } from '../../../reference-server/app';
import { firstError, Harness, NOW, SEED_IDS } from './helpers';

const mint = (h: Harness, body: unknown) => h.post('/_control/tokens/mint', { json: body });
const ALICE = 'alice@reference.test';

test.describe('POST /_control/tokens/mint', () => {
  let h: Harness;
  test.beforeEach(async () => {
    h = await Harness.start();
  });
  test.afterEach(async () => {
    await h.close();
  });

  test('200 with the token record; the requested scopes the application has are granted', async () => {
    const res = await mint(h, { clientId: 'vds-conformance', username: ALICE, scopes: ['users_read', 'no_such_scope'] });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json; charset=utf-8');
    expect(Object.keys(res.json).sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'refresh_token', 'token_type']);
    expect(res.json).toMatchObject({ expires_in: 3600, expires_at: Math.floor(NOW / 1000) + 3600, token_type: 'bearer' });
    const token = res.json.access_token as string;
    expect((await h.get('/v3/users/me', token)).json.id).toBe(SEED_IDS.alice);
    expect(firstError(await h.get('/v3/users/me/cars', token)).message).toBe('Token does not have the required scope');

    // The limited application cannot be given a scope it does not have; an empty list grants none.
    const limited = (await mint(h, { clientId: 'vds-limited', username: 'BOB@reference.test', scopes: ['cars_read', 'status_read'] })).json.access_token;
    expect((await h.get('/v3/users/me/cars', limited)).json.map((c: { id: number }) => c.id)).toEqual([SEED_IDS.bobCar, SEED_IDS.bobBareCar]);
    expect((await h.get(`/v3/cars/${SEED_IDS.bobCar}/status`, limited)).status).toBe(403);
    const none = (await mint(h, { clientId: 'vds-conformance', username: ALICE, scopes: [] })).json.access_token;
    expect((await h.get('/v3/users/me', none)).status).toBe(403);
  });

  test('scopes omitted: every scope of the application', async () => {
    const token = (await mint(h, { clientId: 'vds-conformance', username: ALICE })).json.access_token;
    for (const url of ['/v3/users/me', `/v3/cars/${SEED_IDS.aliceRichCar}/status`, `/v3/trips/${h.latestTrip(SEED_IDS.aliceRichCar)}/signals`]) {
      expect((await h.get(url, token)).status, url).toBe(200);
    }
    expect((await h.post('/v3/devices/VDSREF0101/associate?pin=1357', { token })).status).toBe(204);
  });

  test('issued through the same store: listed in /_control/issued, refreshable, expire and revoke work', async () => {
    const record = (await mint(h, { clientId: 'vds-conformance', username: ALICE })).json;
    const issued = (await h.get('/_control/issued')).json.secrets as string[];
    expect(issued).toEqual(expect.arrayContaining([record.access_token, record.refresh_token]));

    const refreshed = await h.exchange({ grant_type: 'refresh_token', refresh_token: record.refresh_token });
    expect(refreshed.status).toBe(200);

    expect((await h.post('/_control/tokens/expire', { json: { token: record.access_token } })).status).toBe(204);
    expect(firstError(await h.get('/v3/users/me', record.access_token)).message).toBe('Token has expired');
    const other = (await mint(h, { clientId: 'vds-conformance', username: ALICE })).json.access_token;
    expect((await h.post('/_control/tokens/revoke', { json: { token: other } })).status).toBe(204);
    expect(firstError(await h.get('/v3/users/me', other)).message).toBe('Token has been revoked');

    // A reset forgets minted tokens like the others.
    expect((await h.post('/_control/reset')).status).toBe(204);
    expect((await h.get('/v3/users/me', refreshed.json.access_token)).status).toBe(401);
  });

  test('400 with an error array for a bad body; 404 for an unknown client or user', async () => {
    const bad: unknown[] = [
      undefined,
      [],
      'text',
      {},
      { clientId: 'vds-conformance' },
      { clientId: 1, username: ALICE },
      { clientId: 'vds-conformance', username: ALICE, scopes: 'users_read' },
      { clientId: 'vds-conformance', username: ALICE, scopes: [1] },
    ];
    for (const body of bad) {
      const res = body === undefined ? await h.post('/_control/tokens/mint') : await mint(h, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(firstError(res).type).toBe('PARAMETERS_ERROR');
      expect(res.contentType).toBe('application/json; charset=utf-8');
    }
    const raw = await h.post('/_control/tokens/mint', { body: '{not json', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    const client = await mint(h, { clientId: 'nobody', username: ALICE });
    expect(client.status).toBe(404);
    expect(firstError(client).message).toBe('Client not found');
    const user = await mint(h, { clientId: 'vds-conformance', username: 'carol@reference.test' });
    expect(user.status).toBe(404);
    expect(firstError(user).message).toBe('User not found');
  });

  test('faults and variants of the sign-in page and the token endpoint do not apply', async () => {
    for (const [fault, variant] of [
      ['token-gets-all-app-scopes', undefined],
      ['token-expires-at-ms', 'empty-scope-as-absent'],
      ['error-body-object-not-array', 'extra-fields'],
      [undefined, 'token-clock-skew'],
      [undefined, 'error-array-two-elements'],
    ]) {
      const s = await Harness.start({ fault, variant });
      try {
        const label = `${fault} ${variant}`;
        const scoped = await mint(s, { clientId: 'vds-conformance', username: ALICE, scopes: ['users_read'] });
        expect(scoped.json.expires_at, label).toBe(Math.floor(NOW / 1000) + 3600);
        expect(scoped.json.vendorExtension, label).toBeUndefined();
        expect((await s.get('/v3/users/me/cars', scoped.json.access_token)).status, label).toBe(403);
        const empty = (await mint(s, { clientId: 'vds-conformance', username: ALICE, scopes: [] })).json.access_token;
        expect((await s.get('/v3/users/me', empty)).status, label).toBe(403);
        const error = await mint(s, {});
        expect(error.json, label).toEqual([expect.objectContaining({ type: 'PARAMETERS_ERROR' })]);
        expect(Object.keys(error.json[0]).sort(), label).toEqual(['message', 'tip', 'type']);
      } finally {
        await s.close();
      }
    }
  });
});

test.describe('POST /_control/codes/mint', () => {
  test("a single-use code the token endpoint exchanges for the application's scopes, with the redirect URI it was minted for", async () => {
    const h = await Harness.start();
    try {
      const res = await h.post('/_control/codes/mint', {
        json: { clientId: 'vds-conformance', username: ALICE, redirectUri: 'http://localhost:9/vds/callback' },
      });
      expect(res.status).toBe(200);
      const code = res.json.code as string;
      expect(code.length).toBeGreaterThan(10);
      const token = await h.exchange({ grant_type: 'authorization_code', code, redirect_uri: 'http://localhost:9/vds/callback' }, 'full');
      expect(token.status).toBe(200);
      expect((await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/status`, token.json.access_token)).status).toBe(200);
      expect((await h.exchange({ grant_type: 'authorization_code', code, redirect_uri: 'http://localhost:9/vds/callback' }, 'full')).status).toBe(403);
      // A code for some scopes only; bad bodies and unknown users as for tokens.
      const scoped = (await h.post('/_control/codes/mint', { json: { clientId: 'vds-conformance', username: ALICE, scopes: ['users_read'] } })).json.code;
      const limited = (await h.exchange({ grant_type: 'authorization_code', code: scoped }, 'full')).json.access_token;
      expect((await h.get('/v3/users/me/cars', limited)).status).toBe(403);
      expect((await h.post('/_control/codes/mint', { json: { clientId: 'vds-conformance' } })).status).toBe(400);
      expect((await h.post('/_control/codes/mint', { json: { clientId: 'vds-conformance', username: 'carol@reference.test' } })).status).toBe(404);
    } finally {
      await h.close();
    }
  });
});

test.describe('latency', () => {
  test('every request, API and control alike, is answered latencyMs late', async () => {
    const h = await Harness.start({ latencyMs: 300 });
    try {
      for (const [method, url] of [
        ['GET', '/v3/users/me'],
        ['GET', '/v3/nothing'],
        ['GET', '/v3/cars/%E0%A4%A'],
        ['GET', '/v3/auth/auth?client_id=vds-conformance'],
        ['GET', '/_control/issued'],
        ['POST', '/_control/tokens/mint'],
      ]) {
        const started = performance.now();
        const res = await h.request(method, url, method === 'POST' ? { json: { clientId: 'vds-conformance', username: ALICE } } : {});
        expect(performance.now() - started, url).toBeGreaterThanOrEqual(290);
        expect(res.status, url).toBeLessThan(500);
      }
    } finally {
      await h.close();
    }
  });

  test('routeLatencyMs delays one route only; an unknown route or a bad number is refused', async () => {
    const h = await Harness.start({ routeLatencyMs: { 'GET /cars/:carId/status': 250 } });
    try {
      const token = await h.alice();
      const time = async (url: string) => {
        const started = performance.now();
        expect((await h.get(url, token)).status, url).toBe(200);
        return performance.now() - started;
      };
      expect(await time('/v3/cars/5001/status')).toBeGreaterThanOrEqual(240);
      expect(await time('/v3/cars/5001')).toBeLessThan(200);
      expect(await time('/v3/users/me')).toBeLessThan(200);
    } finally {
      await h.close();
    }
    await expect(buildReferenceApp({ mode: 'cloud', routeLatencyMs: { 'GET /nowhere': 5 } as never })).rejects.toThrow(/unknown route 'GET \/nowhere'/);
    await expect(buildReferenceApp({ mode: 'cloud', routeLatencyMs: { 'GET /users/me': 1.5 } })).rejects.toThrow(/integer number of ms/);
  });

  test('a latency that is not a whole number of ms, 0 or more, is refused', async () => {
    for (const latencyMs of [-1, 1.5, Number.NaN]) {
      await expect(buildReferenceApp({ mode: 'cloud', latencyMs })).rejects.toThrow(/Invalid latencyMs/);
    }
    await (await buildReferenceApp({ mode: 'cloud', latencyMs: 0 })).close();
  });
});
