// OAuth 2 authorization-code flow (profile: "Sign-in page" and "Token endpoint"):
// GET /auth/auth shows the sign-in form, POST /auth/auth checks the credentials and redirects with a
// single-use code (60 s), POST /auth/access_token exchanges a code or a refresh token for tokens.
// Variants put pages in between, as real authorization servers do: the e-mail first and the password
// on a second page (signin-two-step), and after the password a page where the user allows the
// application (signin-consent-page) or only goes on (signin-continue-page): POST /auth/consent.
// Others reproduce the pages of deployed authorization servers: Keycloak's login page, its session
// in a cookie and its form posting to login-actions/authenticate (signin-keycloak), and a cookie
// banner over every page (signin-cookie-banner).

import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import type { User } from '../data/types';
import { parseFields, rawBody } from '../http/body';
import { ApiError, internalError, LegacyError, parametersError } from '../http/errors';
import { extraMembers } from '../http/extension';
import { asQuery } from '../http/params';
import { Application, findApplication, Scope, SCOPES, secretOf } from './clients';
import { framingHeaders } from './framing';
import { HONEYPOT_FIELD, renderConsentPage, renderErrorPage, renderPasswordStep, renderSignInPage } from './signin-page';
import { cookies, SSO_COOKIE } from '../http/cookies';
import { first, type SignInRequest } from './signin-request';
import { vendorFlows } from './vendor-flows';
import { cookieBanner, renderKeycloakError, renderKeycloakLogin } from './vendor-pages';
import { IssuedTokens, tokenRecord } from './tokens';

/** The requested scopes the application has (v3-profile.md § Sign-in page); undefined requests all of them. */
export function scopesOf(app: Application, requested: readonly string[] | undefined): Scope[] {
  return requested === undefined ? [...app.scopes] : app.scopes.filter((s) => requested.includes(s));
}

/**
 * The scopes a token gets from the sign-in page's scope parameter.
 * No scope parameter means all of them; a present but empty list requests none.
 */
function grantedScopes(app: Application, requested: string | undefined, ctx: AppContext): Scope[] {
  const { faults, variants } = ctx;
  // fault token-gets-all-app-scopes: the scope parameter is never read.
  if (faults.has('token-gets-all-app-scopes') || requested === undefined) return scopesOf(app, undefined);
  // variant empty-scope-as-absent: an empty value read like a missing parameter (the profile does not define it).
  if (requested.trim() === '') return variants.has('empty-scope-as-absent') ? scopesOf(app, undefined) : [];
  // fault signin-long-scope-all-scopes: a scope list longer than its 64-character column is not stored: the application's default (all) stands.
  if (faults.has('signin-long-scope-all-scopes') && requested.length > 64) return scopesOf(app, undefined);
  // Space-separated (a literal '+' is accepted too); fault scope-split-on-comma: the wrong separator.
  const asked = faults.has('scope-split-on-comma') ? requested.split(',') : requested.split(/[\s+]+/);
  // fault scope-not-restricted-to-app: the request is checked against every scope, not the application's.
  if (faults.has('scope-not-restricted-to-app')) return SCOPES.filter((s) => asked.includes(s));
  return scopesOf(app, asked);
}

