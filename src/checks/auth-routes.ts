// The two authentication routes: the sign-in web page (in a real browser, where a browser is the
// point) and the token endpoint (plain API requests).
import {
  basicAuth,
  type CheckContext,
  expectContract,
  expectError,
  expectJson,
  expectStatus,
  fail,
  findSignInForm,
  FORM_WAIT_MS,
  formProblem,
  knownSignInProblem,
  mediaType,
  NotApplicable,
  NotRun,
  openContext,
  openPage,
  pageText,
  rememberSignInProblem,
  show,
  signInForCheck,
  signInAttempt,
  signInRefused,
  signInUrl,
  statusMatches,
  together,
  type TokenRecord,
  tokenRequest,
  unreadable,
} from '../check-api';
import {
  afterRightSignIn,
  codeForTokenEndpoint,
  codeGrant,
  expectInvalidAuthentication,
  expectTokenEndpointError,
  freshCode,
  keepIssued,
  keepSecret,
  otherApplication,
  proveOtherApplication,
  refusedSignIn,
  requireOauth,
  tokenOf,
  withBrowser,
} from './token-endpoint';

// ---------------------------------------------------------------- the spec's two authentication routes

/**
 * "GET /auth/auth: The authentication web page" (vehicle-data-service-v3.md § Authentication routes):
 * asked with the application's client_id and redirect_uri (the profile's parameters), it answers a
 * web page. Read without a browser: what the page shows is the profile's (SIGNIN-PAGE).
 */
export async function coreSigninPage(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const res = await ctx.api.get('/auth/auth', {
    query: { client_id: o.clientId, redirect_uri: o.redirectUri },
    authorization: null,
    headers: { accept: 'text/html' },
    route: 'GET /auth/auth',
  });
  // client_id and redirect_uri are the profile's parameters (the spec shows none): refused, they are SIGNIN-PAGE's to judge.
  if (res.status >= 400 && res.status < 500)
    throw unreadable(`GET /auth/auth refused the profile's client_id and redirect_uri with ${res.status}`, 'SIGNIN-PAGE');
  // The spec states the page, not how many answers lead a browser to it: an authorization server
  // commonly sends the browser on to its login page at a URL of its own (3xx with a Location). What the
  // browser is then shown is SIGNIN-PAGE's (profile) to judge; here the route serves the sign-in.
  if (res.status >= 300 && res.status < 400 && res.headers.location) return;
  expectStatus(res, '2xx', 'the authentication web page (or a redirect to it)');
  if (mediaType(res.contentType) !== 'text/html') {
    fail({
      expected: 'a web page (content-type text/html)',
      actual: res.contentType ? `content-type ${show(res.contentType)}` : 'no content-type',
      exchange: res.exchange,
    });
  }
}

/**
 * "Sign-in is done by the user on a web page served at GET /auth/auth; the token is obtained from POST
 * /auth/access_token" (vehicle-data-service-v3.md § Authentication): the primary user signs in on the
 * page in the browser (where there is none, the control API's code stands for it). Signing in with the
 * right credentials answered with an error status is the spec's sign-in broken (a 5xx; a 4xx where the
 * fields were found by their labels or oauth.signInPage: signInRefused). A sign-in that ends otherwise
 * without a code is the profile's redirect to judge (SIGNIN-CODE-STATE): not run here.
 */
async function signedInCode(ctx: CheckContext): Promise<string> {
  if (!ctx.hasBrowser() && ctx.target.control && ctx.target.control.mintTokens !== false) return (await codeForTokenEndpoint(ctx)).code;
  const o = requireOauth(ctx);
  const signed = await withBrowser(ctx, (b) => signInForCheck(ctx.run, b, ctx.target, { username: o.username, password: o.password }));
  if (signed.code) {
    ctx.redactor.add(signed.code);
    return signed.code;
  }
  if (signInRefused(signed)) refusedSignIn(ctx, signed);
  throw unreadable(
    `signing in gave no code (${ctx.redactor.redact(signed.problem ?? 'a redirect without code')}): the redirect with a code is the profile's`,
    'SIGNIN-CODE-STATE',
  );
}

/**
 * "POST /auth/access_token: The access token endpoint": a sign-in's code exchanged there (the
 * profile's exchange) gives an access token that a protected route takes as its Bearer token.
 */
