// The real OAuth 2 sign-in flow: a browser fills the service's sign-in page, the redirect's code is
// captured, and the code is exchanged at POST /auth/access_token with HTTP Basic client credentials.
import { errors, type Browser, type BrowserContext, type Locator, type Page, type Response } from '@playwright/test';
import type { ApiClient, ApiResponse } from '../transport/api';
import { openContext } from './browser-network';
import { findSignInForm, FORM_WAIT_MS, type FormProblem } from './signin-form';
import { uncover } from './signin-overlay';
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
  /** After the sign-in, a page offered no control the suite recognises (to allow the application, or to go on): its limit, not the server's. */
  stuckBetween?: boolean;
  /** The pages between the sign-in and the redirect it went through ("allowing the application (\"Allow\")"). */
  pagesBetween?: string[];
  /**
   * The error status (4xx, 5xx) the server answered the sign-in with, when no redirect came: the page
   * the browser was shown after submitting the credentials (or a page between the sign-in and the redirect).
   */
  errorStatus?: number;
  /**
   * The page that held the password field, as the server answered its document: its URL (redact before
   * showing) and its headers, every value of each (what a browser reads of it: framing, caching).
   */
  passwordPage?: { url: string; headers: Array<{ name: string; value: string }> };
  /** The names the form gave its username and password fields (the query a form sent by GET would carry). */
  fieldNames?: { username?: string; password?: string };
  /** A request of the sign-in, after the password was typed, whose URL carried it as a parameter's value: its method, the password elided. */
  passwordInUrl?: string;
  /**
   * With SignInRequest.formRedirectUri: whether a form of the sign-in had a redirect_uri field to change,
   * and the URL the browser was then sent to under that URI, if it was (secret: redact before showing).
   */
  formRedirect?: { field: boolean; reached?: string };
  /**
   * With SignInRequest.cookiesFor, after the redirect: the Cookie header the browser would send to each
   * of those URLs ('' for none), the cookies the sign-in left it holding (secret: redact before showing).
   */
  cookies?: Record<string, string>;
}

/** The URL with every query parameter whose value is `secret` written as *** (its path and fragment dropped if they hold it). */
function elided(url: string, secret: string): string {
  const parsed = new URL(url);
  // A copy: setting a parameter while its list is walked would move the walk.
  for (const [name, value] of Array.from(parsed.searchParams)) if (value === secret) parsed.searchParams.set(name, '***');
  if (urlParameterValues(url).includes(secret) && new URLSearchParams(parsed.hash.slice(1)).size) parsed.hash = '';
  return parsed.toString().includes(secret) ? `${parsed.origin}${parsed.pathname.includes(secret) ? '/...' : parsed.pathname}?...` : parsed.toString();
}

/** The values of a URL's query and fragment parameters (a form sent by GET writes its fields there). */
function urlParameterValues(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [...parsed.searchParams.values(), ...new URLSearchParams(parsed.hash.slice(1)).values()];
  } catch {
    return [];
  }
}

/**
 * A sign-in with the right credentials that the server answered with an error status is the server's
 * failure, not the suite's: a 5xx always, a 4xx where the suite found the fields by their labels or by
 * oauth.signInPage (read from the form's layout, they may not be the fields: then it is not run).
 */
export function signInRefused(result: SignInResult): boolean {
  const status = result.errorStatus;
  return !result.code && status !== undefined && (status >= 500 || (status >= 400 && !result.byLayout));
}

export interface SignInRequest {
  username: string;
  password: string;
  /** Space-separated scopes; undefined leaves the parameter out (all the application's scopes). */
  scope?: string;
  state?: string;
  /**
   * A URI written into the sign-in form's redirect_uri field (a hidden one) before each submit, as a
   * forged form would post it: where the browser goes then is SignInResult.formRedirect.
   */
  formRedirectUri?: string;
  /** URLs whose Cookie header, as the browser holds it once the sign-in redirected, the result gives (SignInResult.cookies). */
  cookiesFor?: readonly string[];
  /**
   * Watch what the page shows of itself as the password goes (SignInResult.passwordPage, fieldNames,
   * passwordInUrl), for the checks that judge it; every other sign-in skips those reads.
   */
  observe?: boolean;
}

