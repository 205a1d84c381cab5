// What the checks of the token endpoint and the sign-in page share: the oauth keys a sign-in needs,
// a fresh code (the control API's, else the sign-in page's in the browser), a grant sent with the
// client's credentials, the tokens an answer carries kept secret, and the token endpoint's refusals
// (its error array, or the legacy body the profile gives an invalid grant).
import type { Browser } from '@playwright/test';
import {
  type ApiResponse,
  basicAuth,
  type CheckContext,
  expectContract,
  expectError,
  expectJson,
  expectObject,
  expectStatus,
  fail,
  missingSignInKeys,
  NotRun,
  restrictedAppTarget,
  show,
  SIGN_IN_KEYS,
  signInAttempt,
  signInForCheck,
  type SignInResult,
  type TokenRecord,
  tokenRequest,
} from '../check-api';

/** The oauth keys every sign-in needs; NotRun names those the target file lacks. */
export function requireOauth(ctx: CheckContext) {
  const absent = missingSignInKeys(ctx.target);
  if (absent.length) throw new NotRun(`needs ${absent.join(', ')} in ${ctx.target.source}`, 'oauth');
  const o = ctx.target.oauth!;
  return o as Required<Pick<typeof o, (typeof SIGN_IN_KEYS)[number]>>;
}

/** The worker's browser: each use opens its own context in it (no session shared between checks). */
export function withBrowser<T>(ctx: CheckContext, use: (browser: Browser) => Promise<T>): Promise<T> {
  return ctx.withBrowser(use);
}

/**
 * Signs the primary user in through the browser and returns the code (registered as a secret). A page
 * whose form cannot be found, known from an earlier check or met now, makes the check not run at once.
 */
export async function freshCode(ctx: CheckContext, scope?: string, state?: string): Promise<{ code: string; state?: string; redirectedTo: string }> {
  const o = requireOauth(ctx);
  const result = await withBrowser(ctx, (b) => signInForCheck(ctx.run, b, ctx.target, { username: o.username, password: o.password, scope, state }));
  if (!result.code) {
    fail({
      expected: 'after sign-in, a redirect to redirect_uri carrying a code',
      actual: ctx.redactor.redact(result.problem ?? `a redirect without code: ${result.redirectedTo}`),
    });
  }
  ctx.redactor.add(result.code);
  return { code: result.code, state: result.state, redirectedTo: result.redirectedTo! };
}

/** A sign-in with the right credentials that the server answered with an error status (signInRefused), as a failure. */
export function refusedSignIn(ctx: CheckContext, signed: SignInResult): never {
  fail({
    expected: `signing in on the page with the right credentials (oauth.username and oauth.password of ${ctx.target.source}) leads on to the redirect_uri, never to an error status`,
    actual: `status ${signed.errorStatus}; the page shows: "${ctx.redactor.redact(signed.pageText ?? '')}"`,
  });
}

/**
 * A fresh code for the token endpoint's checks: from the control API where the target has one and
 * mints through it (the embedded reference: the sign-in page has checks of its own), else through
 * the sign-in page in the browser, as a client would get it.
 */
export async function codeForTokenEndpoint(ctx: CheckContext, scope?: string): Promise<{ code: string }> {
  const control = ctx.target.control;
  if (!control || control.mintTokens === false) return freshCode(ctx, scope);
  const o = requireOauth(ctx);
  const scopes = scope === undefined ? {} : { scopes: scope.split(' ') };
  const res = await ctx.api.post(`${control.url}/codes/mint`, { body: { clientId: o.clientId, username: o.username, redirectUri: o.redirectUri, ...scopes } });
  const code = (res.json as { code?: unknown } | undefined)?.code;
  if (res.status !== 200 || typeof code !== 'string') throw new Error(`the control API did not mint a code (${res.status})`);
  ctx.redactor.add(code);
  return { code };
}

/** A sign-in as the primary user with a password other than theirs, in the browser: what the page does with it. */
export type WrongSignIn = (password: string) => Promise<SignInResult>;

/**
 * In the browser, the primary user signs in with the right password first: a page that gives it no
 * code shows nothing about wrong ones (not run: the sign-in checks judge it). Then `then` gets the
 * right code (a secret) and signs in with other passwords as it needs.
 */
export function afterRightSignIn<T>(ctx: CheckContext, then: (rightCode: string, attempt: WrongSignIn) => Promise<T>): Promise<T> {
  const o = requireOauth(ctx);
  return withBrowser(ctx, async (browser) => {
    const attempt = (password: string) => signInAttempt(ctx.run, browser, ctx.target, { username: o.username, password });
    const right = await attempt(o.password);
    if (!right.code)
      throw new NotRun(`signing in with the right password gave no code (${ctx.redactor.redact(right.problem ?? 'no redirect')}): the sign-in checks judge it`);
    ctx.redactor.add(right.code);
    return then(right.code, attempt);
  });
}