export async function coreTokenEndpoint(ctx: CheckContext): Promise<void> {
  const code = await signedInCode(ctx);
  const res = await codeGrant(ctx, code);
  // The grant (form, HTTP Basic, authorization_code) is the profile's: refused, it is TOKEN-CODE-GRANT's to judge.
  if (res.status >= 400 && res.status < 500)
    throw unreadable(`the token endpoint refused the profile's authorization_code grant with ${res.status}`, 'TOKEN-CODE-GRANT');
  expectStatus(res, '2xx', 'the access token endpoint answers a fresh code with a token');
  const token = keepSecret(ctx, expectJson(res, 'a JSON body carrying the access token'));
  if (typeof token?.access_token !== 'string' || !token.access_token) {
    throw unreadable("the answer has no access_token member (the profile's token record)", 'TOKEN-CODE-GRANT');
  }
  const me = await ctx.call(ctx.catalogue.route('GET /users/me'), { authorization: `Bearer ${token.access_token}` });
  // A token refused as expired at once: its lifetime is the profile's (expires_in), the spec shows none.
  if ((me.status === 401 || me.status === 403) && /expired/i.test(me.text.slice(0, 2000)))
    throw unreadable("the fresh access token was refused as expired (its lifetime is the profile's expires_in)", 'TOKEN-LIFETIME-KEPT');
  expectStatus(me, '2xx', 'the access token is taken by a protected route (GET /users/me)');
}

/**
 * "Users sign in on a web page run by the service" (vehicle-data-service-v3.md § What the service
 * does; § Authentication: "the token is obtained from POST /auth/access_token"): a user signs in with
 * their own credentials, so the second user's password, given for the primary user, does not sign the
 * primary user in. In the browser, the right password first: its code (the profile's redirect) is
 * exchanged (the profile's grant) and GET /users/me names the primary user, or the check is not run
 * (the sign-in checks judge a page that gives no code, TOKEN-CODE-GRANT an exchange refused). Then the
 * primary user's name with the second user's password: a code it may give, exchanged, must not give a
 * token that GET /users/me answers as the primary user. A refusal anywhere on that way keeps the spec.
 */
export async function coreSigninOtherPassword(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { otherUsername, otherPassword } = ctx.target.oauth ?? {};
  if (!otherUsername || !otherPassword) {
    const absent = [otherUsername ? '' : 'oauth.otherUsername', otherPassword ? '' : 'oauth.otherPassword'].filter(Boolean);
    throw new NotRun(`needs the second user's sign-in credentials: ${absent.join(', ')} in ${ctx.target.source}`, 'oauth.other');
  }
  if (otherPassword === o.password) throw new NotRun(`oauth.otherPassword is oauth.password in ${ctx.target.source}: give the second user's own password`);
  /** The user a code's token reads at GET /users/me: the exchange and the read, or why there is none. */
  const whoseCode = async (code: string) => {
    const grant = await codeGrant(ctx, code);
    keepIssued(ctx, grant);
    const token = (grant.json as Partial<TokenRecord> | undefined)?.access_token;
    if (grant.status >= 300 || typeof token !== 'string' || !token) return { grant };
    const me = await ctx.call(ctx.catalogue.route('GET /users/me'), { authorization: `Bearer ${token}` });
    const id = statusMatches(me.status, '2xx') ? (me.json as { id?: unknown } | undefined)?.id : undefined;
    return { grant, me, id: typeof id === 'number' || typeof id === 'string' ? String(id) : undefined };
  };
  await afterRightSignIn(ctx, async (rightCode, attempt) => {
    const primary = await whoseCode(rightCode);
    if (!primary.id) {
      throw unreadable(
        `the right password's code gave no token that reads GET /users/me (exchange ${primary.grant.status}${primary.me ? `, GET /users/me ${primary.me.status}` : ''})`,
        'TOKEN-CODE-GRANT',
      );
    }
    const wrong = await attempt(otherPassword);
    if (!wrong.code) return;
    ctx.redactor.add(wrong.code);
    const taken = await whoseCode(wrong.code);
    if (taken.id === primary.id) {
      fail({
        expected: "signing in as oauth.username with the second user's password (oauth.otherPassword) gives no access to the primary user's account",
        actual: `a redirect with a code, exchanged for a token that GET /users/me answers as the primary user (id ${taken.id})`,
        exchange: taken.me?.exchange,
      });
    }
  });
}