export function signInUrl(target: Target, params: Record<string, string | undefined>): string {
  const url = new URL(`${target.baseUrl}/auth/auth`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** The target as seen by its second application (oauth.restrictedClientId): a sign-in through it. */
export function restrictedAppTarget(target: Target): Target {
  const o = target.oauth ?? {};
  return {
    ...target,
    oauth: { ...o, clientId: o.restrictedClientId, clientSecret: o.restrictedClientSecret, redirectUri: o.restrictedRedirectUri ?? o.redirectUri },
  };
}

/** The oauth keys of a target file every sign-in needs. */
export const SIGN_IN_KEYS = ['clientId', 'clientSecret', 'redirectUri', 'username', 'password'] as const;

/** The sign-in keys the target file lacks, each as `oauth.<key>`, naming its unset ${VAR} if any. */
export function missingSignInKeys(target: Target): string[] {
  const o = target.oauth ?? {};
  return SIGN_IN_KEYS.filter((k) => !o[k]).map((k) => `oauth.${k}${target.unset[`oauth.${k}`] ? ` (\${${target.unset[`oauth.${k}`]}} is not set)` : ''}`);
}

/** The start of what the page shows, on one line (for a reader: never a secret, the fields are not in it). */
export async function pageText(page: Page, max = 200): Promise<string> {
  return (
    await page
      .locator('body')
      .innerText()
      .catch(() => '')
  )
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
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

/**
 * Signs in as a person would: the form (on one page, or the account then the password on the next),
 * then any page between the sign-in and the redirect (one that asks to allow the application: allow
 * it; one that only offers to go on: go on; never deny), until the browser is sent to the redirect_uri.
 */
export async function signIn(browser: Browser, target: Target, request: SignInRequest, timeoutMs = 15_000): Promise<SignInResult> {
  const oauth = target.oauth ?? {};
  const redirectUri = oauth.redirectUri ?? '';
  const context = await openContext(browser, target);
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(timeoutMs);
    // The document each page of the sign-in came in (the main frame's last answer that is not a redirect).
    let lastDocument: Response | undefined;
    if (request.observe) {
      page.on('response', (r) => {
        if (r.request().isNavigationRequest() && r.frame() === page.mainFrame() && (r.status() < 300 || r.status() >= 400)) lastDocument = r;
      });
    }
    const opened = await openPage(
      page,
      signInUrl(target, { client_id: oauth.clientId, redirect_uri: oauth.redirectUri, scope: request.scope, state: request.state }),
    );
    if ('noAnswer' in opened) return { problem: `the sign-in page gave no answer (${opened.noAnswer})` };
    // A 5xx is the server's failure; a 4xx may be the target file's client_id or redirect_uri (SIGNIN-PAGE judges the page).
    if (opened.status >= 400) return { problem: `the sign-in page answered ${opened.status}`, ...(opened.status >= 500 ? { errorStatus: opened.status } : {}) };
    const search = await findSignInForm(page, target);
    if ('problem' in search) return { formProblem: search.problem, pageText: await pageText(page) };
    let { form } = search;
    let byLayout = form.byLayout;
    // A server-side 302 to the redirect URI is not seen by page.route: every navigation request is
    // watched, from the first submit on (the redirect may follow any page of the sign-in).
    const flow: Flow = { page, timeoutMs };
    page.on('request', (r) => {
      if (!flow.redirectedTo && r.isNavigationRequest() && r.url().startsWith(redirectUri)) flow.redirectedTo = r.url();
    });
    const forged = request.formRedirectUri;
    const formRedirect: NonNullable<SignInResult['formRedirect']> = { field: false };
    if (forged) {
      page.on('request', (r) => {
        if (!formRedirect.reached && r.isNavigationRequest() && r.url().startsWith(forged)) formRedirect.reached = r.url();
      });
      flow.beforeSubmit = async () => {
        formRedirect.field ||= await page
          .evaluate((uri) => {
            const fields = [...document.querySelectorAll<HTMLInputElement>('form input[name="redirect_uri"]')];
            for (const f of fields) f.value = uri;
            return fields.length > 0;
          }, forged)
          .catch(() => false);
      };
      flow.stopAt = () => formRedirect.reached !== undefined;
    }
    // The status of each page the main frame is shown: the last one is the server's answer to the sign-in.
    let shownStatus: number | undefined;
    page.on('response', (r) => {
      if (r.request().isNavigationRequest() && r.frame() === page.mainFrame() && !r.url().startsWith(redirectUri)) shownStatus = r.status();
    });
    if (form.username) await form.username.fill(request.username);
    if (!form.password) {
      // Two steps: the account, then its password on a page of its own.
      await submit(flow, form.submit);
      if (!flow.redirectedTo) {
        const second = await findSignInForm(page, target, FORM_WAIT_MS, 'password');
        if ('problem' in second) {
          // The forged redirect_uri refused at the first step: the sign-in's answer, not a page the suite cannot use.
          if (forged && formRedirect.field)
            return { problem: 'no password step after the account was sent with the forged redirect_uri', pageText: await pageText(page), formRedirect };
          return { formProblem: { ...second.problem, kind: 'unidentified', secondPage: true }, pageText: await pageText(page), byLayout };
        }
        form = second.form;
        byLayout ||= form.byLayout;
        if (form.username && !(await form.username.inputValue().catch(() => ''))) await form.username.fill(request.username);
      }
    }
    const observed: Pick<SignInResult, 'passwordPage' | 'fieldNames' | 'passwordInUrl'> = {};
    if (form.password && !flow.redirectedTo && request.observe) {
      const document = lastDocument;
      if (document) observed.passwordPage = { url: document.url(), headers: await document.headersArray().catch(() => []) };
      observed.fieldNames = {
        username: (await form.username?.getAttribute('name').catch(() => null)) ?? undefined,
        password: (await form.password.getAttribute('name').catch(() => null)) ?? undefined,
      };
      // From here on, a request whose URL carries the password (a form sent by GET) is recorded, the password elided.
      page.on('request', (r) => {
        if (!observed.passwordInUrl && urlParameterValues(r.url()).includes(request.password))
          observed.passwordInUrl = `${r.method()} ${elided(r.url(), request.password)}`;
      });
    }
    if (form.password && !flow.redirectedTo) {
      await fillSecret(form.password, request.password);
      await submit(flow, form.submit);
    }
    // Pages between the sign-in and the redirect: allow the application, or go on.
    const passed: string[] = [];
    let stuck = false;
    for (let i = 0; !flow.redirectedTo && !flow.stopAt?.() && i < PAGES_BETWEEN; i++) {
      const next = await nextStep(page, target);
      if (next === 'refused') break;
      if (!next) {
        stuck = true;
        break;
      }
      passed.push(next.what);
      await submit(flow, next.control);
    }
    const forgedResult = forged ? { formRedirect } : {};
    const url = flow.redirectedTo;
    if (!url) {
      const text = await pageText(page);
      const after = passed.length ? ` (after ${passed.join(', then ')})` : '';
      const errorStatus = shownStatus !== undefined && shownStatus >= 400 ? shownStatus : undefined;
      return {
        problem: `no redirect to the redirect_uri after signing in${after}${errorStatus ? `: the server answered ${errorStatus}` : ''}; the page shows: "${text}"`,
        pageText: text,
        byLayout,
        ...observed,
        ...(stuck && !errorStatus ? { stuckBetween: true } : {}),
        ...(errorStatus ? { errorStatus } : {}),
        ...forgedResult,
      };
    }
    const params = new URL(url).searchParams;
    return {
      ...(request.cookiesFor ? { cookies: await cookieHeaders(context, request.cookiesFor) } : {}),
      code: params.get('code') ?? undefined,
      state: params.get('state') ?? undefined,
      redirectedTo: url,
      ...(passed.length ? { pagesBetween: passed } : {}),
      ...observed,
      ...forgedResult,
    };
  } finally {
    await context.close();
  }
}

/** Each URL's Cookie header as the context would send it: only the cookies whose domain, path and Secure flag match it. */
async function cookieHeaders(context: BrowserContext, urls: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const url of urls) out[url] = (await context.cookies(url)).map((c) => `${c.name}=${c.value}`).join('; ');
  return out;
}

interface Flow {
  page: Page;
  timeoutMs: number;
  /** The redirect_uri the browser was sent to, once it was. */
  redirectedTo?: string;
  /** Run before each click of the sign-in (SignInRequest.formRedirectUri: the forged field written). */
  beforeSubmit?: () => Promise<void>;
  /** The sign-in is over without the redirect_uri (the browser was sent to the forged URI). */
  stopAt?: () => boolean;
}

/** At most this many pages between the sign-in and the redirect are gone through. */
const PAGES_BETWEEN = 3;
// The words of those controls, in the languages authorization servers' pages most often come in
// (English, French, German, Spanish, Italian); any other page names its control in the target file.
/** A control that allows the application (a consent page). */
const ALLOW =
  /(^|[^\p{L}])(allow|authori[sz]e|accept|approve|agree|grant|consent|confirm|yes|autoriser|accepter|approuver|oui|erlauben|zulassen|zustimmen|genehmigen|akzeptieren|ja|permitir|autorizar|aceptar|consentir|autorizza|consenti|accetta)([^\p{L}]|$)/iu;
/** A control that only goes on. */
const GO_ON = /(^|[^\p{L}])(continue|next|proceed|go on|ok|done|continuer|suivant|weiter|fortfahren|continuar|siguiente|continua|avanti)([^\p{L}]|$)/iu;
/** Never clicked: it would refuse the application, or leave. */
const REFUSE =
  /(^|[^\p{L}])(deny|cancel|reject|decline|refuse|no|back|not you|sign out|log ?out|refuser|annuler|non|ablehnen|verweigern|abbrechen|nein|denegar|rechazar|cancelar|rifiuta|annulla)([^\p{L}]|$)/iu;

/**
 * Clicks the control and waits for the next page, the redirect, or (a single-page application, which
 * renders its next step without loading a page) the page showing other controls or a message; at
 * most the sign-in's time limit.
 */
async function submit(flow: Flow, control: Locator): Promise<void> {
  const { page, timeoutMs } = flow;
  const navigated = page
    .waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: timeoutMs })
    .then(() => page.waitForLoadState('load', { timeout: timeoutMs }))
    .catch(() => undefined);
  const before = await pageShape(page);
  await flow.beforeSubmit?.();
  await clickThrough(page, control, timeoutMs);
  // Whichever comes first: the next page, the redirect (its navigation may never load: the
  // redirect_uri need not answer), another step rendered in place, or the time limit. The watch ends with the wait.
  let waiting = true;
  const watched = (async () => {
    const deadline = Date.now() + timeoutMs;
    // eslint-disable-next-line no-unmodified-loop-condition -- submit() clears it once the race is over
    while (waiting && !flow.redirectedTo && !flow.stopAt?.() && Date.now() < deadline && !page.isClosed()) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await pageShape(page);
      // Changed in place: unless a page load follows at once (a form posted while a spinner shows).
      if (waiting && now !== undefined && before !== undefined && now !== before) {
        await Promise.race([navigated, new Promise((r) => setTimeout(r, SETTLE_MS))]);
        return;
      }
    }
  })();
  await Promise.race([navigated, watched]);
  waiting = false;
}

