// The sign-in and the token endpoint reached another way than the profile writes: the token endpoint
// by GET (RFC 6749 § 3.2: POST only), a grant carrying what it does not take (a scope on the code
// grant, the other grant's credential, a parameter twice), and the user's password in a URL (a form
// sent by GET, or a sign-in link carrying it). Each must issue nothing: what another way reaches is
// what the documented way guards.
import {
  basicAuth,
  type CheckContext,
  expectError,
  expectStatus,
  fail,
  NotRun,
  openContext,
  SCOPES,
  show,
  signInForCheck,
  signInUrl,
  together,
  tokenRequest,
  type TokenRecord,
} from '../check-api';
import { codeForTokenEndpoint, codeGrant, expectTokenEndpointError, keepIssued, requireOauth, tokenOf, withBrowser } from './token-endpoint';

/** A code no server issued: beside a fresh one, a server must not choose between them. */
const NEVER_ISSUED = 'vds-conformance-never-issued-code';

/** Fails when the answer carries an access token: `what` says what was sent. */
function expectNoToken(ctx: CheckContext, res: Awaited<ReturnType<typeof tokenRequest>>, what: string): void {
  keepIssued(ctx, res);
  const body = res.json as Partial<TokenRecord> | undefined;
  if (typeof body?.access_token === 'string') {
    fail({ expected: `${what}: no token issued`, actual: `status ${res.status} with an access_token`, exchange: res.exchange });
  }
  if (res.status < 400) ctx.warn(`${what} answered ${res.status} (no access token): a refusal would be an error status`);
}

/**
 * "The client MUST use the HTTP POST method when making access token requests" (RFC 6749 § 3.2;
 * decision D-TOKEN-POST-ONLY): a GET carrying a fresh code's grant in its query, with the client's
 * credentials in HTTP Basic, issues no token, however it is refused.
 */
export async function tokenPostOnly(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const res = await ctx.api.get('/auth/access_token', {
    query: { grant_type: 'authorization_code', code, redirect_uri: o.redirectUri },
    authorization: basicAuth(ctx.target),
    route: 'POST /auth/access_token',
  });
  expectNoToken(ctx, res, 'GET /auth/access_token with the authorization_code grant in its query');
}

/**
 * A scope sent with the authorization_code grant never widens the token beyond the code's (decision
 * D-CODE-GRANT-SCOPE; RFC 6749 § 4.1.3 takes no scope there): a code for users_read and status_read,
 * exchanged with every scope asked for, is refused or gives a token still refused /users/me/cars. Where
 * that token reads them, a code of the same grant exchanged plainly tells whether the grant itself was
 * wider (SIGNIN-SCOPE-SUBSET's to judge, not run here).
 */
export async function tokenCodeNoWider(ctx: CheckContext): Promise<void> {
  const asked = 'users_read status_read';
  const { code } = await codeForTokenEndpoint(ctx, asked);
  const res = await tokenRequest(ctx.api, ctx.target, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: ctx.target.oauth?.redirectUri ?? '',
    scope: SCOPES.join(' '),
  });
  keepIssued(ctx, res);
  if (res.status >= 400) return;
  const widened = tokenOf(ctx, res, 'exchanging the code with every scope asked for');
  const cars = await ctx.call(ctx.catalogue.route('GET /users/me/cars'), { authorization: `Bearer ${widened.access_token}` });
  if (cars.status < 400) {
    const plain = await codeGrant(ctx, (await codeForTokenEndpoint(ctx, asked)).code);
    expectStatus(plain, 200, `exchanging a fresh code for ${asked}`);
    const limited = tokenOf(ctx, plain, `exchanging a fresh code for ${asked}`);
    const before = await ctx.call(ctx.catalogue.route('GET /users/me/cars'), { authorization: `Bearer ${limited.access_token}` });
    if (before.status < 400)
      throw new NotRun(
        `the token of a grant for ${asked} reads /users/me/cars without any scope asked at the token endpoint: SIGNIN-SCOPE-SUBSET judges the grant`,
      );
  }
  expectError(cars, { status: 403, type: 'AUTHORIZATION_ERROR', message: 'Token does not have the required scope', tip: 'names-scope', scope: 'cars_read' });
}

/**
 * A grant without its own credential is missing a parameter, whatever else it carries: a refresh grant
 * carrying a fresh code and no refresh_token, a code grant carrying a refresh token and no code, are
 * 400 PARAMETERS_ERROR "Missing parameter" (v3-profile.md § Token endpoint). A server with one lookup
 * for both kinds issues tokens instead.
 */