export function codeGrant(ctx: CheckContext, code: string, authorization?: string) {
  return tokenRequest(ctx.api, ctx.target, { grant_type: 'authorization_code', code, redirect_uri: ctx.target.oauth?.redirectUri ?? '' }, authorization);
}

export function keepSecret(ctx: CheckContext, token: unknown): TokenRecord {
  const t = token as TokenRecord;
  ctx.redactor.add(t?.access_token, t?.refresh_token);
  return t;
}

/** The token record of a grant's answer: a JSON object with an access_token string, else a failure; its tokens become secrets. */
export function tokenOf(ctx: CheckContext, res: ApiResponse, what: string): TokenRecord {
  const body = expectObject(res, `a token record (${what})`);
  if (typeof body.access_token !== 'string') {
    fail({
      expected: `a token record with an access_token string (${what})`,
      actual: `access_token ${show(body.access_token)}`,
      pointer: '/access_token',
      exchange: res.exchange,
    });
  }
  return keepSecret(ctx, body);
}

/**
 * An error of the token endpoint. The profile calls the route legacy (its invalid-code refusal is
 * {"message": ...}, not the array) yet gives its other errors a type: either body is taken, the
 * status is compared, the type where the body is the array, the message in both.
 */
export function expectTokenEndpointError(res: ApiResponse, e: { status: number; type: string; message?: string; why?: string }): void {
  if (Array.isArray(res.json)) {
    expectError(res, e);
    return;
  }
  expectStatus(res, e.status, e.why);
  const body = expectJson(res, 'an error body: the error array or the legacy {"message": ...}') as { message?: unknown } | null;
  if (typeof body?.message !== 'string' || (e.message !== undefined && body.message !== e.message)) {
    fail({
      expected: `the error array with type ${e.type}${e.message ? ` and message ${show(e.message)}` : ''}, or the legacy body {"message": ${e.message ? show(e.message) : '...'}}${e.why ? ` (${e.why})` : ''}`,
      actual: show(res.json),
      exchange: res.exchange,
    });
  }
}

/** The token endpoint's legacy refusal: 403 {"message": "Invalid authentication"}; `why` says what was refused. */
export function expectInvalidAuthentication(res: ApiResponse, why = ''): void {
  expectStatus(res, 403, why);
  expectContract(res, 'legacyError');
  const body = res.json as { message?: unknown };
  if (body.message !== 'Invalid authentication') {
    fail({
      expected: `the legacy body {"message": "Invalid authentication"}${why ? ` (${why})` : ''}`,
      actual: show(res.json),
      pointer: '/message',
      exchange: res.exchange,
    });
  }
}

/** The second application's keys of the target file. */
const OTHER_APP_KEYS = ['restrictedClientId', 'restrictedClientSecret'] as const;

/**
 * The HTTP Basic credentials of another registered application: the target file's second one
 * (oauth.restrictedClientId, restrictedClientSecret). Without it, or when it is the first one, the
 * check is not run, naming the keys.
 */
export function otherApplication(ctx: CheckContext): string {
  const o = ctx.target.oauth ?? {};
  const absent = OTHER_APP_KEYS.filter((k) => !o[k]).map(
    (k) => `oauth.${k}${ctx.target.unset[`oauth.${k}`] ? ` (\${${ctx.target.unset[`oauth.${k}`]}} is not set)` : ''}`,
  );
  if (absent.length) throw new NotRun(`needs a second registered application: ${absent.join(', ')} in ${ctx.target.source}`, 'oauth.restricted');
  if (o.restrictedClientId === o.clientId) {
    throw new NotRun(`oauth.restrictedClientId is oauth.clientId in ${ctx.target.source}: give another registered application`);
  }
  return basicAuth(restrictedAppTarget(ctx.target));
}

/** A grant's answer may carry tokens (a server that issued them): they become secrets before anything shows the answer. */
export function keepIssued(ctx: CheckContext, res: ApiResponse): void {
  const body = res.json as Partial<TokenRecord> | undefined;
  if (body && typeof body === 'object') ctx.redactor.add(...[body.access_token, body.refresh_token].filter((v): v is string => typeof v === 'string'));
}

/**
 * A 401 to the other application's request may be its credentials refused, not the grant: the same
 * endpoint is asked with them and a grant that was never issued. Refused again (401), the inputs are
 * at fault (not run); answered otherwise, the 401 was about the grant and is judged.
 */
export async function proveOtherApplication(ctx: CheckContext, res: ApiResponse, authorization: string, neverIssued: Record<string, string>): Promise<void> {
  if (res.status !== 401) return;
  const probe = await tokenRequest(ctx.api, ctx.target, neverIssued, authorization);
  if (probe.status === 401) {
    throw new NotRun(
      `the token endpoint refuses oauth.restrictedClientId and oauth.restrictedClientSecret of ${ctx.target.source} as client credentials ` +
        '(401, also to a grant never issued): give the credentials of another registered application',
    );
  }
}