/**
 * What a person sees to act on, in one string: the visible fields (their type and name), the buttons'
 * names, and the messages shown (alerts), through open shadow roots. Another string after a click: the
 * page moved on. Undefined while the page cannot be read (it is navigating).
 */
const SHAPE_SCRIPT = String.raw`() => {
  const deep = (root, selector) => {
    const out = [...root.querySelectorAll(selector)];
    for (const host of root.querySelectorAll('*')) if (host.shadowRoot) out.push(...deep(host.shadowRoot, selector));
    return out;
  };
  const shown = (el) => { const b = el.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(el).visibility !== 'hidden'; };
  return deep(document, 'input:not([type=hidden]), button, [role=button], [role=alert], [aria-live]')
    .filter(shown)
    .map((el) => el.tagName + ':' + (el.type || '') + ':' + (el.name || '') + ':' + (el.matches('input') ? '' : (el.innerText || '').trim().slice(0, 80)))
    .join('|');
}`;

/** After the page changed in place, how long a page load that follows is awaited. */
const SETTLE_MS = 500;

async function pageShape(page: Page): Promise<string | undefined> {
  return page.evaluate(`(${SHAPE_SCRIPT})()`).then(
    (s) => s as string,
    () => undefined,
  );
}

/** Tries of a click that something covering the page took, each after closing what covers it (signin-overlay.ts). */
const CLICK_TRIES = 3;
const COVERED_CLICK_WAIT_MS = 2_000;