/**
 * "The cloud (production) environment requires the header" (vehicle-data-service-v3.md § Authentication):
 * a session the sign-in page leaves in the browser (a web dashboard's single sign-on cookie) is no
 * Authorization header. After one sign-in in the browser, each route of the requirement is asked
 * without the header, with the cookies that browser holds for its URL (those a browser would send
 * there: their domain, path and Secure flag match; none of another origin): a success means the API
 * took a cookie for the token the spec requires.
 */
export async function coreSigninCookieNotToken(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const judged = ctx.requirement.routes.map((r) => {
    const route = ctx.catalogue.route(r);
    const { path, query } = ctx.resolve(route);
    return { route, url: ctx.api.url(path, query) };
  });
  const signed = await withBrowser(ctx, (b) =>
    signInForCheck(ctx.run, b, ctx.target, { username: o.username, password: o.password, cookiesFor: judged.map((j) => j.url) }),
  );
  if (!signed.code) {
    throw new NotRun(`signing in with the right password gave no code (${ctx.redactor.redact(signed.problem ?? 'no redirect')}): the sign-in checks judge it`);
  }
  ctx.redactor.add(signed.code);
  const cookies = judged.map(({ url }) => signed.cookies?.[url] ?? '');
  for (const cookie of cookies) ctx.redactor.add(cookie, ...cookie.split('; ').map((c) => c.slice(c.indexOf('=') + 1)));
  // Sent together, each answer judged in order.
  const answers = await together(
    judged.map(({ route }, i) =>
      ctx.call(route, { authorization: null, ...(cookies[i] ? { headers: { cookie: cookies[i] } } : {}), credential: cookies[i] ? 'sign-in cookies' : 'none' }),
    ),
  );
  for (const [i, { route }] of judged.entries()) {
    const cookie = cookies[i];
    const res = answers[i];
    if (statusMatches(res.status, '2xx')) {
      fail({
        expected: `${route.route} without an Authorization header refused ("the cloud (production) environment requires the header"), whatever cookies the sign-in left the browser`,
        actual: `${res.status}: served ${cookie ? `with the ${cookie.split('; ').length} cookie(s) the browser holds for it after signing in (their values withheld)` : 'without a cookie'}`,
        exchange: res.exchange,
      });
    }
  }
}

/**
 * "Client applications never receive user passwords" (vehicle-data-service-v3.md § Authentication):
 * the token endpoint does not trade a user's password for a token (OAuth 2's password grant, RFC 6749
 * § 4.3, where the client application holds the password). Asked with the user's own credentials and
 * a valid client, it must answer no access token.
 */
export async function noPasswordGrant(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const res = await tokenRequest(ctx.api, ctx.target, { grant_type: 'password', username: o.username, password: o.password });
  const body = res.json as Partial<TokenRecord> | undefined;
  if (res.status < 300 && typeof body?.access_token === 'string') {
    keepSecret(ctx, body);
    fail({
      expected: "no token for a user's password: users sign in on the web page, never through the client application",
      actual: `status ${res.status} with an access_token`,
      exchange: res.exchange,
    });
  }
  if (res.status < 400) ctx.warn(`grant_type=password answered ${res.status} (no access token): a refusal would be an error status`);
}

// ---------------------------------------------------------------- the sign-in page

/**
 * The page answers 200 HTML with a form to sign in with, and signing in on it with the right
 * credentials is not answered with an error status. A page that shows no control at all fails; one
 * whose fields the suite cannot tell apart (signin-form.ts) is not run, naming oauth.signInPage, and
 * every other browser check of the run then skips at once (signin-page-state.ts).
 */
