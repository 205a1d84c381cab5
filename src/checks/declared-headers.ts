// What answers declare: an answer's headers are a contract with every cache and browser on the way.
// The token endpoint's answers that carry tokens must not be kept by any cache (RFC 6749 § 5.1); an
// answer of personal data read with a token must not tell a shared cache it may hand it to someone
// else without asking the server (RFC 9111 § 3.5); the page that takes the password must refuse to
// be framed by another site (RFC 9700 § 4.16). Each is read as the cache or the browser reads it, no
// stricter: a false alarm on a modern server is worse than a missed header.
import { type CheckContext, expectStatus, fail, NotRun, type ApiResponse, signInForCheck, tokenRequest } from '../check-api';
import { callValid } from './responses';
import { codeForTokenEndpoint, codeGrant, requireOauth, tokenOf, withBrowser } from './token-endpoint';

// ---------------------------------------------------------------- Cache-Control read as RFC 9111 § 5.2 writes it

/** A Cache-Control field's directives (every field line joined), by lowercase name: a value without quotes, or true. */
export function cacheDirectives(field: string | undefined): Map<string, string | true> {
  const out = new Map<string, string | true>();
  // Directives are separated by commas outside quoted strings (a qualified private="a, b").
  for (const part of (field ?? '').match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const [name, ...rest] = part.split('=');
    const key = name.trim().toLowerCase();
    if (!key || out.has(key)) continue;
    out.set(key, rest.length ? rest.join('=').trim().replace(/^"|"$/g, '') : true);
  }
  return out;
}

/** A delta-seconds directive's value, or undefined when absent or not a number. */
function seconds(d: Map<string, string | true>, name: string): number | undefined {
  const v = d.get(name);
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * Why a shared cache may give this answer, to a request that carried Authorization, to another
 * requester without asking the server again; undefined when it may not. RFC 9111 § 3.5: it may store it
 * only when the answer says public, s-maxage or must-revalidate (no-store and an unqualified private
 * forbid it); § 4.2: it serves it unasked only while fresh (an unqualified no-cache forbids that), its
 * lifetime from s-maxage, else max-age, else Expires less Date, else, for an answer marked public, a
 * lifetime of its own choosing (§ 4.2.2).
 */
export function sharedReuse(headers: Record<string, string>): string | undefined {
  const field = headers['cache-control'];
  const d = cacheDirectives(field);
  if (d.has('no-store') || d.get('private') === true) return undefined;
  const allowing = ['public', 's-maxage', 'must-revalidate'].filter((k) => d.has(k));
  if (allowing.length === 0 || d.get('no-cache') === true) return undefined;
  const sMaxAge = seconds(d, 's-maxage');
  const maxAge = seconds(d, 'max-age');
  const expires = Date.parse(headers.expires ?? '');
  const date = Date.parse(headers.date ?? '');
  let fresh: string | undefined;
  if (sMaxAge !== undefined) fresh = sMaxAge > 0 ? `s-maxage=${sMaxAge}` : undefined;
  else if (maxAge !== undefined) fresh = maxAge > 0 ? `max-age=${maxAge}` : undefined;
  else if (headers.expires !== undefined) fresh = !Number.isNaN(expires) && !Number.isNaN(date) && expires > date ? `Expires ${headers.expires}` : undefined;
  else if (d.has('public')) fresh = 'no lifetime given, which a cache may then choose (RFC 9111 § 4.2.2)';
  if (!fresh) return undefined;
  return `Cache-Control: ${field} (${allowing.join(', ')}: a shared cache may store it; fresh for ${fresh})`;
}

// ---------------------------------------------------------------- framing, read as a browser reads it

/**
 * Whether a browser lets another origin frame a page with these headers, as the HTML standard's
 * processing model and CSP's frame-ancestors read them: an enforced policy with frame-ancestors decides
 * alone (X-Frame-Options is then ignored), and the page is framed only where every such policy allows
 * any origin (a source *, a scheme alone such as https:, a host *); else X-Frame-Options DENY or
 * SAMEORIGIN (or conflicting values, read as DENY) refuses. Returns what lets it be framed, or undefined.
 */
export function framedBy(headers: Array<{ name: string; value: string }>): string | undefined {
  const values = (name: string) => headers.filter((h) => h.name.toLowerCase() === name).map((h) => h.value);
  const policies = values('content-security-policy').flatMap((v) => v.split(','));
  const ancestors = policies
    .map((p) =>
      p
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .find(([name]) => name?.toLowerCase() === 'frame-ancestors'),
    )
    .filter((d): d is string[] => d !== undefined)
    .map(([, ...sources]) => sources);
  if (ancestors.length) {
    const anyOrigin = (source: string) =>
      source === '*' || /^[a-z][a-z0-9+.-]*:$/i.test(source) || /^([a-z][a-z0-9+.-]*:\/\/)?\*(:[\d*]+)?(\/.*)?$/i.test(source);
    const open = ancestors.filter((sources) => sources.some(anyOrigin));
    return open.length === ancestors.length ? `Content-Security-Policy frame-ancestors ${open.map((s) => s.join(' ')).join(' / ')}: any origin` : undefined;
  }
  const options = [...new Set(values('x-frame-options').flatMap((v) => v.split(',').map((x) => x.trim().toLowerCase())))];
  if (options.length > 1 && options.some((o) => ['deny', 'sameorigin', 'allowall'].includes(o))) return undefined;
  if (options.length === 1 && (options[0] === 'deny' || options[0] === 'sameorigin')) return undefined;
  const xfo = values('x-frame-options');
  return xfo.length
    ? `X-Frame-Options: ${xfo.join(', ')} (not a value browsers read) and no frame-ancestors`
    : 'neither X-Frame-Options nor a frame-ancestors policy';
}

// ---------------------------------------------------------------- the checks

/** The answer's Cache-Control has no-store; without Pragma: no-cache, a warning (decision D-TOKEN-NO-STORE). */
function expectNoStore(ctx: CheckContext, res: ApiResponse, what: string): void {
  const field = res.headers['cache-control'];
  if (!cacheDirectives(field).has('no-store')) {
    fail({
      expected: `${what}: Cache-Control: no-store (RFC 6749 § 5.1: no cache may keep the tokens)`,
      actual: field === undefined ? 'no Cache-Control' : `Cache-Control: ${field}`,
      exchange: res.exchange,
    });
  }
  if (!/(^|,)\s*no-cache\s*(,|$)/i.test(res.headers.pragma ?? ''))
    ctx.warn(`${what}: no Pragma: no-cache (RFC 6749 § 5.1 names it; RFC 9111 § 5.4 deprecates it: only warned)`);
}

/**
 * "The authorization server MUST include the HTTP Cache-Control response header field with a value of
 * no-store in any response containing tokens" (RFC 6749 § 5.1): the answers of the authorization_code
 * grant and of the refresh_token grant.
 */
export async function tokenNoStore(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const first = await codeGrant(ctx, code);
  if (first.status !== 200) throw new NotRun(`exchanging a fresh code answered ${first.status} (TOKEN-CODE-GRANT judges it)`);
  const token = tokenOf(ctx, first, 'exchanging a fresh code');
  expectNoStore(ctx, first, 'the answer of the authorization_code grant');
  if (typeof token.refresh_token !== 'string' || !token.refresh_token) {
    ctx.warn("the token record has no refresh_token: the refresh grant's answer was not judged (TOKEN-REFRESH judges it)");
    return;
  }
  const refreshed = await tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: token.refresh_token });
  expectStatus(refreshed, 200, 'refreshing the token');
  tokenOf(ctx, refreshed, 'refreshing the token');
  expectNoStore(ctx, refreshed, 'the answer of the refresh_token grant');
}

