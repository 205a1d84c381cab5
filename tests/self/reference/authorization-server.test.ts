// Variant authorization-server-oidc: oidc-provider runs the sign-in page and the token endpoint, and
// its adapter (reference-server/auth/authorization-server.ts) meets the profile: the sign-in link read
// as the profile states it, the token answer's members, the errors' statuses and bodies; the resource
// routes and the control API take its tokens.

import { expect, test } from '@playwright/test';
import { signInRequest, tokenError } from '../../../reference-server/auth/authorization-server';
import { basic, Harness, REDIRECT_URI } from './helpers';

const VARIANT = 'authorization-server-oidc';

test.describe('the adapter, unit', () => {
  test('the sign-in link becomes an authorization request for code, with the scopes the application has', () => {
    const read = (search: string) => Object.fromEntries(new URLSearchParams(signInRequest(search)));
    expect(read('client_id=vds-conformance')).toMatchObject({ response_type: 'code', scope: expect.stringContaining('devices_management') });
    expect(read('client_id=vds-limited&scope=users_read%20devices_management').scope).toBe('users_read');
    // None of the application's scopes: an OpenID sign-in only, whose token has none of the API's.
    expect(read('client_id=vds-conformance&scope=').scope).toBe('openid');
    expect(read('client_id=vds-conformance&scope=no_such_scope').scope).toBe('openid');
    // An unknown client is left to the provider (it answers invalid_client: 404 here).
    expect(read('client_id=nobody&scope=x').scope).toBe('x');
  });

  test("oidc-provider's token errors get the profile's statuses and bodies", () => {
    expect(tokenError({ error: 'invalid_request', error_description: 'no client authentication mechanism provided' }, false)).toMatchObject({
      status: 401,
      body: [{ type: 'AUTHENTICATION_ERROR', message: 'Client authentication is missing' }],
    });
    expect(tokenError({ error: 'invalid_client', error_description: 'invalid secret provided' }, false)).toMatchObject({ status: 401 });
    expect(tokenError({ error: 'invalid_request', error_description: "missing required parameter 'code'" }, true)).toMatchObject({
      status: 400,
      body: [{ type: 'PARAMETERS_ERROR', message: 'Missing parameter' }],
    });
    expect(tokenError({ error: 'invalid_grant', error_description: 'authorization code already consumed' }, true)).toEqual({
      status: 403,
      body: { message: 'Invalid authentication' },
    });
    expect(tokenError({ error: 'unsupported_grant_type' }, true)).toMatchObject({ status: 400, body: [{ message: 'Unsupported grant type' }] });
  });
});