export async function tokenOtherGrantParam(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const [{ code }, { code: other }] = await together([codeForTokenEndpoint(ctx), codeForTokenEndpoint(ctx)]);
  const first = await codeGrant(ctx, other);
  expectStatus(first, 200, 'exchanging a fresh code');
  const refresh = tokenOf(ctx, first, 'exchanging a fresh code').refresh_token;
  const attempts: Array<{ what: string; form: Record<string, string> }> = [
    { what: 'grant_type=refresh_token carrying a fresh code and no refresh_token', form: { grant_type: 'refresh_token', code, redirect_uri: o.redirectUri } },
  ];
  if (typeof refresh === 'string' && refresh) {
    attempts.push({
      what: 'grant_type=authorization_code carrying a refresh token and no code',
      form: { grant_type: 'authorization_code', refresh_token: refresh, redirect_uri: o.redirectUri },
    });
  } else ctx.warn('the token record has no refresh_token: no code grant carrying one was sent (TOKEN-REFRESH judges it)');
  const answers = await together(attempts.map((a) => tokenRequest(ctx.api, ctx.target, a.form)));
  answers.forEach((res) => keepIssued(ctx, res));
  answers.forEach((res, i) => expectTokenEndpointError(res, { status: 400, type: 'PARAMETERS_ERROR', message: 'Missing parameter', why: attempts[i].what }));
}

/**
 * A parameter sent twice is refused (RFC 6749 § 3.2, § 5.2 invalid_request; decision D-REPEATED-PARAM):
 * the code twice, a fresh one and one never issued, in either order, issues no token. One fresh code
 * serves both orders, one after the other: a server that takes the last value spends it on the first
 * request, one that takes the first on the second, and a server that refuses both never spends it.
 */
export async function tokenRepeatedParam(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const body = (codes: string[]) =>
    [['grant_type', 'authorization_code'], ...codes.map((c) => ['code', c]), ['redirect_uri', o.redirectUri]]
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join('&');
  for (const [what, codes] of [
    ['code twice, one never issued then a fresh one', [NEVER_ISSUED, code]],
    ['code twice, a fresh one then one never issued', [code, NEVER_ISSUED]],
  ] as const) {
    const res = await ctx.api.post('/auth/access_token', {
      rawBody: body([...codes]),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      authorization: basicAuth(ctx.target),
      route: 'POST /auth/access_token',
    });
    expectNoToken(ctx, res, `a token request with ${what}`);
    if (res.status < 400) fail({ expected: `${what}: refused (an error status)`, actual: `status ${res.status}`, exchange: res.exchange });
  }
}

/**
 * The user's password never travels in a URL of the sign-in (RFC 9110 § 17.9; decision
 * D-PASSWORD-NOT-IN-URL): signing in on the page sends no request whose URL carries it (a form sent by
 * GET), and GET /auth/auth with the form's own fields in its query, the password among them, signs no
 * one in (no redirect to redirect_uri with a code).
 */
export async function signinPasswordNotInUrl(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const signed = await withBrowser(ctx, (b) => signInForCheck(ctx.run, b, ctx.target, { username: o.username, password: o.password, observe: true }));
  if (signed.code) ctx.redactor.add(signed.code);
  if (signed.passwordInUrl) {
    fail({
      expected: 'signing in on the page sends the password in a request body, never in a URL (which proxies, logs and the history keep)',
      actual: `the password as a parameter of ${ctx.redactor.redact(signed.passwordInUrl)}`,
    });
  }
  const names = { username: signed.fieldNames?.username || 'username', password: signed.fieldNames?.password || 'password' };
  const link = signInUrl(ctx.target, {
    client_id: o.clientId,
    redirect_uri: o.redirectUri,
    state: 'vds-credentials-in-query',
    [names.username]: o.username,
    [names.password]: o.password,
  });
  const redirected = await withBrowser(ctx, async (browser) => {
    const context = await openContext(browser, ctx.target);
    try {
      const page = await context.newPage();
      let to: string | undefined;
      page.on('request', (r) => {
        if (!to && r.isNavigationRequest() && r.url().startsWith(o.redirectUri)) to = r.url();
      });
      // Sent as an evaluated assignment, not page.goto: Playwright writes a goto's URL, the password in it,
      // into its reports' step titles. The navigation may end on the redirect_uri, which need not answer:
      // only where the browser went is read.
      const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 15_000 }).catch(() => undefined);
      await page.evaluate((url) => {
        window.location.href = url;
      }, link);
      await navigated;
      await page.waitForLoadState('load', { timeout: 5_000 }).catch(() => undefined);
      return to;
    } finally {
      await context.close();
    }
  });
  const code = redirected ? new URL(redirected).searchParams.get('code') : null;
  if (code) {
    ctx.redactor.add(code);
    fail({
      expected: `GET /auth/auth with the form's fields (${show(names.username)}, ${show(names.password)}) in its query signs no one in: the password is taken from a request body only`,
      actual: `a redirect to redirect_uri with a code (${ctx.redactor.redact(redirected!)})`,
    });
  }
}