export async function signinPage(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  await withBrowser(ctx, async (browser) => {
    const context = await openContext(browser, ctx.target);
    try {
      const page = await context.newPage();
      const opened = await openPage(page, signInUrl(ctx.target, { client_id: o.clientId, redirect_uri: o.redirectUri, state: 'vds-page-check' }));
      if ('noAnswer' in opened) fail({ expected: 'GET /auth/auth answers 200 with the sign-in page', actual: `no answer (${opened.noAnswer})` });
      if (opened.status !== 200) fail({ expected: 'GET /auth/auth answers 200 with the sign-in page', actual: `status ${opened.status}` });
      const type = mediaType(opened.contentType);
      if (type !== 'text/html') fail({ expected: 'an HTML page (content-type text/html)', actual: `content-type ${show(type)}` });
      // Known from an earlier check: the same page, no second wait. Else a page may render its form
      // with a script after it loaded (a single-page application): it is awaited for FORM_WAIT_MS.
      const known = knownSignInProblem(ctx.run);
      const problem =
        known && known.kind !== 'layout-sign-in'
          ? known
          : await (async () => {
              const search = await findSignInForm(page, ctx.target);
              if (!('problem' in search)) return undefined;
              const found = formProblem(search.problem, ctx.target, await pageText(page));
              rememberSignInProblem(ctx.run, found);
              return found;
            })();
      if (problem?.kind === 'no-form') {
        fail({
          expected: 'the sign-in page shows a form to sign in with (a username field, a password field, a submit control)',
          actual: `no control on the page within ${FORM_WAIT_MS / 1000} s; the page shows: "${problem.pageText ?? ''}"`,
        });
      }
      if (problem) throw new NotRun(problem.reason);
    } finally {
      await context.close();
    }
  });
  // Signing in on it with the right credentials leads on: never an error status (signInRefused). A
  // sign-in the suite cannot go through (the page's limit, not the server's) leaves the form's judgement standing.
  const signed = await withBrowser(ctx, (b) => signInForCheck(ctx.run, b, ctx.target, { username: o.username, password: o.password })).catch((err: unknown) => {
    if (!(err instanceof NotRun)) throw err;
    ctx.warn(`signing in on the page was not judged: ${err.message}`);
    return undefined;
  });
  if (signed && signInRefused(signed)) refusedSignIn(ctx, signed);
}

/**
 * Redirect URIs that are not the registered one: another host, and two that only begin like it (a
 * longer path; the host with a suffix): matched as a prefix, each would hand codes to another site.
 */
function unregisteredRedirects(registered: string): Record<string, string> {
  const out: Record<string, string> = { 'another host': 'https://attacker.invalid/vds-conformance/callback' };
  out['a longer path'] = `${registered.replace(/\/$/, '')}/vds-conformance-extra`;
  try {
    const url = new URL(registered);
    if (url.hostname) {
      url.hostname = `${url.hostname}.vds-conformance.invalid`;
      out['the host with a suffix'] = url.toString();
    }
  } catch {
    // Not a URL with a host (a custom scheme): the other two still apply.
  }
  return out;
}

/** An unknown client_id or an unregistered redirect_uri: 404 with an HTML body. */
export async function signinRejects(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const variant = ctx.param<'unknown-client' | 'unregistered-redirect'>('variant');
  const cases: Record<string, Record<string, string>> = variant === 'unknown-client'
    ? { 'an unknown client_id': { client_id: 'vds-conformance-unknown-client', redirect_uri: o.redirectUri } }
    : Object.fromEntries(
        Object.entries(unregisteredRedirects(o.redirectUri)).map(([what, uri]) => [
          `a redirect_uri the application did not register (${what})`,
          { client_id: o.clientId, redirect_uri: uri },
        ]),
      );
  for (const [why, query] of Object.entries(cases)) {
    const res = await ctx.api.get('/auth/auth', { query, authorization: null, headers: { accept: 'text/html' }, route: 'GET /auth/auth' });
    expectStatus(res, 404, why);
    if (mediaType(res.contentType) !== 'text/html') {
      fail({ expected: 'an HTML body (content-type text/html)', actual: `content-type ${show(res.contentType)}`, exchange: res.exchange });
    }
  }
}

/** Where a forged sign-in form sends the code: a host that cannot exist (RFC 6761 .invalid), never the registered redirect_uri's. */
const FORGED_REDIRECT = 'https://attacker.invalid/vds-conformance/form-callback';