/**
 * A protected read route's success, read with the primary user's token, does not tell a shared cache
 * it may give it to another requester without asking the server (RFC 9111 § 3.5; decision
 * D-SHARED-CACHE-DECLARED). Saying nothing, private, no-store, no-cache or a lifetime of 0 is safe.
 */
export async function personalNotSharedCacheable(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const res = await callValid(ctx, route);
  if (res.status < 200 || res.status > 299) throw new NotRun(`the primary user's request answered ${res.status}, not a success (RESP-STATUS judges the route)`);
  const why = sharedReuse(res.headers);
  if (why) {
    fail({
      expected: `the answer of ${route.route} to a request carrying Authorization (the primary user's data) is not given by a shared cache to another requester: private or no-store, or no-cache, or no lifetime`,
      actual: why,
      exchange: res.exchange,
    });
  }
}

/**
 * The page that takes the password refuses to be framed by another origin (RFC 9700 § 4.16; decision
 * D-SIGNIN-FRAMING): the document that held the password field as the primary user signed in (after
 * the sign-in link's redirects and the steps before the password), its headers read as a browser does.
 */
export async function signinNotFramed(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const signed = await withBrowser(ctx, (b) => signInForCheck(ctx.run, b, ctx.target, { username: o.username, password: o.password, observe: true }));
  if (signed.code) ctx.redactor.add(signed.code);
  const page = signed.passwordPage;
  if (!page) throw new NotRun('the sign-in showed no password field to judge the page of (SIGNIN-PAGE judges the sign-in)');
  const framed = framedBy(page.headers);
  if (framed) {
    fail({
      expected: `the page that takes the password (${ctx.redactor.redact(page.url)}) refuses to be framed by other origins: Content-Security-Policy frame-ancestors without a wildcard, or X-Frame-Options DENY or SAMEORIGIN`,
      actual: framed,
    });
  }
}