/**
 * Clicks as a person does: what covers the control (a cookie banner, shown before or a moment after
 * the page) is closed first; a click that times out because something came over the control since is
 * tried again after closing it.
 */
async function clickThrough(page: Page, control: Locator, timeoutMs: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const closed = await uncover(page, control);
    try {
      await control.click({ timeout: attempt < CLICK_TRIES ? COVERED_CLICK_WAIT_MS : timeoutMs });
      return;
    } catch (err) {
      if (attempt >= CLICK_TRIES || !(err instanceof errors.TimeoutError) || page.isClosed()) throw err;
      if (!closed.length && !(await uncover(page, control)).length && attempt > 1) throw err;
    }
  }
}

/**
 * What a page after the sign-in offers: a control that allows the application (target file's
 * oauth.signInPage.allow first, else one named like "Allow"), else one that only goes on
 * ("Continue"); 'refused' when it shows a password field again (the sign-in was refused: the
 * server's answer to judge); undefined when it offers neither (the suite cannot tell how to go on).
 */
async function nextStep(page: Page, target: Target): Promise<{ control: Locator; what: string } | 'refused' | undefined> {
  if (await page.locator('input[type=password]').filter({ visible: true }).count()) return 'refused';
  const custom = target.oauth?.signInPage?.allow;
  if (custom) {
    const given = page.locator(custom).filter({ visible: true }).first();
    if (await given.count()) return { control: given, what: `oauth.signInPage.allow (${custom})` };
  }
  for (const [words, what] of [
    [ALLOW, 'allowing the application'],
    [GO_ON, 'going on'],
  ] as const) {
    const control = await controlNamed(page, words);
    if (control) return { control, what: `${what} ("${control.name}")` };
  }
  return undefined;
}