/**
 * The sign-in form's own redirect_uri (contracts/decisions.yaml D-SIGNIN-FORM-REDIRECT; RFC 6749
 * § 3.1.2.4, RFC 9700 § 4.1): the primary user signs in on the page opened for the registered
 * redirect_uri, the form's redirect_uri field written over with an unregistered URI before it is sent,
 * as a forged form would post it. The browser must not be sent there with a code; a refusal, or the
 * registered redirect_uri, is conforming. A form without such a field is not applicable.
 */
export async function signinFormRedirect(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const signed = await withBrowser(ctx, (b) =>
    signInAttempt(ctx.run, b, ctx.target, { username: o.username, password: o.password, formRedirectUri: FORGED_REDIRECT }),
  );
  if (signed.code) ctx.redactor.add(signed.code);
  const seen = signed.formRedirect;
  if (!seen?.field) throw new NotApplicable('the sign-in form has no redirect_uri field: the server keeps the redirect_uri of the sign-in link itself');
  if (!seen.reached) return;
  const code = new URL(seen.reached).searchParams.get('code');
  if (code) {
    ctx.redactor.add(code);
    fail({
      expected: `the sign-in form posted with its redirect_uri changed to ${FORGED_REDIRECT} (not registered) sends no code there`,
      actual: `the browser was sent to ${ctx.redactor.redact(seen.reached)}`,
    });
  }
  ctx.warn(`the form posted with an unregistered redirect_uri sent the browser there without a code: ${ctx.redactor.redact(seen.reached)}`);
}

/**
 * The state is opaque to the server, which hands it back exactly (RFC 6749 § 4.1.2). A client may
 * choose any printable ASCII (§ A.5, VSCHAR): this one holds the characters a query must
 * percent-encode (a space, '/', '?', '&', '=', '+', '#', '%', ':', an apostrophe), so a server that
 * writes it back raw, or decodes it twice, is seen.
 */
export async function signinCodeState(ctx: CheckContext): Promise<void> {
  const state = `vds state ${ctx.now().toString(36)} /?&x=1+2#3%41:'`;
  const result = await freshCode(ctx, undefined, state);
  if (result.state !== state)
    fail({ expected: `the redirect echoes state=${state}`, actual: result.state === undefined ? 'no state parameter' : `state=${show(result.state)}` });
}

/** The global a script carried by the state sets, if the page runs it. */
const STATE_SCRIPT_MARK = '__vdsStateScript';
/**
 * A state that closes a double- or single-quoted attribute and its element, then carries a script
 * and an image whose error runs one: printable ASCII only, as RFC 6749 § A.5 allows a state.
 */
const HOSTILE_STATE = `vds"'></textarea></script><script>window.${STATE_SCRIPT_MARK}=1</script><img src=x onerror="window.${STATE_SCRIPT_MARK}=1">`;

/**
 * The state written as data (contracts/decisions.yaml D-STATE-ESCAPED; RFC 6749 § 10.14: the server
 * "MUST sanitize ... the value of the state and redirect_uri parameters"): the sign-in page opened with
 * a state that closes an attribute and carries a script, in the browser, runs no script of it (seen
 * by the global the script sets, or a dialog). Refusing such a state is conforming.
 */
export async function signinStateEscaped(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const known = knownSignInProblem(ctx.run);
  if (known?.kind === 'no-form') throw new NotRun(known.reason);
  await withBrowser(ctx, async (browser) => {
    const context = await openContext(browser, ctx.target);
    try {
      const page = await context.newPage();
      let dialog = false;
      page.on('dialog', (d) => {
        dialog = true;
        void d.dismiss().catch(() => undefined);
      });
      const opened = await openPage(page, signInUrl(ctx.target, { client_id: o.clientId, redirect_uri: o.redirectUri, state: HOSTILE_STATE }));
      if ('noAnswer' in opened) throw new NotRun(`the sign-in page gave no answer (${opened.noAnswer}): SIGNIN-PAGE judges it`);
      if (opened.status >= 400) return;
      // A page that renders its form with a script after it loaded: its form is awaited before the page is read.
      await findSignInForm(page, ctx.target);
      const ran = await page.evaluate(`Boolean(window.${STATE_SCRIPT_MARK})`).catch(() => false);
      if (ran || dialog) {
        fail({
          expected: 'the sign-in page writes the state as data: a state that closes an attribute and carries a script runs nothing',
          actual: "the state's script ran on the sign-in page (a state closing the attribute with \"'> and carrying a script element and an image's onerror)",
        });
      }
    } finally {
      await context.close();
    }
  });
}

