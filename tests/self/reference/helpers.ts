// Test harness for the reference server: builds the app in-process and talks to it with app.inject.

import type { FastifyInstance } from 'fastify';
import { buildReferenceApp, seedOptions } from '../../../reference-server/app';
import type { Mode } from '../../../reference-server/context';
import { ENCODED_PASSWORDS, Seed, SEED_IDS, seedFor } from '../../../reference-server/data/seed';
import { ENCODED_SECRETS, ENCODED_VSCHAR_SECRETS } from '../../../reference-server/auth/clients';
import { Variants } from '../../../reference-server/switches';
import type { RouteLatency } from '../../../reference-server/route-latency';

export { SEED_IDS };

/** A fixed clock for most tests: mid-month, so the default range spans 16 days. */
export const NOW = Date.parse('2026-03-17T10:20:30Z');
export const MONTH_START = Date.parse('2026-03-01T00:00:00Z');
export const DAY = 24 * 3600 * 1000;

export const REDIRECT_URI = 'http://localhost:9/vds/callback';
export const CLIENTS = {
  full: { id: 'vds-conformance', secret: 'reference-client-secret' },
  limited: { id: 'vds-limited', secret: 'limited-client-secret' },
} as const;
export const USERS = {
  alice: { email: 'alice@reference.test', password: 'alice-password' },
  bob: { email: 'bob@reference.test', password: 'bob-password' },
} as const;

export type ClientKey = keyof typeof CLIENTS;
type UserKey = keyof typeof USERS;

export interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
  json: any;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  body?: string;
}

export interface TokenRequest {
  user?: UserKey;
  client?: ClientKey;
  /** Space-separated scope list; undefined = no scope parameter (all the app's scopes). */
  scope?: string;
}

export interface SignInOptions extends TokenRequest {
  state?: string;
  redirectUri?: string;
  password?: string;
  /** On a page between the password and the redirect (consent variants): allow (default), deny, or stop there. */
  consent?: 'allow' | 'deny' | 'stop';
}

/** A part of HTTP Basic client credentials as RFC 6749 § 2.3.1 writes it: form-urlencoded. */
const formEncoded = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

/** HTTP Basic client credentials (RFC 6749 § 2.3.1's form); `encoded`: variant encoded-credentials' secret. */
export const basic = (client: ClientKey, encoded = false, vschar = false) =>
  `Basic ${Buffer.from(`${formEncoded(CLIENTS[client].id)}:${formEncoded(secretOf(client, encoded, vschar))}`).toString('base64')}`;

/** The application's secret: the seeded one, or variant encoded-credentials' (printable ASCII only under variant authorization-server-oidc). */
const secretOf = (client: ClientKey, encoded = false, vschar = false) =>
  encoded ? (vschar ? ENCODED_VSCHAR_SECRETS : ENCODED_SECRETS)[CLIENTS[client].id] : CLIENTS[client].secret;

/** The user's password: the seeded one, or variant encoded-credentials'. */
export const passwordOf = (user: UserKey, encoded = false) => (encoded ? ENCODED_PASSWORDS[USERS[user].email] : USERS[user].password);

export const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '+00:00');

/** First error object of an error body, whatever its shape (array or, under a fault, object). */
export function firstError(res: Res): { type?: unknown; message?: unknown; tip?: unknown } {
  const body = res.json;
  if (Array.isArray(body)) return body[0] ?? {};
  return body && typeof body === 'object' ? body : {};
}

export class Harness {
  readonly seed: Seed;
  private tokens = new Map<string, string>();
  /** The sign-in form's username field, as the server's page names it. */
  private readonly loginField: string;
  /** Variant authorization-server-oidc: signing in goes through oidc-provider's interaction (with its cookies). */
  private readonly oidc: boolean;
  /** Variant encoded-credentials: the secrets and passwords that HTTP Basic and forms must encode. */
  readonly encoded: boolean;
  /** Variant signin-keycloak: the login page's form posts to login-actions/authenticate, in the session its cookie names. */
  private readonly keycloak: boolean;
  /** Variant signin-csrf-cookie: the page's CSRF field and its cookie go with the form. */
  private readonly csrfCookie: boolean;

  private constructor(
    readonly app: FastifyInstance,
    readonly clock: { now: number },
    variant: string | undefined,
  ) {
    // The server's data: seedFor is pure and cached by clock value and seed options, so this is the
    // generation the app's store was built from (no second generation per harness).
    const variants = new Variants(variant);
    this.seed = seedFor(clock.now, seedOptions(variants));
    this.loginField = variants.has('signin-form-unlabelled') ? 'login' : 'username';
    this.oidc = variants.has('authorization-server-oidc');
    this.encoded = variants.has('encoded-credentials');
    this.keycloak = variants.has('signin-keycloak');
    this.csrfCookie = variants.has('signin-csrf-cookie');
  }

