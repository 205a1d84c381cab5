// OAuth over real HTTP (listen on port 0, Playwright's request fixture, redirects followed by hand)
// and the token endpoint's documented errors.

import { expect, test } from '@playwright/test';
import type { FastifyInstance } from 'fastify';
import { buildReferenceApp } from '../../../reference-server/app';
import { basic, CLIENTS, expectErrorShape, firstError, Harness, NOW, REDIRECT_URI, USERS } from './helpers';

test.describe('the flow over HTTP', () => {
  let app: FastifyInstance;
  let base: string;
  test.beforeAll(async () => {
    app = await buildReferenceApp({ mode: 'cloud', now: () => new Date(NOW) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  test.afterAll(async () => app.close());

  test('GET the page, POST the form, follow the 302 by hand, exchange the code, call the API, refresh', async ({ request }) => {
    const state = 'st/ate?&=1 2';
    const page = await request.get(
      `${base}/v3/auth/auth?client_id=vds-conformance&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&scope=users_read+cars_read&state=${encodeURIComponent(state)}`,
    );
    expect(page.status()).toBe(200);
    expect(page.headers()['content-type']).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/v3/auth/auth">');
    expect(html).toMatch(/<label for="username">Email<\/label>\s*<input id="username" name="username" type="email"/);
    expect(html).toMatch(/<label for="password">Password<\/label>\s*<input id="password" name="password" type="password"/);
    expect(html).toContain('<button type="submit">Sign in</button>');
    const hidden = Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2].replace(/&amp;/g, '&')]),
    );
    expect(hidden).toEqual({ client_id: 'vds-conformance', redirect_uri: REDIRECT_URI, scope: 'users_read cars_read', state });

    const login = await request.post(`${base}/v3/auth/auth`, {
      form: { ...hidden, username: USERS.alice.email, password: USERS.alice.password },
      maxRedirects: 0,
    });
    expect(login.status()).toBe(302);
    const location = new URL(login.headers()['location']);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe(state);
    const code = location.searchParams.get('code')!;
    expect(code.length).toBeGreaterThanOrEqual(20);

    const tokenRes = await request.post(`${base}/v3/auth/access_token`, {
      form: { grant_type: 'authorization_code', code },
      headers: { authorization: basic('full') },
    });
    expect(tokenRes.status()).toBe(200);
    expect(tokenRes.headers()['content-type']).toBe('application/json; charset=utf-8');
    const token = await tokenRes.json();
    expect(Object.keys(token).sort()).toEqual(['access_token', 'expires_at', 'expires_in', 'refresh_token', 'token_type']);
    expect(token).toMatchObject({ expires_in: 3600, token_type: 'bearer', expires_at: Math.floor(NOW / 1000) + 3600 });
    expect(typeof token.access_token).toBe('string');

    const me = await request.get(`${base}/v3/users/me`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(me.status()).toBe(200);
    expect((await me.json()).id).toBe(101);
    // Only the requested scopes were granted.
    expect((await request.get(`${base}/v3/cars/5001/status`, { headers: { authorization: `Bearer ${token.access_token}` } })).status()).toBe(403);

    const refreshed = await request.post(`${base}/v3/auth/access_token`, {
      form: { grant_type: 'refresh_token', refresh_token: token.refresh_token },
      headers: { authorization: basic('full') },
    });
    expect(refreshed.status()).toBe(200);
    const second = await refreshed.json();
    expect(second.access_token).not.toBe(token.access_token);
    expect(second.refresh_token).not.toBe(token.refresh_token);
    expect((await request.get(`${base}/v3/users/me/cars`, { headers: { authorization: `Bearer ${second.access_token}` } })).status()).toBe(200);
    const reused = await request.post(`${base}/v3/auth/access_token`, {
      form: { grant_type: 'refresh_token', refresh_token: token.refresh_token },
      headers: { authorization: basic('full') },
    });
    expect(reused.status()).toBe(403);
    expect(await reused.json()).toEqual({ message: 'Invalid authentication' });
  });
});

test.describe('sign-in page', () => {
  let h: Harness;
  test.beforeEach(async () => {
    h = await Harness.start();
  });
  test.afterEach(async () => h.close());

  test('unknown or missing client_id, unregistered redirect_uri: 404 HTML', async () => {
    for (const url of [
      '/v3/auth/auth',
      '/v3/auth/auth?client_id=',
      '/v3/auth/auth?client_id=nobody',
      `/v3/auth/auth?client_id=vds-conformance&redirect_uri=${encodeURIComponent('http://localhost:9/other')}`,
    ]) {
      const res = await h.get(url);
      expect(res.status, url).toBe(404);
      expect(res.contentType).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('<html');
    }
    const post = await h.post('/v3/auth/auth', { form: { client_id: 'nobody', username: USERS.alice.email, password: USERS.alice.password } });
    expect(post.status).toBe(404);
    expect(post.contentType).toBe('text/html; charset=utf-8');
  });

  test('wrong credentials re-render the page with a visible error, 401', async () => {
    for (const [username, password] of [
      [USERS.alice.email, 'wrong'],
      ['nobody@reference.test', 'x'],
      [USERS.alice.email, USERS.bob.password],
      ['', ''],
    ]) {
      const res = await h.post('/v3/auth/auth', { form: { client_id: 'vds-conformance', username, password, state: 's1' } });
      expect(res.status).toBe(401);
      expect(res.contentType).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('role="alert">Wrong email or password<');
      expect(res.text).toContain('<input type="hidden" name="state" value="s1">');
    }
  });

  test('values are HTML-escaped', async () => {
    const res = await h.get(`/v3/auth/auth?client_id=vds-conformance&state=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('&quot;&gt;&lt;script&gt;');
  });

  test('the email is case-insensitive; no state means no state in the redirect; no redirect_uri means the registered one', async () => {
    const res = await h.post('/v3/auth/auth', { form: { client_id: 'vds-conformance', username: 'ALICE@Reference.Test', password: USERS.alice.password } });
    expect(res.status).toBe(302);
    const location = new URL(String(res.headers.location));
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect([...location.searchParams.keys()]).toEqual(['code']);
  });

  test('scopes: requested ∩ application scopes; none requested = all; an empty list = none; empty intersection allowed', async () => {
    const ids = { car: 5001 };
    const limitedAll = await h.token({ client: 'limited' });
    expect((await h.get('/v3/users/me', limitedAll)).status).toBe(200);
    expect((await h.get('/v3/users/me/cars', limitedAll)).status).toBe(200);
    expect((await h.get(`/v3/cars/${ids.car}/status`, limitedAll)).status).toBe(403);
    const intersect = await h.token({ client: 'limited', scope: 'cars_read status_read' });
    expect((await h.get('/v3/users/me/cars', intersect)).status).toBe(200);
    expect((await h.get('/v3/users/me', intersect)).status).toBe(403);
    const none = await h.token({ client: 'limited', scope: 'status_read' });
    expect((await h.get('/v3/users/me', none)).status).toBe(403);
    // A present but empty scope list requests no scope at all (not "all of them").
    const empty = await h.token({ scope: '' });
    expect((await h.get('/v3/users/me', empty)).status).toBe(403);
    expect((await h.get('/v3/users/me/cars', empty)).status).toBe(403);
    // %20 and + both separate scopes on the query string.
    const page = await h.get('/v3/auth/auth?client_id=vds-conformance&scope=users_read%20trips_read');
    expect(page.text).toContain('name="scope" value="users_read trips_read"');
  });
});

test.describe('token endpoint', () => {
  let h: Harness;
  test.beforeEach(async () => {
    h = await Harness.start();
  });
  test.afterEach(async () => h.close());

  const expectApiError = (res: Awaited<ReturnType<Harness['post']>>, status: number, type: string, message: string) => {
    expect({ status: res.status, type: firstError(res).type, message: firstError(res).message }, res.text).toEqual({ status, type, message });
    expectErrorShape(res);
  };

  test('client credentials: missing or wrong -> 401 AUTHENTICATION_ERROR, checked first', async () => {
    const code = await h.code();
    expectApiError(await h.exchange({ grant_type: 'authorization_code', code }, null), 401, 'AUTHENTICATION_ERROR', 'Client authentication is missing');
    expectApiError(await h.exchange({}, null), 401, 'AUTHENTICATION_ERROR', 'Client authentication is missing');
    const wrong = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });
    for (const headers of [
      wrong('vds-conformance', 'nope'),
      wrong('nobody', 'reference-client-secret'),
      wrong('vds-conformance', ''),
      { authorization: 'Basic !!!' },
    ]) {
      const res = await h.post('/v3/auth/access_token', { form: { grant_type: 'authorization_code', code }, headers });
      expectApiError(res, 401, 'AUTHENTICATION_ERROR', 'Invalid client credentials');
      expect(res.headers['www-authenticate']).toContain('Basic');
    }
    expectApiError(
      await h.post('/v3/auth/access_token', { form: { grant_type: 'authorization_code', code, client_id: 'vds-conformance', client_secret: 'bad' } }),
      401,
      'AUTHENTICATION_ERROR',
      'Invalid client credentials',
    );
    // The code was not consumed by the refused attempts.
    expect((await h.exchange({ grant_type: 'authorization_code', code })).status).toBe(200);
  });

  test('client credentials as form fields, body as JSON', async () => {
    const code = await h.code();
    const res = await h.post('/v3/auth/access_token', {
      form: { grant_type: 'authorization_code', code, client_id: CLIENTS.full.id, client_secret: CLIENTS.full.secret },
    });
    expect(res.status).toBe(200);
    const code2 = await h.code();
    const json = await h.post('/v3/auth/access_token', { json: { grant_type: 'authorization_code', code: code2 }, headers: { authorization: basic('full') } });
    expect(json.status).toBe(200);
    expect(json.json.token_type).toBe('bearer');
  });

  test('missing parameters -> 400 "Missing parameter"; unknown grant_type -> 400', async () => {
    const cases: Record<string, string>[] = [
      {},
      { grant_type: '' },
      { grant_type: 'authorization_code' },
      { grant_type: 'authorization_code', code: '' },
      { grant_type: 'refresh_token' },
      { code: 'abc' },
    ];
    for (const fields of cases) {
      expectApiError(await h.exchange(fields), 400, 'PARAMETERS_ERROR', 'Missing parameter');
    }
    expectApiError(await h.exchange({ grant_type: 'password', username: 'a', password: 'b' }), 400, 'PARAMETERS_ERROR', 'Unsupported grant type');
    expectApiError(
      await h.post('/v3/auth/access_token', { body: '{oops', headers: { 'content-type': 'application/json', authorization: basic('full') } }),
      400,
      'PARAMETERS_ERROR',
      'Malformed body',
    );
  });

  test('invalid, reused, expired or foreign codes and invalid refresh tokens -> 403 legacy body', async () => {
    const legacy = async (fields: Record<string, string>, client: 'full' | 'limited' = 'full') => {
      const res = await h.exchange(fields, client);
      expect(res.status, JSON.stringify(fields)).toBe(403);
      expect(res.json).toEqual({ message: 'Invalid authentication' });
      expect(res.contentType).toBe('application/json; charset=utf-8');
    };
    await legacy({ grant_type: 'authorization_code', code: 'not-a-code' });
    const once = await h.code();
    expect((await h.exchange({ grant_type: 'authorization_code', code: once })).status).toBe(200);
    await legacy({ grant_type: 'authorization_code', code: once });
    const foreign = await h.code({ client: 'limited' });
    await legacy({ grant_type: 'authorization_code', code: foreign }, 'full');
    const late = await h.code();
    h.clock.now += 60_000;
    await legacy({ grant_type: 'authorization_code', code: late });
    const fresh = await h.code();
    h.clock.now += 59_000;
    expect((await h.exchange({ grant_type: 'authorization_code', code: fresh })).status).toBe(200);
    const mismatch = await h.code({ redirectUri: REDIRECT_URI });
    await legacy({ grant_type: 'authorization_code', code: mismatch, redirect_uri: 'http://localhost:9/other' });
    await legacy({ grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' });
    const { refresh_token } = await h.tokenResponse({ client: 'limited' });
    await legacy({ grant_type: 'refresh_token', refresh_token }, 'full');
  });

  test('refresh keeps user and scopes; the old access token stays valid until it expires', async () => {
    const first = await h.tokenResponse({ user: 'bob', scope: 'users_read' });
    const second = (await h.exchange({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).json;
    expect((await h.get('/v3/users/me', second.access_token)).json.id).toBe(102);
    expect((await h.get('/v3/users/me/cars', second.access_token)).status).toBe(403);
    expect((await h.get('/v3/users/me', first.access_token)).status).toBe(200);
    expect((await h.exchange({ grant_type: 'refresh_token', refresh_token: second.refresh_token })).status).toBe(200);
  });
});

test.describe('control API', () => {
  test('reset forgets writes, pin failures and tokens; expire/revoke answer 404 for unknown tokens', async () => {
    const h = await Harness.start();
    try {
      const token = await h.alice();
      const created = await h.post('/v3/users/101/cars', { token, json: { make: 'Renault', model: 'Twingo' } });
      expect(created.status).toBe(201);
      expect((await h.post('/v3/devices/VDSREF0101/associate?carId=5003', { token })).status).toBe(204);
      for (let i = 0; i < 3; i++) expect((await h.post('/v3/devices/VDSREF0102/associate?pin=0000', { token })).status).toBe(400);
      expect((await h.post('/v3/devices/VDSREF0102/associate?pin=24680', { token })).status).toBe(403);

      expect((await h.post('/_control/reset')).status).toBe(204);
      expect((await h.get('/v3/users/me', token)).status).toBe(401);
      // The issued secrets are still listed after a reset, for the suite's secret scan.
      expect(((await h.get('/_control/issued')).json as { secrets: string[] }).secrets).toContain(token);
      h.forgetTokens();
      const fresh = await h.alice();
      expect((await h.get(`/v3/cars/${created.json.id}`, fresh)).status).toBe(404);
      expect(((await h.get('/v3/users/me/cars', fresh)).json as any[]).map((c) => c.id)).toEqual([5001, 5002, 5003, 5006]);
      expect((await h.get('/v3/cars/5003', fresh)).json.deviceId).toBeNull();
      expect((await h.post('/v3/devices/VDSREF0102/associate?pin=24680', { token: fresh })).status).toBe(204);
      // Created ids start again from the first one.
      expect((await h.post('/v3/users/101/cars', { token: fresh, json: { make: 'Renault', model: 'Twingo' } })).json.id).toBe(created.json.id);

      for (const path of ['/_control/tokens/expire', '/_control/tokens/revoke']) {
        const unknown = await h.post(path, { json: { token: 'nope' } });
        expect(unknown.status).toBe(404);
        expectErrorShape(unknown);
        expect((await h.post(path, { body: 'nope', headers: { 'content-type': 'application/json' } })).status).toBe(400);
        expect((await h.post(path, { json: { token: 42 } })).status).toBe(400);
      }
    } finally {
      await h.close();
    }
  });
});