/** Without state: the browser goes to exactly redirect_uri, with a code and no state parameter. */
export async function signinRedirectExact(ctx: CheckContext): Promise<void> {
  const { redirectedTo } = await freshCode(ctx);
  const to = new URL(redirectedTo);
  const expected = new URL(requireOauth(ctx).redirectUri);
  const shown = ctx.redactor.redact(redirectedTo);
  if (to.origin !== expected.origin || to.pathname !== expected.pathname) {
    fail({ expected: `a redirect to exactly ${expected.href}`, actual: `a redirect to ${shown}` });
  }
  if (to.searchParams.has('state')) fail({ expected: 'no state parameter when the sign-in link carried none', actual: shown });
}

export async function signinScopeSubset(ctx: CheckContext): Promise<void> {
  // Two scopes, space-separated as the profile says: a server splitting on another character fails.
  const { code } = await freshCode(ctx, 'users_read status_read');
  const res = await codeGrant(ctx, code);
  expectStatus(res, 200, 'exchanging the code');
  const token = tokenOf(ctx, res, 'exchanging the code');
  const authorization = `Bearer ${token.access_token}`;
  // Two reads with the same token: nothing orders them (together, judged in this order).
  const [me, cars] = await together([
    ctx.call(ctx.catalogue.route('GET /users/me'), { authorization }),
    ctx.call(ctx.catalogue.route('GET /users/me/cars'), { authorization }),
  ]);
  expectStatus(me, 200, 'a users_read token reads /users/me');
  expectError(cars, { status: 403, type: 'AUTHORIZATION_ERROR', message: 'Token does not have the required scope', tip: 'names-scope', scope: 'cars_read' });
}

// ---------------------------------------------------------------- the token endpoint

export async function tokenCodeGrant(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const before = Math.floor(ctx.now() / 1000);
  const res = await codeGrant(ctx, code);
  const after = Math.ceil(ctx.now() / 1000);
  expectStatus(res, 200);
  // Neither document states the token answer's content type: a JSON body is what is checked.
  if (mediaType(res.contentType) !== 'application/json') ctx.warn(`the token record is labelled ${show(res.contentType)}, not application/json`);
  expectContract(res, 'token');
  const token = keepSecret(ctx, res.json);
  const expiresAt = token.expires_at!;
  const expiresIn = token.expires_in!;
  // "expires_at int (unix seconds)": a point in time, in seconds (not milliseconds), after the token was issued.
  if (!(expiresAt > before - UNIX_SECONDS_SLACK && expiresAt < UNIX_SECONDS_MAX)) {
    fail({
      expected: `expires_at in unix seconds, later than the token's issue (${before})`,
      actual: `expires_at ${expiresAt}`,
      pointer: '/expires_at',
      exchange: res.exchange,
    });
  }
  // That expires_at equals now + expires_in is an inference (a server clock may differ from ours).
  const slack = 120;
  if (expiresAt < before + expiresIn - slack || expiresAt > after + expiresIn + slack) {
    ctx.warn(`expires_at ${expiresAt} is not now + expires_in (${before + expiresIn} ± ${slack} s): the target's clock may differ from the suite's`);
  }
}

/** Clock difference tolerated for "after the token was issued" (a day: only the unit is judged). */
const UNIX_SECONDS_SLACK = 86_400;
/** 2100-01-01 in unix seconds: a larger expires_at is milliseconds, not seconds. */
const UNIX_SECONDS_MAX = 4_102_444_800;

/**
 * The decision only says a second exchange is "refused" (RFC 6749 § 4.1.2; its § 5.2 answers 400
 * invalid_grant, the profile's invalid code 403 with the legacy body): an error status and no token.
 */
export async function tokenCodeSingleUse(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'the first exchange of a fresh code');
  tokenOf(ctx, first, 'the first exchange of a fresh code');
  const second = await codeGrant(ctx, code);
  const body = second.json as Partial<TokenRecord> | undefined;
  if (typeof body?.access_token === 'string') keepSecret(ctx, body);
  if (second.status < 400 || typeof body?.access_token === 'string') {
    fail({
      expected: 'the second exchange of a code is refused (an error status, no token)',
      actual: `status ${second.status}${typeof body?.access_token === 'string' ? ' with an access_token' : ''}`,
      exchange: second.exchange,
    });
  }
}