  /** Builds an app; the clock is mutable (h.clock.now += ...) but the data is generated at build time. */
  static async start(
    options: { mode?: Mode; fault?: string; variant?: string; latencyMs?: number; routeLatencyMs?: RouteLatency; now?: number } = {},
  ): Promise<Harness> {
    const clock = { now: options.now ?? NOW };
    const app = await buildReferenceApp({
      mode: options.mode ?? 'cloud',
      fault: options.fault,
      variant: options.variant,
      latencyMs: options.latencyMs,
      routeLatencyMs: options.routeLatencyMs,
      now: () => new Date(clock.now),
    });
    return new Harness(app, clock, options.variant);
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  async request(method: string, url: string, options: RequestOptions = {}): Promise<Res> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined = options.body;
    if (options.json !== undefined) {
      payload = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.form !== undefined) {
      payload = new URLSearchParams(options.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const res = await this.app.inject({ method: method as 'GET', url, headers, payload });
    let json: unknown;
    try {
      json = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers as Res['headers'], contentType: String(res.headers['content-type'] ?? ''), text: res.body, json };
  }

  get(url: string, token?: string, headers?: Record<string, string>): Promise<Res> {
    return this.request('GET', url, { token, headers });
  }

  post(url: string, options: RequestOptions = {}): Promise<Res> {
    return this.request('POST', url, options);
  }

  /** Submits the sign-in form; returns the 302 Location (or the failing response). */
  async signIn(options: SignInOptions = {}): Promise<Res & { location: URL | null }> {
    if (this.oidc) return this.signInThroughInteraction(options);
    const user = USERS[options.user ?? 'alice'];
    const form: Record<string, string> = {
      [this.loginField]: user.email,
      password: options.password ?? passwordOf(options.user ?? 'alice', this.encoded),
      client_id: CLIENTS[options.client ?? 'full'].id,
    };
    if (options.scope !== undefined) form.scope = options.scope;
    if (options.state !== undefined) form.state = options.state;
    if (options.redirectUri !== undefined) form.redirect_uri = options.redirectUri;
    let res = this.keycloak
      ? await this.signInThroughKeycloak(form)
      : this.csrfCookie
        ? await this.signInWithCsrf(form)
        : await this.post('/v3/auth/auth', { form });
    // Variants signin-consent-page and signin-continue-page: a page between the password and the redirect.
    const ticket = res.status === 200 ? /name="ticket" value="([^"]+)"/.exec(res.text)?.[1] : undefined;
    if (ticket && options.consent !== 'stop') res = await this.post('/v3/auth/consent', { form: { ticket, decision: options.consent ?? 'allow' } });
    const location = typeof res.headers.location === 'string' ? new URL(res.headers.location) : null;
    return { ...res, location };
  }