/** The redirect URI with one more '/' at the end of its path (fault redirect-uri-trailing-slash). */
function withTrailingSlash(uri: string): string {
  const end = uri.search(/[?#]/);
  return end < 0 ? `${uri}/` : `${uri.slice(0, end)}/${uri.slice(end)}`;
}

/** Variant signin-keycloak: Keycloak's parameters on the redirect besides the code and the state (OpenID's session_state, RFC 9207's iss). */
interface KeycloakRedirect {
  sessionState: string;
  issuer: string;
}

/** Variant signin-keycloak: the authentication session the login page's cookie names. */
interface KeycloakSession {
  req: SignInRequest;
  app: Application;
  redirectUri: string;
  tabId: string;
  /** The session code of the form's action: a new one each time the page is shown again. */
  code: string;
  execution: string;
  csrf: string;
}

/** Variant signin-keycloak: the cookie that carries the authentication session (Keycloak's AUTH_SESSION_ID). */
const KEYCLOAK_SESSION_COOKIE = 'AUTH_SESSION_ID';

/** Variant token-answer-keycloak: the members Keycloak's token endpoint answers besides the profile's, and its token_type. */
function keycloakMembers(issued: IssuedTokens): Record<string, unknown> {
  return {
    token_type: 'Bearer',
    refresh_expires_in: 1800,
    'not-before-policy': 0,
    session_state: randomUUID(),
    scope: ['profile', 'email', ...issued.access.scopes].join(' '),
  };
}

/** `formDecoded`: RFC 6749 2.3.1's form read back (false: fault client-basic-raw-only, the parts taken as they come). */
function parseBasic(header: string | undefined, formDecoded = true): { id: string; secret: string } | 'malformed' | undefined {
  if (header === undefined) return undefined;
  const match = /^basic +(\S+) *$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  // RFC 6749 2.3.1: both parts are form-urlencoded before base64.
  const unescape = (s: string) => {
    if (!formDecoded) return s;
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
}

/** Fault blind-code-exchange-race: how long persisting the issued tokens takes (a remote store). */
const TOKEN_WRITE_MS = 250;

export function oauthRoutes(ctx: AppContext) {
  const { faults, variants, store, tokens } = ctx;

  /** How the page is built, as the variants of the sign-in page say (two steps: the e-mail page has its own form). */
  function pageVariants() {
    const twoStep = variants.has('signin-two-step');
    // fault signin-form-get: the form sends its fields as a query.
    const formMethod = faults.has('signin-form-get') ? ('get' as const) : undefined;
    return { scripted: variants.has('signin-form-scripted'), unlabelled: !twoStep && variants.has('signin-form-unlabelled'), twoStep, formMethod };
  }

  /** Variant signin-csrf-cookie: the cookie that the form's CSRF field must match. */
  const CSRF_COOKIE = 'vds_csrf';

  /** Variant signin-lockout: a user's failed passwords in a row, and until when (epoch ms) their sign-in is locked. */
  const lockouts = new Map<number, { failures: number; until: number }>();
  const LOCK_AFTER_FAILURES = 3;
  const LOCK_MS = 2 * 60_000;

  /** A sign-in waiting on the page after the password (consent or continue): the ticket its form carries. */
  interface Pending {
    app: Application;
    userId: number;
    userName: string;
    req: SignInRequest;
    redirectUri: string;
    keycloak?: KeycloakRedirect;
  }
  const pending = new Map<string, Pending>();

  function sendHtml(reply: FastifyReply, status: number, html: string): FastifyReply {
    // fault signin-page-text-plain: the page string sent without a content type.
    const type = faults.has('signin-page-text-plain') && status === 200 ? 'text/plain; charset=utf-8' : 'text/html; charset=utf-8';
    // variant signin-cookie-banner: a consent manager's banner over every page, until a choice is made.
    const shown = variants.has('signin-cookie-banner') ? html.replace('</body>', `${cookieBanner()}\n</body>`) : html;
    return reply.code(status).type(type).header('cache-control', 'no-store').headers(framingHeaders(variants, faults)).send(shown);
  }

  // variant signin-keycloak: the authentication sessions of the login page, by their cookie.
  const keycloakSessions = new Map<string, KeycloakSession>();
  const newId = () => randomBytes(12).toString('base64url');

  /** Keycloak's login page, in a new authentication session (its cookie set), or again with an error. */
  function showKeycloak(reply: FastifyReply, sessionId: string, session: KeycloakSession, status: number, username?: string, error?: string) {
    session.code = newId();
    const action = `login-actions/authenticate?${new URLSearchParams({ session_code: session.code, execution: session.execution, client_id: session.app.clientId, tab_id: session.tabId }).toString()}`;
    const params = Object.fromEntries(
      Object.entries({ client_id: session.req.clientId, redirect_uri: session.req.redirectUri, scope: session.req.scope, state: session.req.state }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    reply.header('set-cookie', [
      `${KEYCLOAK_SESSION_COOKIE}=${sessionId}; Path=/v3/auth/; HttpOnly; SameSite=Lax`,
      `KC_RESTART=${newId()}; Path=/v3/auth/; HttpOnly; SameSite=Lax`,
    ]);
    return sendHtml(
      reply,
      status,
      renderKeycloakLogin({ action, csrf: session.csrf, applicationName: session.app.name, signInParams: params, username, error }),
    );
  }

  /** POST login-actions/authenticate: the session its cookie names, its current session code and CSRF field, then the credentials. */
  function keycloakAuthenticate(request: FastifyRequest, reply: FastifyReply) {
    const q = asQuery(request.query);
    const { fields } = parseFields(request.body, request.headers['content-type']);
    const sessionId = cookies(request)[KEYCLOAK_SESSION_COOKIE];
    const session = sessionId === undefined ? undefined : keycloakSessions.get(sessionId);
    if (!sessionId || !session) return sendHtml(reply, 400, renderKeycloakError('Cookie not found. Please make sure cookies are enabled in your browser.'));
    if (first(q, 'session_code') !== session.code || first(q, 'tab_id') !== session.tabId || fields.csrf_token !== session.csrf)
      return sendHtml(reply, 400, renderKeycloakError('Action expired. Please continue with login now.'));
    const login = fields.username ?? '';
    const user = store.userByEmail(login);
    if (!user || user.password !== fields.password) return showKeycloak(reply, sessionId, session, 200, login, 'Invalid username or password.');
    keycloakSessions.delete(sessionId);
    const host = request.headers.host ?? 'localhost';
    return signedIn(reply, session.app, user, session.req, session.redirectUri, {
      sessionState: randomUUID(),
      issuer: `${request.protocol}://${host}/v3/auth/realms/vds`,
    });
  }

  /** The application and the redirect URI, or the 404 page. */
  type Resolved = { ok: true; app: Application | null; redirectUri: string } | { ok: false; reply: FastifyReply };

  function resolveClient(req: SignInRequest, reply: FastifyReply, allowUnknownClient: boolean, checkRedirectUri = true): Resolved {
    const app = findApplication(req.clientId);
    if (!app) {
      if (allowUnknownClient) return { ok: true, app: null, redirectUri: req.redirectUri ?? '' };
      return {
        ok: false,
        reply: sendHtml(reply, 404, renderErrorPage('Unknown application', 'The client_id of this sign-in link is not a registered application.')),
      };
    }
    // fault signin-redirect-uri-not-checked: any redirect_uri is trusted.
    // fault redirect-uri-prefix-match: a redirect_uri is accepted when it begins with a registered one.
    const asked = req.redirectUri;
    const registered =
      asked !== undefined && (faults.has('redirect-uri-prefix-match') ? app.redirectUris.some((u) => asked.startsWith(u)) : app.redirectUris.includes(asked));
    if (req.redirectUri !== undefined && !registered && !faults.has('signin-redirect-uri-not-checked') && checkRedirectUri) {
      return {
        ok: false,
        reply: sendHtml(reply, 404, renderErrorPage('Unknown redirect URI', 'The redirect_uri of this sign-in link is not registered for this application.')),
      };
    }
    return { ok: true, app, redirectUri: req.redirectUri ?? app.redirectUris[0] };
  }

  function showPage(request: FastifyRequest, reply: FastifyReply) {
    const q = asQuery(request.query);
    const req: SignInRequest = { clientId: first(q, 'client_id'), redirectUri: first(q, 'redirect_uri'), scope: first(q, 'scope'), state: first(q, 'state') };
    // fault signin-unknown-client-200: the page is shown before the client is looked up.
    const resolved = resolveClient(req, reply, faults.has('signin-unknown-client-200'));
    if (!resolved.ok) return resolved.reply;
    // variant signin-page-redirected: the browser is sent to the login page at a URL of its own, as
    // authorization servers do (the same route here, marked login=1), which answers the page.
    if (variants.has('signin-page-redirected') && first(q, 'login') !== '1') {
      const query = new URLSearchParams(Object.entries(q).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : v === undefined ? [] : [[k, v]])));
      query.set('login', '1');
      return reply.code(303).header('location', `auth?${query.toString()}`).header('cache-control', 'no-store').send();
    }
    // fault signin-page-no-form: a maintenance notice left in place of the form.
    if (faults.has('signin-page-no-form')) return sendHtml(reply, 200, renderErrorPage('Sign in', 'Signing in is not available at the moment.'));
    // variants signin-ory, signin-authentik, signin-okta: into that server's own sign-in flow (for a registered client).
    const vendor = resolved.app ? flows.start(reply, req, resolved.app, resolved.redirectUri) : undefined;
    if (vendor) return vendor;
    // variant signin-keycloak: Keycloak's login page, in an authentication session of its own (for a registered client).
    if (variants.has('signin-keycloak') && resolved.app) {
      const sessionId = `${randomUUID()}.vds-node-1`;
      const session: KeycloakSession = {
        req,
        app: resolved.app,
        redirectUri: resolved.redirectUri,
        tabId: newId().slice(0, 11),
        code: '',
        execution: randomUUID(),
        csrf: newId(),
      };
      keycloakSessions.set(sessionId, session);
      return showKeycloak(reply, sessionId, session, 200);
    }
    // fault signin-form-get: the form's query signs in; fault signin-credentials-from-query: a legacy sign-in link does.
    if ((faults.has('signin-form-get') || faults.has('signin-credentials-from-query')) && first(q, 'password') !== undefined) {
      return signIn(request, reply, Object.fromEntries(Object.keys(q).map((k) => [k, first(q, k) ?? ''])));
    }
    // variant signin-csrf-cookie: a CSRF field in the form, matched to a cookie set with the page.
    const csrf = variants.has('signin-csrf-cookie') ? newId() : undefined;
    if (csrf) reply.header('set-cookie', `${CSRF_COOKIE}=${csrf}; Path=/v3/auth; HttpOnly; SameSite=Lax`);
    return sendHtml(
      reply,
      200,
      renderSignInPage({
        applicationName: resolved.app?.name ?? req.clientId ?? 'An application',
        clientId: req.clientId ?? '',
        redirectUri: req.redirectUri,
        scope: req.scope,
        state: req.state,
        csrf,
        // fault blind-signin-state-xss: the state written into the page by a raw interpolation.
        rawState: faults.has('blind-signin-state-xss'),
        ...pageVariants(),
      }),
    );
  }

  function signIn(request: FastifyRequest, reply: FastifyReply, given?: Record<string, string>) {
    const fields = given ?? parseFields(request.body, request.headers['content-type']).fields;
    // variant signin-csrf-cookie: the form's CSRF field must match the page's cookie.
    if (variants.has('signin-csrf-cookie') && (!fields.csrf_token || fields.csrf_token !== cookies(request)[CSRF_COOKIE])) {
      return sendHtml(reply, 403, renderErrorPage('Forbidden', 'Invalid CSRF token: go back, reload the page and sign in again.'));
    }
    // fault signin-csrf-field-missing: the POST demands a CSRF token the page no longer renders.
    if (faults.has('signin-csrf-field-missing') && fields.csrf_token === undefined) {
      return sendHtml(reply, 403, renderErrorPage('Forbidden', 'Invalid CSRF token: go back, reload the page and sign in again.'));
    }
    const req: SignInRequest = { clientId: fields.client_id, redirectUri: fields.redirect_uri, scope: fields.scope, state: fields.state };
    // fault blind-signin-post-redirect-unchecked: the form's hidden redirect_uri is trusted, as GET /auth/auth checked it when it rendered the form.
    const resolved = resolveClient(req, reply, false, !faults.has('blind-signin-post-redirect-unchecked'));
    if (!resolved.ok) return resolved.reply;
    const app = resolved.app as Application; // never null: unknown clients are refused here
    const { unlabelled, twoStep } = pageVariants();
    // variant signin-form-unlabelled: its own field names, and a field only bots fill.
    const username = unlabelled ? fields.login : fields.username;
    const bot = unlabelled && Boolean(fields[HONEYPOT_FIELD]);
    const shown = {
      applicationName: app.name,
      clientId: app.clientId,
      redirectUri: req.redirectUri,
      scope: req.scope,
      state: req.state,
      csrf: fields.csrf_token,
    };
    // variant signin-two-step: the e-mail alone, then its password on a page of its own.
    if (twoStep && fields.password === undefined && username) return sendHtml(reply, 200, renderPasswordStep({ ...shown, username }));
    // fault signin-banner-form-dead: behind the cookie banner, the form's submission shows the page again, silently.
    if (faults.has('signin-banner-form-dead')) return sendHtml(reply, 200, renderSignInPage({ ...shown, ...pageVariants() }));
    const user = username === undefined || bot ? undefined : store.userByEmail(username);
    // variant signin-lockout: a user whose password was wrong three times in a row is locked two minutes, whatever is typed.
    const lock = user && variants.has('signin-lockout') ? lockouts.get(user.id) : undefined;
    if (lock && lock.until > Date.now()) {
      const html = renderSignInPage({ ...shown, username, error: 'Too many failed attempts: this account is locked for a few minutes', ...pageVariants() });
      return sendHtml(reply, 401, html);
    }
    // fault password-first-8-chars: the password checked as DES crypt does, on its first 8 characters.
    const passwordMatches = (stored: string, given: string | undefined) =>
      faults.has('password-first-8-chars') ? given !== undefined && stored.slice(0, 8) === given.slice(0, 8) : stored === given;
    // fault signin-any-users-password: the password looked up among every user's, not the named user's.
    const passwordTaken = (given: string | undefined) =>
      faults.has('signin-any-users-password') ? store.seed.users.some((u) => passwordMatches(u.password, given)) : passwordMatches(user!.password, given);
    if (!user || !passwordTaken(fields.password)) {
      if (user && variants.has('signin-lockout')) {
        const failures = (lock?.failures ?? 0) + 1;
        lockouts.set(user.id, failures >= LOCK_AFTER_FAILURES ? { failures: 0, until: Date.now() + LOCK_MS } : { failures, until: 0 });
      }
      const html =
        twoStep && username
          ? renderPasswordStep({ ...shown, username, error: 'Wrong email or password' })
          : renderSignInPage({ ...shown, username, error: 'Wrong email or password', ...pageVariants() });
      return sendHtml(reply, 401, html);
    }
    // variant signin-lockout: a right password clears the failures (as Keycloak's brute-force detection does).
    lockouts.delete(user.id);
    return signedIn(reply, app, user, req, resolved.redirectUri);
  }

  /**
   * The user is signed in: a page between the sign-in and the redirect when a variant puts one there
   * (signin-consent-page, signin-continue-page), else the redirect with the code.
   */
  function signedIn(reply: FastifyReply, app: Application, user: User, req: SignInRequest, redirectUri: string, keycloak?: KeycloakRedirect) {
    // fault signin-session-store-500: the session of a right sign-in cannot be written.
    if (faults.has('signin-session-store-500'))
      return sendHtml(reply, 500, renderErrorPage('Internal Server Error', 'Something went wrong. Please try again later.'));
    // variants signin-consent-page and signin-continue-page: a page between the password and the redirect.
    const consent = variants.has('signin-consent-page');
    if (consent || variants.has('signin-continue-page')) {
      const ticket = randomBytes(18).toString('base64url');
      pending.set(ticket, { app, userId: user.id, userName: `${user.firstName} ${user.lastName}`, req, redirectUri, keycloak });
      return sendHtml(
        reply,
        200,
        renderConsentPage({
          applicationName: app.name,
          ticket,
          scopes: grantedScopes(app, req.scope, ctx),
          choice: consent,
          userName: `${user.firstName} ${user.lastName}`,
        }),
      );
    }
    return redirectWithCode(reply, app, user.id, req, redirectUri, keycloak);
  }

  /** POST /auth/consent: the user allowed the application (or went on), or denied it (RFC 6749 4.1.2.1: access_denied). */
  function consent(request: FastifyRequest, reply: FastifyReply) {
    const { fields } = parseFields(request.body, request.headers['content-type']);
    const waiting = fields.ticket === undefined ? undefined : pending.get(fields.ticket);
    if (!waiting) return sendHtml(reply, 400, renderErrorPage('Sign in again', 'This page has expired: sign in again from the application.'));
    pending.delete(fields.ticket!);
    if (fields.decision === 'deny') {
      const target = waiting.redirectUri;
      let location = `${target}${target.includes('?') ? '&' : '?'}error=access_denied`;
      if (waiting.req.state !== undefined) location += `&state=${encodeURIComponent(waiting.req.state)}`;
      return reply.code(302).header('location', location).header('cache-control', 'no-store').send();
    }
    return redirectWithCode(reply, waiting.app, waiting.userId, waiting.req, waiting.redirectUri, waiting.keycloak);
  }

  // variants signin-ory, signin-authentik, signin-okta: the flows of those servers, ending in signedIn.
  const flows = vendorFlows({ ctx, sendHtml, signedIn: (reply, app, user, req, redirectUri) => signedIn(reply, app, user, req, redirectUri) });

  /** The redirect of a successful sign-in: `<redirect_uri>?code=...` (plus `&state=...` when given). */
  function redirectWithCode(
    reply: FastifyReply,
    app: Application,
    userId: number,
    req: SignInRequest,
    redirectUri: string,
    keycloak?: KeycloakRedirect,
  ): FastifyReply {
    const code = tokens.issueCode(
      { clientId: app.clientId, userId, scopes: grantedScopes(app, req.scope, ctx), redirectUri: req.redirectUri ?? null },
      ctx.now(),
    );
    // fault redirect-uri-trailing-slash: the redirect URI normalised as a directory.
    const target = faults.has('redirect-uri-trailing-slash') ? withTrailingSlash(redirectUri) : redirectUri;
    // fault redirect-code-param-renamed: a non-standard parameter name.
    const codeParam = `${faults.has('redirect-code-param-renamed') ? 'auth_code' : 'code'}=${encodeURIComponent(code.value)}`;
    // fault state-not-echoed: the state is dropped from the redirect.
    // fault state-echoed-raw: the state written back as it came, not encoded.
    // variant redirect-form-encoded: the query written as application/x-www-form-urlencoded (a space as '+').
    const encode = (v: string) => (variants.has('redirect-form-encoded') ? new URLSearchParams({ v }).toString().slice(2) : encodeURIComponent(v));
    let state = '';
    if (req.state !== undefined && !faults.has('state-not-echoed')) state = `state=${faults.has('state-echoed-raw') ? req.state : encode(req.state)}`;
    // fault redirect-empty-state: the state is always written, empty when none was sent.
    if (req.state === undefined && faults.has('redirect-empty-state')) state = 'state=';
    // variant signin-keycloak: Keycloak's order (state, session_state, iss, code);
    // fault keycloak-redirect-drops-state: its redirect leaves the state out.
    if (keycloak && faults.has('keycloak-redirect-drops-state')) state = '';
    const params = keycloak ? [state, `session_state=${encode(keycloak.sessionState)}`, `iss=${encode(keycloak.issuer)}`, codeParam] : [codeParam, state];
    const location = `${target}${target.includes('?') ? '&' : '?'}${params.filter(Boolean).join('&')}`;
    // fault blind-sso-cookie-authenticates-api: a session for the web dashboard, which the API then takes in place of a token.
    if (faults.has('blind-sso-cookie-authenticates-api')) {
      const session = tokens.issueTokens(app.clientId, userId, code.scopes, ctx.now());
      reply.header('set-cookie', `${SSO_COOKIE}=${session.access.value}; Path=/v3; HttpOnly; SameSite=Lax`);
    }
    return reply.code(302).header('location', location).header('cache-control', 'no-store').send();
  }

  function invalidAuthentication(onCode: boolean): Error {
    // fault invalid-code-array-body: the modern error array instead of the legacy body.
    // fault invalid-refresh-array-body: the same, on the refresh grant.
    if (faults.has(onCode ? 'invalid-code-array-body' : 'invalid-refresh-array-body'))
      return new ApiError(403, 'AUTHORIZATION_ERROR', 'Invalid authentication', 'Sign the user in again to get a new code');
    return new LegacyError(403, 'Invalid authentication');
  }

  /** `expiresInS`: the seconds the access token has left, when it is answered again (variant same-token-reissued). */
  function tokenAnswer(reply: FastifyReply, issued: IssuedTokens, grant: 'authorization_code' | 'refresh_token', expiresInS?: number): FastifyReply {
    const body = tokenRecord(issued, expiresInS);
    // fault token-expires-at-ms: a JavaScript timestamp instead of unix seconds.
    if (faults.has('token-expires-at-ms')) body.expires_at = issued.access.issuedAt + issued.access.lifetimeS * 1000;
    // variant token-clock-skew: expires_at computed on a host whose clock runs 10 minutes ahead.
    if (variants.has('token-clock-skew')) body.expires_at = (body.expires_at as number) + 600;
    // fault token-type-mac: the type of an abandoned MAC-token draft left in the answer.
    if (faults.has('token-type-mac')) body.token_type = 'mac';
    // fault refresh-answer-without-refresh-token: the refresh answer drops the new refresh token (the old one is dead).
    if (grant === 'refresh_token' && faults.has('refresh-answer-without-refresh-token')) delete body.refresh_token;
    // variant token-answer-keycloak: Keycloak's token answer, its type capitalized and its own members beside the profile's.
    if (variants.has('token-answer-keycloak')) Object.assign(body, keycloakMembers(issued));
    reply.code(200);
    // fault token-answer-cacheable: the API's default caching header on every JSON answer, the tokens' too.
    // fault blind-token-answer-cacheable: the answer holding the tokens goes out with the framework's defaults (no cache directives).
    // variant token-answer-no-pragma: no-store alone (RFC 9111 § 5.4 deprecates Pragma).
    if (faults.has('token-answer-cacheable')) reply.header('cache-control', 'private, max-age=300');
    else if (faults.has('blind-token-answer-cacheable')) reply.removeHeader('cache-control');
    else if (variants.has('token-answer-no-pragma')) reply.header('cache-control', 'no-store');
    else reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    // variant token-answer-text-plain: the same JSON text, labelled as plain text.
    const type = variants.has('token-answer-text-plain') ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
    return reply.type(type).send(JSON.stringify(extraMembers(body, variants)));
  }

  /** The names a form body carries more than once (RFC 6749 § 3.2: "MUST NOT be included more than once"). */
  function repeatedNames(request: FastifyRequest): string[] {
    if ((request.headers['content-type'] ?? '').toLowerCase().includes('json')) return [];
    const names = [...new URLSearchParams(rawBody(request.body)).keys()];
    return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  }

  /** GET /auth/access_token: no such route (RFC 6749 § 3.2: the client MUST use POST), as the not-found handler answers. */
  function exchangeByGet(request: FastifyRequest, reply: FastifyReply) {
    // fault token-endpoint-get-accepted: the handler is mounted for every method, the query read as the form.
    if (faults.has('token-endpoint-get-accepted')) {
      const fields = Object.fromEntries(Object.keys(asQuery(request.query)).map((k) => [k, first(asQuery(request.query), k) ?? '']));
      return exchange(request, reply, { fields, malformed: false });
    }
    throw parametersError(404, 'Route not found', 'Check the method and the path; every route starts with /v3');
  }

  async function exchange(request: FastifyRequest, reply: FastifyReply, given?: { fields: Record<string, string>; malformed: boolean }) {
    const { fields, malformed } = given ?? parseFields(request.body, request.headers['content-type']);
    // Client authentication first (RFC 6749 5.2 invalid_client): HTTP Basic, else form fields.
    // fault client-basic-raw-only: the Basic credentials compared as they come, never form-urldecoded.
    const basic = parseBasic(request.headers.authorization, !faults.has('client-basic-raw-only'));
    // fault client-credentials-from-query: the request's parameters read from the URI and the body alike (RFC 6749 2.3.1: never the URI).
    const query = asQuery(request.query);
    const inQuery = faults.has('client-credentials-from-query') && first(query, 'client_id') !== undefined;
    const credentials =
      basic ??
      (fields.client_id !== undefined
        ? { id: fields.client_id, secret: fields.client_secret ?? '' }
        : inQuery
          ? { id: first(query, 'client_id')!, secret: first(query, 'client_secret') ?? '' }
          : undefined);
    const challenge = { 'www-authenticate': 'Basic realm="vds"' };
    if (credentials === undefined) {
      // fault token-no-client-400: absent client credentials taken for a missing form parameter.
      if (faults.has('token-no-client-400')) throw parametersError(400, 'Missing parameter', 'Send client_id and client_secret');
      throw new ApiError(
        401,
        'AUTHENTICATION_ERROR',
        'Client authentication is missing',
        'Send the client id and secret with HTTP Basic authentication',
        challenge,
      );
    }
    const app = credentials === 'malformed' ? undefined : findApplication(credentials.id);
    // fault client-secret-not-checked: only the client id is looked up.
    // variant encoded-credentials: the application's secret holds what HTTP Basic must encode.
    const secret = app && secretOf(app, variants.has('encoded-credentials'));
    // fault client-secret-prefix-compare: the secret compared on the characters given (strncmp with the presented length).
    const secretMatches = (given: string) => (faults.has('client-secret-prefix-compare') ? given.length >= 8 && secret!.startsWith(given) : given === secret);
    // fault client-empty-secret-skips-check: the secret compared only when one was given (`if (secret && ...)`): the id alone is the client.
    const secretSkipped = credentials !== 'malformed' && credentials.secret === '' && faults.has('client-empty-secret-skips-check');
    if (credentials === 'malformed' || !app || (!secretMatches(credentials.secret) && !secretSkipped && !faults.has('client-secret-not-checked'))) {
      throw new ApiError(401, 'AUTHENTICATION_ERROR', 'Invalid client credentials', 'Check the client id and secret of your application', challenge);
    }
    if (malformed) throw parametersError(400, 'Malformed body', 'Send application/x-www-form-urlencoded parameters');
    // RFC 6749 § 3.2, § 5.2 (invalid_request): a parameter sent twice is refused, never one of its values taken.
    // fault token-repeated-param-first-wins: the form's first value of each name is read, the others dropped.
    const repeated = given ? [] : repeatedNames(request);
    if (repeated.length && !faults.has('token-repeated-param-first-wins'))
      throw parametersError(400, 'Repeated parameter', `Send each parameter once (${repeated.join(', ')})`);

    const missing = () => parametersError(400, 'Missing parameter', 'Send grant_type with code (authorization_code) or refresh_token (refresh_token)');
    const grant = fields.grant_type;
    // fault missing-grant-type-500: the absent field is dereferenced (`grant_type.trim()`) before it is checked.
    if (grant === undefined && faults.has('missing-grant-type-500')) {
      throw internalError("Cannot read properties of undefined (reading 'trim')");
    }
    if (grant === undefined || grant === '') throw missing();
    const nowMs = ctx.now();

    // fault grant-param-of-other-grant: a grant without its own credential takes the other grant's (one lookup for both kinds).
    if (faults.has('grant-param-of-other-grant')) {
      if (grant === 'refresh_token' && !fields.refresh_token && fields.code) {
        const code = tokens.code(fields.code);
        if (code && !code.used && nowMs < code.expiresAt && code.clientId === app.clientId) {
          code.used = true;
          return tokenAnswer(reply, tokens.issueTokens(app.clientId, code.userId, code.scopes, nowMs), 'refresh_token');
        }
      }
      if (grant === 'authorization_code' && !fields.code && fields.refresh_token) {
        const refresh = tokens.refresh(fields.refresh_token);
        if (refresh && !refresh.used && refresh.clientId === app.clientId) {
          refresh.used = true;
          return tokenAnswer(reply, tokens.issueTokens(app.clientId, refresh.userId, refresh.scopes, nowMs), 'authorization_code');
        }
      }
    }

    if (grant === 'authorization_code') {
      if (fields.code === undefined || fields.code === '') {
        // fault missing-code-403: a missing code handled like a wrong one.
        if (faults.has('missing-code-403')) throw new LegacyError(403, 'Invalid authentication');
        throw missing();
      }
      // fault code-compared-case-insensitively: the code column's collation ignores case.
      const code = faults.has('code-compared-case-insensitively') ? tokens.codeIgnoringCase(fields.code) : tokens.code(fields.code);
      const valid =
        code !== undefined &&
        // fault auth-code-reusable: the used flag is set but never read.
        (!code.used || faults.has('auth-code-reusable')) &&
        nowMs < code.expiresAt &&
        // fault code-client-not-checked: the code's application is never compared with the client's.
        (code.clientId === app.clientId || faults.has('code-client-not-checked')) &&
        // fault blind-token-redirect-uri-unchecked: the redirect_uri of the exchange is never compared with the sign-in's.
        (fields.redirect_uri === undefined ||
          code.redirectUri === null ||
          fields.redirect_uri === code.redirectUri ||
          faults.has('blind-token-redirect-uri-unchecked'));
      if (!valid) throw invalidAuthentication(true);
      // fault blind-code-exchange-race: the tokens are persisted (awaited) before the code is marked used, so an exchange sent meanwhile passes the check too.
      if (faults.has('blind-code-exchange-race')) await sleep(TOKEN_WRITE_MS);
      code.used = true;
      // fault code-grant-scope-param-granted: a scope sent with the code grant replaces the code's, as the application has it.
      const scopes = faults.has('code-grant-scope-param-granted') && fields.scope ? scopesOf(app, fields.scope.split(' ')) : code.scopes;
      // variant same-token-reissued: while the user's token for this application and these scopes is valid, it is answered
      // again (with the seconds it has left, and a refresh token of its own), as Spring Security OAuth's token services reuse it.
      const current = variants.has('same-token-reissued') ? tokens.validForCode(app.clientId, code.userId, scopes, nowMs) : undefined;
      if (current) {
        const left = Math.max(1, Math.floor((current.issuedAt + current.lifetimeS * 1000 - nowMs) / 1000));
        return tokenAnswer(reply, { access: current, refresh: tokens.issueRefresh(current, nowMs) }, 'authorization_code', left);
      }
      const issued = tokens.issueTokens(app.clientId, code.userId, scopes, nowMs);
      const earlier = tokens.earlierForCode(app.clientId, code.userId, issued.access);
      tokens.issuedForCode(issued.access);
      // fault code-grant-widens-earlier-tokens: the user's grant to the application, widened, is what every token of it reads.
      if (faults.has('code-grant-widens-earlier-tokens')) for (const t of earlier) t.scopes = [...new Set([...t.scopes, ...issued.access.scopes])];
      // fault token-superseded-expires: one session per user and application: the earlier tokens expire, whatever their expires_in said.
      if (faults.has('token-superseded-expires')) for (const t of earlier) t.forcedExpired = true;
      // fault code-grant-answers-other-token: the answer is built from a second, never stored, token value.
      if (faults.has('code-grant-answers-other-token')) issued.access = { ...issued.access, value: randomBytes(24).toString('base64url') };
      return tokenAnswer(reply, issued, 'authorization_code');
    }

    if (grant === 'refresh_token') {
      if (fields.refresh_token === undefined || fields.refresh_token === '') {
        // fault refresh-missing-token-403: a missing refresh token handled like a wrong one.
        if (faults.has('refresh-missing-token-403')) throw new LegacyError(403, 'Invalid authentication');
        throw missing();
      }
      // fault refresh-compared-on-first-20: the refresh token looked up by an index on its first 20 characters.
      // fault grant-kinds-one-table: one table of tokens, the kind never read: an access token refreshes too.
      // variant jwt-access-tokens: the refresh token is read from its verified claims, its record found by the id it names.
      const refresh = faults.has('refresh-compared-on-first-20')
        ? tokens.refreshByFirst(fields.refresh_token, 20)
        : ((tokens.jwt ? await tokens.refreshOfJwt(fields.refresh_token, faults) : tokens.refresh(fields.refresh_token)) ??
          (faults.has('grant-kinds-one-table') ? tokens.refreshOfAccess(fields.refresh_token) : undefined));
      // fault refresh-client-not-checked: the refresh token's application is never compared with the client's.
      if (!refresh || refresh.used || (refresh.clientId !== app.clientId && !faults.has('refresh-client-not-checked'))) throw invalidAuthentication(false);
      // variant blindp-refresh-not-rotated: the refresh token is kept and answered again, valid for the next refresh (no
      // rotation, as Okta and Keycloak do by default for confidential clients; RFC 6749 § 6: a new one MAY be issued).
      if (!variants.has('blindp-refresh-not-rotated')) refresh.used = true;
      // fault refresh-grants-all-app-scopes: the new token gets the application's scopes, not the grant's.
      // fault refresh-scope-param-granted: a scope asked with the refresh grant is granted as the application has it (RFC 6749 6: never wider).
      const scopes = faults.has('refresh-grants-all-app-scopes')
        ? scopesOf(app, undefined)
        : faults.has('refresh-scope-param-granted') && fields.scope
          ? scopesOf(app, fields.scope.split(' '))
          : refresh.scopes;
      const issued = tokens.issueTokens(app.clientId, refresh.userId, scopes, nowMs);
      return tokenAnswer(reply, variants.has('blindp-refresh-not-rotated') ? { access: issued.access, refresh } : issued, 'refresh_token');
    }

    // fault password-grant-accepted: OAuth 2's password grant left enabled (the client application holds the user's password).
    if (grant === 'password' && faults.has('password-grant-accepted')) {
      const user = fields.username === undefined ? undefined : store.userByEmail(fields.username);
      if (user && user.password === fields.password)
        return tokenAnswer(reply, tokens.issueTokens(app.clientId, user.id, scopesOf(app, undefined), nowMs), 'authorization_code');
    }
    throw parametersError(400, 'Unsupported grant type', 'Use grant_type=authorization_code or grant_type=refresh_token');
  }

  return async function plugin(app: FastifyInstance): Promise<void> {
    // variant jwt-access-tokens: the key set that verifies the tokens, and OpenID Connect Discovery's document naming it.
    const jwt = tokens.jwt;
    if (jwt) {
      app.get('/auth/certs', (_request, reply) => reply.header('cache-control', 'max-age=300').send(jwt.jwks()));
      app.get('/auth/.well-known/openid-configuration', (_request, reply) =>
        reply.send({
          issuer: jwt.issuer,
          authorization_endpoint: `${jwt.issuer}/auth`,
          token_endpoint: `${jwt.issuer}/access_token`,
          jwks_uri: `${jwt.issuer}/certs`,
          id_token_signing_alg_values_supported: ['RS256'],
        }),
      );
    }
    app.get('/auth/auth', showPage);
    app.post('/auth/auth', signIn);
    app.post('/auth/consent', consent);
    app.post('/auth/login-actions/authenticate', keycloakAuthenticate);
    flows.routes(app);
    // Fastify awaits the answer (the refresh grant of variant jwt-access-tokens verifies its token first).
    app.post('/auth/access_token', (request, reply) => exchange(request, reply));
    app.get('/auth/access_token', exchangeByGet);
  };
}