/**
 * The same decision, the two exchanges sent together (RFC 6749 § 4.1.2: "If an authorization code is
 * used more than once, the authorization server MUST deny the request"): a server that marks the code
 * used only once its tokens are stored lets both through. At most one answer carries a token; both
 * refused (a server that revokes the code on a second use) is conforming too.
 */
export async function tokenCodeConcurrent(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const answers = await together([codeGrant(ctx, code), codeGrant(ctx, code)]);
  for (const res of answers) keepIssued(ctx, res);
  const issued = answers.filter((res) => typeof (res.json as Partial<TokenRecord> | undefined)?.access_token === 'string');
  if (issued.length > 1) {
    fail({
      expected: 'of two exchanges of one code sent together, at most one gets a token (the other is refused)',
      actual: `both answered with an access_token (statuses ${answers.map((r) => r.status).join(' and ')})`,
      exchange: issued[1].exchange,
    });
  }
  if (!issued.length)
    ctx.warn(`neither exchange of a fresh code got a token (statuses ${answers.map((r) => r.status).join(' and ')}): TOKEN-CODE-GRANT judges one alone`);
}

export async function tokenBadClient(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const res = await codeGrant(ctx, code, basicAuth(ctx.target, 'vds-conformance-wrong-secret'));
  expectTokenEndpointError(res, { status: 401, type: 'AUTHENTICATION_ERROR' });
}

export async function tokenNoClient(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  const res = await tokenRequest(ctx.api, ctx.target, { grant_type: 'authorization_code', code: 'vds-conformance-code' }, null);
  expectTokenEndpointError(res, { status: 401, type: 'AUTHENTICATION_ERROR' });
}

export async function tokenMissingParam(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  const forms: Array<Record<string, string>> = [{ code: 'vds-conformance-code' }, { grant_type: 'authorization_code' }, { grant_type: 'refresh_token' }];
  for (const form of forms) {
    const res = await tokenRequest(ctx.api, ctx.target, form);
    expectTokenEndpointError(res, { status: 400, type: 'PARAMETERS_ERROR', message: 'Missing parameter' });
  }
}

/**
 * A refresh grant never widens a token (RFC 6749 § 6: the new token's scope is the grant's): refreshed
 * from a grant for users_read and status_read, the new token reads /users/me and is refused
 * /users/me/cars for the missing cars_read.
 */
export async function tokenRefreshScopes(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx, 'users_read status_read');
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'exchanging a fresh code for users_read and status_read');
  const token = tokenOf(ctx, first, 'exchanging a fresh code for users_read and status_read');
  if (!token.refresh_token) throw new NotRun('the token record has no refresh_token (TOKEN-REFRESH judges it)');
  // The grant itself must be the limited one, or the refresh proves nothing (SIGNIN-SCOPE-SUBSET judges it).
  const before = await ctx.call(ctx.catalogue.route('GET /users/me/cars'), { authorization: `Bearer ${token.access_token}` });
  if (before.status < 400)
    throw new NotRun('the token of the grant for users_read and status_read already reads /users/me/cars: SIGNIN-SCOPE-SUBSET judges the grant');
  const res = await tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: token.refresh_token });
  expectStatus(res, 200, 'refreshing it');
  const refreshed = tokenOf(ctx, res, 'refreshing it');
  const authorization = `Bearer ${refreshed.access_token}`;
  expectStatus(await ctx.call(ctx.catalogue.route('GET /users/me'), { authorization }), 200, 'the refreshed token keeps users_read');
  const cars = await ctx.call(ctx.catalogue.route('GET /users/me/cars'), { authorization });
  expectError(cars, { status: 403, type: 'AUTHORIZATION_ERROR', message: 'Token does not have the required scope', tip: 'names-scope', scope: 'cars_read' });
}

export async function tokenRefresh(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'exchanging a fresh code');
  const token = tokenOf(ctx, first, 'exchanging a fresh code');
  if (!token.refresh_token) fail({ expected: 'a refresh_token in the token record', actual: 'none', exchange: first.exchange });
  const res = await tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: token.refresh_token });
  expectStatus(res, 200);
  expectContract(res, 'token');
  const refreshed = keepSecret(ctx, res.json);
  const me = await ctx.call(ctx.catalogue.route('GET /users/me'), { authorization: `Bearer ${refreshed.access_token}` });
  expectStatus(me, 200, 'the refreshed access token reads /users/me');
}