/** The first visible button, submit input or link whose name matches `words` and never a refusal. */
async function controlNamed(page: Page, words: RegExp): Promise<(Locator & { name?: string }) | undefined> {
  const candidates = page.locator('button, input[type=submit], input[type=button], [role=button], a[href]').filter({ visible: true });
  const count = Math.min(await candidates.count(), 30);
  for (let i = 0; i < count; i++) {
    const el = candidates.nth(i);
    const name = ((await el.getAttribute('aria-label')) ?? (await el.innerText().catch(() => '')) ?? '') || ((await el.getAttribute('value')) ?? '');
    const clean = name.replace(/\s+/g, ' ').trim();
    if (words.test(clean) && !REFUSE.test(clean)) return Object.assign(el, { name: clean.slice(0, 40) });
  }
  return undefined;
}

export interface TokenRecord {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  expires_at?: number;
  token_type?: string;
}

/**
 * A client id or secret as RFC 6749 § 2.3.1 puts it in HTTP Basic: application/x-www-form-urlencoded
 * first (a space as '+', every other character but the unreserved percent-encoded as UTF-8).
 */
function formUrlEncoded(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** Whether RFC 6749's form of the application's credentials differs from them as they are (raw). */
export function basicFormsDiffer(clientId: string, secret: string): boolean {
  return formUrlEncoded(clientId) !== clientId || formUrlEncoded(secret) !== secret;
}

/**
 * The applications (client ids) whose token endpoint refused their credentials in RFC 6749's form and
 * took them raw: the run goes on with the form the server takes (prepare-run.ts learns it, the workers
 * are told: setRawBasicClients), and TOKEN-CLIENT-ENCODED reports it.
 */
let rawBasicClients: ReadonlySet<string> = new Set();

export function setRawBasicClients(clientIds: readonly string[] = []): void {
  rawBasicClients = new Set(clientIds);
}

export type BasicForm = 'rfc' | 'raw';

/**
 * HTTP Basic client credentials for the token endpoint: RFC 6749 § 2.3.1's form (each part
 * form-urlencoded before base64), or the raw one for an application whose server takes only that.
 */
export function basicAuth(target: Target, secret = target.oauth?.clientSecret ?? '', form?: BasicForm): string {
  const id = target.oauth?.clientId ?? '';
  const raw = (form ?? (rawBasicClients.has(id) ? 'raw' : 'rfc')) === 'raw';
  const pair = raw ? `${id}:${secret}` : `${formUrlEncoded(id)}:${formUrlEncoded(secret)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

/** POST /auth/access_token with the given grant fields and the target's client credentials (null: none). */
export function tokenRequest(
  api: ApiClient,
  target: Target,
  form: Record<string, string>,
  authorization: string | null = basicAuth(target),
): Promise<ApiResponse> {
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