test.describe('the variant, in-process', () => {
  let h: Harness;
  test.beforeEach(async () => {
    h = await Harness.start({ variant: VARIANT });
  });
  test.afterEach(async () => {
    await h.close();
  });

  test('GET /auth/auth answers 200 with the login page; wrong password 401; an unknown client or redirect URI 404 HTML', async () => {
    const page = await h.get(`/v3/auth/auth?client_id=vds-conformance&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`);
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/html/);
    expect(page.text).toMatch(/<label for="password">/);
    for (const query of ['client_id=nobody', `client_id=vds-conformance&redirect_uri=${encodeURIComponent(`${REDIRECT_URI}/more`)}`]) {
      const res = await h.get(`/v3/auth/auth?${query}`);
      expect(res.status, query).toBe(404);
      expect(res.contentType, query).toMatch(/^text\/html/);
    }
    const wrong = await h.signIn({ password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.location).toBeNull();
  });

  test('consent is a step: stopped there no code, denied access_denied with the state, allowed the code and the state', async () => {
    const stopped = await h.signIn({ consent: 'stop', scope: 'users_read cars_read' });
    expect(stopped.status).toBe(200);
    expect(stopped.text).toContain('<li>cars_read</li>');
    const denied = await h.signIn({ consent: 'deny', state: 'd' });
    expect(denied.location?.searchParams.get('error')).toBe('access_denied');
    expect(denied.location?.searchParams.get('state')).toBe('d');
    const allowed = await h.signIn({ state: 'a' });
    expect(`${allowed.location?.origin}${allowed.location?.pathname}`).toBe(REDIRECT_URI);
    expect(allowed.location?.searchParams.get('code')).toBeTruthy();
    expect(allowed.location?.searchParams.get('state')).toBe('a');
  });

  test("the token answer is the profile's record; the API takes the token with its scopes and user", async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await h.tokenResponse({ scope: 'users_read status_read', user: 'bob' });
    // oidc-provider's Bearer: the profile's bearer (RFC 6749 5.1, case insensitive), passed on as it is.
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(typeof token.access_token).toBe('string');
    expect(typeof token.refresh_token).toBe('string');
    expect(token.expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(token.expires_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
    const me = await h.get('/v3/users/me', token.access_token);
    expect(me.json.id).toBe(102);
    expect((await h.get('/v3/users/me/cars', token.access_token)).status).toBe(403);
    // The restricted application gets only the scopes it has.
    const limited = await h.tokenResponse({ client: 'limited', scope: 'users_read devices_management' });
    expect((await h.post('/v3/devices/VDSREF0102/dissociate', { token: limited.access_token })).status).toBe(403);
  });

  test('refresh: new tokens, the old refresh token dies; codes are single use and bound to their application', async () => {
    const token = await h.tokenResponse({ scope: 'users_read' });
    const refreshed = await h.exchange({ grant_type: 'refresh_token', refresh_token: token.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).not.toBe(token.refresh_token);
    expect((await h.get('/v3/users/me', refreshed.json.access_token)).status).toBe(200);
    const again = await h.exchange({ grant_type: 'refresh_token', refresh_token: token.refresh_token });
    expect([again.status, again.json]).toEqual([403, { message: 'Invalid authentication' }]);

    const code = await h.code();
    const otherClient = await h.exchange({ grant_type: 'authorization_code', code }, 'limited');
    expect([otherClient.status, otherClient.json]).toEqual([403, { message: 'Invalid authentication' }]);
    const fresh = await h.code();
    expect((await h.exchange({ grant_type: 'authorization_code', code: fresh })).status).toBe(200);
    expect((await h.exchange({ grant_type: 'authorization_code', code: fresh })).status).toBe(403);
  });

  test('token endpoint errors: no client 401, wrong secret 401, missing parameter 400, password grant 400', async () => {
    const none = await h.exchange({ grant_type: 'authorization_code', code: 'x' }, null);
    expect([none.status, none.json[0].type]).toEqual([401, 'AUTHENTICATION_ERROR']);
    const wrong = await h.post('/v3/auth/access_token', {
      form: { grant_type: 'authorization_code', code: 'x' },
      headers: { authorization: `Basic ${Buffer.from('vds-conformance:wrong').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    expect((await h.exchange({ grant_type: 'authorization_code' })).json).toMatchObject([{ type: 'PARAMETERS_ERROR', message: 'Missing parameter' }]);
    expect((await h.exchange({ code: 'x' })).status).toBe(400);
    const password = await h.exchange({ grant_type: 'password', username: 'alice@reference.test', password: 'alice-password' });
    expect(password.status).toBe(400);
    expect(basic('full')).toMatch(/^Basic /);
  });

  test('the control API expires and revokes its tokens, lists them as issued, and reset forgets them', async () => {
    const expired = (await h.tokenResponse()).access_token as string;
    const revoked = (await h.tokenResponse()).access_token as string;
    expect((await h.post('/_control/tokens/expire', { json: { token: expired } })).status).toBe(204);
    expect((await h.post('/_control/tokens/revoke', { json: { token: revoked } })).status).toBe(204);
    expect((await h.get('/v3/users/me', expired)).json).toMatchObject([{ type: 'AUTHORIZATION_ERROR', message: 'Token has expired' }]);
    expect((await h.get('/v3/users/me', revoked)).json).toMatchObject([{ type: 'AUTHORIZATION_ERROR', message: 'Token has been revoked' }]);
    expect((await h.get('/_control/issued')).json.secrets).toEqual(expect.arrayContaining([expired, revoked]));
    expect((await h.post('/_control/reset')).status).toBe(204);
    expect((await h.get('/v3/users/me', expired)).json).toMatchObject([{ type: 'AUTHENTICATION_ERROR', message: 'Invalid token' }]);
  });
});