export async function tokenInvalidRefresh(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  expectInvalidAuthentication(await tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: 'vds-conformance-invalid-refresh-token' }));
}

export async function tokenInvalidCode(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  expectInvalidAuthentication(await codeGrant(ctx, 'vds-conformance-never-issued-code'));
}

/**
 * "codes exchanged naming another redirect_uri" (contracts/decisions.yaml D-CODE-REDIRECT-URI; RFC 6749
 * § 4.1.3: the server must "ensure that their values are identical"): one fresh code, issued for the
 * target's redirect_uri, is exchanged naming each near miss of it in turn (a longer path, the host
 * with a suffix, another host: the first is what a prefix match takes); each is refused as an invalid
 * code, 403 {"message": "Invalid authentication"} (§ 5.2 calls it invalid_grant). A server may burn the
 * code at the first refusal: the later forms are then refused all the same, never a false alarm.
 */
export async function tokenCodeRedirectUri(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const nearMisses = unregisteredRedirects(o.redirectUri);
  for (const what of ['a longer path', 'the host with a suffix', 'another host'].filter((w) => w in nearMisses)) {
    const res = await tokenRequest(ctx.api, ctx.target, { grant_type: 'authorization_code', code, redirect_uri: nearMisses[what] });
    keepIssued(ctx, res);
    if (typeof (res.json as Partial<TokenRecord> | undefined)?.access_token === 'string') {
      fail({
        expected: `a code issued for oauth.redirectUri, exchanged naming another redirect_uri (${what}), is refused`,
        actual: `status ${res.status} with an access_token`,
        exchange: res.exchange,
      });
    }
    expectInvalidAuthentication(res, `a code issued for oauth.redirectUri, exchanged naming another redirect_uri (${what})`);
  }
}

// ---------------------------------------------------------------- codes and refresh tokens of another application

/**
 * "codes and refresh tokens of another application" (v3-profile.md § Conflicts and decisions; RFC 6749
 * § 4.1.3: the code was issued to the authenticated client): a fresh code of the application
 * (oauth.clientId), presented with another registered application's credentials and the code's own
 * redirect_uri, is refused as invalid: 403 {"message": "Invalid authentication"}. Whether the code
 * stays usable by its own application afterwards is left open: it is not tried.
 */
export async function tokenCodeOtherApp(ctx: CheckContext): Promise<void> {
  const authorization = otherApplication(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const res = await codeGrant(ctx, code, authorization);
  keepIssued(ctx, res);
  await proveOtherApplication(ctx, res, authorization, {
    grant_type: 'authorization_code',
    code: 'vds-conformance-never-issued-code',
    redirect_uri: ctx.target.oauth?.redirectUri ?? '',
  });
  expectInvalidAuthentication(res, 'a code issued to oauth.clientId, presented with the credentials of oauth.restrictedClientId, is refused as invalid');
}

/**
 * The same for a refresh token (RFC 6749 § 6: the refresh token was issued to the authenticated
 * client): one issued to the application, presented with the other application's credentials, is
 * refused as invalid. What becomes of it afterwards is left open: it is not used again.
 */
export async function tokenRefreshOtherApp(ctx: CheckContext): Promise<void> {
  const authorization = otherApplication(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'exchanging a fresh code of oauth.clientId');
  const token = tokenOf(ctx, first, 'exchanging a fresh code of oauth.clientId');
  if (typeof token.refresh_token !== 'string' || !token.refresh_token) throw new NotRun('the token record has no refresh_token (TOKEN-REFRESH judges it)');
  const res = await tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: token.refresh_token }, authorization);
  keepIssued(ctx, res);
  await proveOtherApplication(ctx, res, authorization, { grant_type: 'refresh_token', refresh_token: 'vds-conformance-never-issued-refresh-token' });
  expectInvalidAuthentication(
    res,
    'a refresh token issued to oauth.clientId, presented with the credentials of oauth.restrictedClientId, is refused as invalid',
  );
}
