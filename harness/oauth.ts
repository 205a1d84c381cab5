// The real OAuth 2 sign-in flow: a browser fills the service's sign-in page, the redirect's code is
// captured, and the code is exchanged at POST /auth/access_token with HTTP Basic client credentials.
import type { Browser, Locator, Page } from '@playwright/test';
import type { ApiClient, ApiResponse } from './api';
import type { Target } from './target';

export interface SignInResult {
  code?: string;
  state?: string;
  /** The URL the browser was sent to (redirect_uri?code=...); secret: redact before showing. */
  redirectedTo?: string;
  /** What the page showed instead, when no redirect came. */
  problem?: string;
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

/** Locators for the form: the target file's selectors, else the fields found by their labels. */
export function formLocators(page: Page, target: Target) {
  const custom = target.oauth?.signInPage ?? {};
  return {
    username: custom.username ? page.locator(custom.username) : page.getByLabel(/e-?mail|user(name)?|login/i).first(),
    password: custom.password ? page.locator(custom.password) : page.getByLabel(/password/i).first(),
    submit: custom.submit
      ? page.locator(custom.submit)
      : page.getByRole('button', { name: /sign in|log ?in|connect|submit|continue/i }).first(),
  };
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
    const response = await page.goto(
      signInUrl(target, { client_id: oauth.clientId, redirect_uri: oauth.redirectUri, scope: request.scope, state: request.state }),
    );
    if (!response || response.status() >= 400) {
      return { problem: `the sign-in page answered ${response?.status() ?? 'nothing'}` };
    }
    const form = formLocators(page, target);
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
      const text = (await page.locator('body').innerText().catch(() => '')).replace(/\s+/g, ' ').slice(0, 200);
      return { problem: `no redirect to the redirect_uri after signing in; the page shows: "${text}"` };
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