  /**
   * Variant signin-keycloak: the sign-in link shows the login page and sets its session cookie; its
   * form (its action's session codes, its CSRF field) is posted back with that cookie.
   */
  private async signInThroughKeycloak(form: Record<string, string>): Promise<Res> {
    const { username, password, ...link } = form;
    const page = await this.get(`/v3/auth/auth?${new URLSearchParams(link).toString()}`);
    const set = page.headers['set-cookie'];
    const cookie = (Array.isArray(set) ? set : [String(set ?? '')]).map((line) => line.split(';')[0]).join('; ');
    const action = /id="kc-form-login"[^>]*action="([^"]+)"/.exec(page.text)?.[1]?.replace(/&amp;/g, '&');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1];
    if (page.status !== 200 || !action || !csrf) return page;
    return this.post(`/v3/auth/${action}`, { form: { username, password, csrf_token: csrf, credentialId: '' }, headers: { cookie } });
  }

  /** Variant signin-csrf-cookie: the page first (its CSRF field and cookie), then the form with both. */
  private async signInWithCsrf(form: Record<string, string>): Promise<Res> {
    const { [this.loginField]: _login, password: _password, ...link } = form;
    const page = await this.get(`/v3/auth/auth?${new URLSearchParams(link).toString()}`);
    const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0];
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1];
    if (page.status !== 200 || !csrf) return page;
    return this.post('/v3/auth/auth', { form: { ...form, csrf_token: csrf }, headers: { cookie } });
  }

  /**
   * Variant authorization-server-oidc: the sign-in link (GET /v3/auth/auth shows the login page), the
   * login, the provider's resume, the consent page (allowed, denied, or stopped at), the resume again;
   * the browser's cookies carried along. The last answer is the redirect to redirect_uri (a 303).
   */
  private async signInThroughInteraction(options: SignInOptions): Promise<Res & { location: URL | null }> {
    const user = USERS[options.user ?? 'alice'];
    const cookies = new Map<string, string>();
    const send = async (method: string, url: string, form?: Record<string, string>): Promise<Res> => {
      const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await this.request(method, url, { headers: cookie ? { cookie } : {}, ...(form ? { form } : {}) });
      const set = res.headers['set-cookie'];
      for (const line of Array.isArray(set) ? set : set ? [String(set)] : []) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      return res;
    };
    const query = new URLSearchParams({ client_id: CLIENTS[options.client ?? 'full'].id });
    if (options.scope !== undefined) query.set('scope', options.scope);
    if (options.state !== undefined) query.set('state', options.state);
    if (options.redirectUri !== undefined) query.set('redirect_uri', options.redirectUri);
    const pathOf = (location: unknown) =>
      typeof location === 'string' ? new URL(location, 'http://localhost').pathname + new URL(location, 'http://localhost').search : '';
    const page = await send('GET', `/v3/auth/auth?${query}`);
    const login = /action="([^"]+\/login)"/.exec(page.text)?.[1];
    if (page.status !== 200 || !login) return { ...page, location: null };
    let res = await send('POST', login, { username: user.email, password: options.password ?? passwordOf(options.user ?? 'alice', this.encoded) });
    for (let step = 0; step < 4 && res.status === 303; step++) {
      const location = String(res.headers.location);
      if (!location.includes('/v3/auth/')) break;
      res = await send('GET', pathOf(location));
      const confirm = res.status === 200 ? /action="([^"]+\/(confirm|abort))"[^>]*>\s*<button[^>]*>Allow/.exec(res.text) : null;
      if (res.status === 200 && options.consent === 'stop') break;
      if (confirm) res = await send('POST', options.consent === 'deny' ? confirm[1].replace(/confirm$/, 'abort') : confirm[1]);
    }
    const location = typeof res.headers.location === 'string' && !res.headers.location.includes('/v3/auth/') ? new URL(res.headers.location) : null;
    return { ...res, location };
  }

  async code(options: SignInOptions = {}): Promise<string> {
    const res = await this.signIn(options);
    const code = res.location?.searchParams.get('code');
    if (!(res.status === 302 || (this.oidc && res.status === 303)) || !code)
      throw new Error(`sign-in did not redirect with a code: ${res.status} ${res.text.slice(0, 200)}`);
    return code;
  }

  exchange(fields: Record<string, string>, client: ClientKey | null = 'full'): Promise<Res> {
    return this.post('/v3/auth/access_token', { form: fields, headers: client ? { authorization: basic(client, this.encoded, this.oidc) } : {} });
  }

  /** Full token answer for a fresh sign-in. */
  async tokenResponse(options: TokenRequest = {}): Promise<any> {
    const code = await this.code(options);
    const res = await this.exchange({ grant_type: 'authorization_code', code }, options.client ?? 'full');
    if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${res.text}`);
    // Parsed from the text: a token answer must be usable whatever its content type.
    return JSON.parse(res.text);
  }

  /** An access token, cached per (user, client, scope). */
  async token(options: TokenRequest = {}): Promise<string> {
    const key = `${options.user ?? 'alice'}|${options.client ?? 'full'}|${options.scope ?? '*'}`;
    let token = this.tokens.get(key);
    if (!token) {
      token = (await this.tokenResponse(options)).access_token as string;
      this.tokens.set(key, token);
    }
    return token;
  }

  alice(): Promise<string> {
    return this.token({ user: 'alice' });
  }

  bob(): Promise<string> {
    return this.token({ user: 'bob' });
  }

  /** Forgets cached tokens (after /_control/reset). */
  forgetTokens(): void {
    this.tokens.clear();
  }

  /** The most recent trip of a car (always inside the default range). */
  latestTrip(carId: number): string {
    const trips = this.seed.histories.get(carId)?.trips ?? [];
    const trip = trips[trips.length - 1];
    if (!trip) throw new Error(`car ${carId} has no trips`);
    return trip.id;
  }
}

/** Haversine in km with the 6371 km sphere, computed independently of the server's code. */
export function haversine(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const r = (d: number) => (d * Math.PI) / 180;
  const dLat = r(b.latitude - a.latitude);
  const dLon = r(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(r(a.latitude)) * Math.cos(r(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

export const STRICT_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function expectErrorShape(res: Res): void {
  if (!Array.isArray(res.json) || res.json.length === 0) throw new Error(`not an error array: ${res.status} ${res.text.slice(0, 200)}`);
  for (const e of res.json) {
    if (typeof e.type !== 'string' || typeof e.message !== 'string' || typeof e.tip !== 'string' || e.tip === '') {
      throw new Error(`bad error item: ${JSON.stringify(e)}`);
    }
    if (!['AUTHENTICATION_ERROR', 'AUTHORIZATION_ERROR', 'PARAMETERS_ERROR'].includes(e.type)) throw new Error(`bad error type ${e.type}`);
  }
  if (!/^application\/json; charset=utf-8$/.test(res.contentType)) throw new Error(`bad content type ${res.contentType}`);
}
