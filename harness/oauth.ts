// The real OAuth 2 sign-in flow: a browser fills the service's sign-in page, the redirect's code is
// captured, and the code is exchanged at POST /auth/access_token with HTTP Basic client credentials.
import type { Browser, Locator, Page } from '@playwright/test';
import type { ApiClient, ApiResponse } from './api';
import { findSignInForm, type FormProblem } from './signin-form';
import type { Target } from './target';

export interface SignInResult {
  code?: string;
  state?: string;
  /** The URL the browser was sent to (redirect_uri?code=...); secret: redact before showing. */
  redirectedTo?: string;
  /** What the page showed instead, when no redirect came. */
  problem?: string;
  /** The form could not be found on the page (nothing was typed): the browser checks are then not run. */
  formProblem?: FormProblem;
  /** The page's text (its start), when the form was not found or no redirect came. */
  pageText?: string;
  /** The username or password field was read from the form's layout (no selector, no label named it). */
  byLayout?: boolean;
}

export interface SignInRequest {
  username: string;
  password: string;
  /** Space-separated scopes; undefined leaves the parameter out (all the application's scopes). */
  scope?: string;
  state?: string;
}

export function signInUrl(target: Target, params: Record<string, string | undefined>): string {
  const url = new URL(`${target.baseUrl}/auth/auth`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** The target as seen by its second application (oauth.restrictedClientId): a sign-in through it. */
export function restrictedAppTarget(target: Target): Target {
  const o = target.oauth ?? {};
  return { ...target, oauth: { ...o, clientId: o.restrictedClientId, clientSecret: o.restrictedClientSecret, redirectUri: o.restrictedRedirectUri ?? o.redirectUri } };
}

/** The oauth keys of a target file every sign-in needs. */
export const SIGN_IN_KEYS = ['clientId', 'clientSecret', 'redirectUri', 'username', 'password'] as const;

/** The sign-in keys the target file lacks, each as `oauth.<key>`, naming its unset ${VAR} if any. */
export function missingSignInKeys(target: Target): string[] {
  const o = target.oauth ?? {};
  return SIGN_IN_KEYS.filter((k) => !o[k])
    .map((k) => `oauth.${k}${target.unset[`oauth.${k}`] ? ` (\${${target.unset[`oauth.${k}`]}} is not set)` : ''}`);
}

/** The start of what the page shows, on one line (for a reader: never a secret, the fields are not in it). */
export async function pageText(page: Page, max = 200): Promise<string> {
  return (await page.locator('body').innerText().catch(() => '')).replace(/\s+/g, ' ').trim().slice(0, max);
}

/** Loads the page; a navigation that got no answer (refused, reset, timed out) is the server's, said in one line. */
export async function openPage(page: Page, url: string): Promise<{ status: number; contentType: string } | { noAnswer: string }> {
  try {
    const response = await page.goto(url);
    if (!response) return { noAnswer: 'no answer' };
    return { status: response.status(), contentType: response.headers()['content-type'] ?? '' };
  } catch (err) {
    return { noAnswer: String((err as Error).message ?? err).split('\n')[0] };
  }
}

/**
 * Types a secret into a field without it reaching a report: Playwright titles a fill step
 * `Fill "<value>"` in its HTML report and blob reports, while an evaluated assignment is only "Evaluate".
 */
async function fillSecret(field: Locator, value: string): Promise<void> {
  await field.waitFor({ state: 'visible' });
  await field.evaluate((el, v) => {
    const input = el as HTMLInputElement;
    input.focus();
    input.value = v;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
}

export async function signIn(browser: Browser, target: Target, request: SignInRequest, timeoutMs = 15_000): Promise<SignInResult> {
  const oauth = target.oauth ?? {};
  const redirectUri = oauth.redirectUri ?? '';
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(timeoutMs);
    const opened = await openPage(page, signInUrl(target, { client_id: oauth.clientId, redirect_uri: oauth.redirectUri, scope: request.scope, state: request.state }));
    if ('noAnswer' in opened) return { problem: `the sign-in page gave no answer (${opened.noAnswer})` };
    if (opened.status >= 400) return { problem: `the sign-in page answered ${opened.status}` };
    const search = await findSignInForm(page, target);
    if ('problem' in search) return { formProblem: search.problem, pageText: await pageText(page) };
    const { form } = search;
    await form.username.fill(request.username);
    await fillSecret(form.password, request.password);
    // A server-side 302 to the redirect URI is not seen by page.route: wait for the navigation request.
    const redirected = page
      .waitForRequest((r) => r.url().startsWith(redirectUri) && r.isNavigationRequest(), { timeout: timeoutMs })
      .then((r) => r.url())
      .catch(() => undefined);
    await form.submit.click();
    const url = await redirected;
    if (!url) {
      const text = await pageText(page);
      return { problem: `no redirect to the redirect_uri after signing in; the page shows: "${text}"`, pageText: text, byLayout: form.byLayout };
    }
    const params = new URL(url).searchParams;
    return { code: params.get('code') ?? undefined, state: params.get('state') ?? undefined, redirectedTo: url };
  } finally {
    await context.close();
  }
}

export interface TokenRecord {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  expires_at?: number;
  token_type?: string;
}

export function basicAuth(target: Target, secret = target.oauth?.clientSecret ?? ''): string {
  return `Basic ${Buffer.from(`${target.oauth?.clientId ?? ''}:${secret}`).toString('base64')}`;
}

/** POST /auth/access_token with the given grant fields and the target's client credentials (null: none). */
export function tokenRequest(api: ApiClient, target: Target, form: Record<string, string>, authorization: string | null = basicAuth(target)): Promise<ApiResponse> {
  return api.post('/auth/access_token', { form, authorization, route: 'POST /auth/access_token' });
}

export async function exchangeCode(api: ApiClient, target: Target, code: string): Promise<TokenRecord> {
  const res = await tokenRequest(api, target, {
    grant_type: 'authorization_code',
    code,
    ...(target.oauth?.redirectUri ? { redirect_uri: target.oauth.redirectUri } : {}),
  });
  const body = res.json as Partial<TokenRecord> | undefined;
  if (res.status !== 200 || typeof body?.access_token !== 'string') {
    throw new Error(`the token endpoint answered ${res.status} to a fresh authorization code`);
  }
  return body as TokenRecord;
}
