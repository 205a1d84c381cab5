// What the triage reads in one recorded exchange (src/transport/exchange.ts Exchange): whether its body is the
// API's error array, its media type, whether its credential made it a valid request. The triage
// judges answers by these facts only (never by a check's name), so each is defined once, here.
import { requestLine, type Exchange } from '../transport/exchange';
import { mediaType } from '../check-api/assertions';
import type { Route } from '../catalogue/catalogue';
import { checkContract } from '../schemas/validate';
import type { CheckRecord } from './check-record';

/** Media types a JSON answer may carry: application/json, application/geo+json, any +json. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const type = mediaTypeOf(contentType);
  return type === 'application/json' || type.endsWith('+json');
}

export function mediaTypeOf(contentType: string | undefined): string {
  return mediaType(contentType ?? '');
}

export function contentTypeOf(e: Exchange): string | undefined {
  return e.responseHeaders?.['content-type'];
}

const parsed = new WeakMap<Exchange, { json: boolean; value?: unknown }>();

/** The answer's body as JSON, when its (recorded) excerpt is JSON. */
export function jsonBody(e: Exchange): { json: boolean; value?: unknown } {
  let p = parsed.get(e);
  if (!p) {
    try {
      p = e.bodyExcerpt ? { json: true, value: JSON.parse(e.bodyExcerpt) } : { json: false };
    } catch {
      p = { json: false };
    }
    parsed.set(e, p);
  }
  return p;
}

/** The excerpt was cut (src/transport/api.ts says so where it keeps EXCERPT_CHARS): its JSON cannot be judged. */
function cut(e: Exchange): boolean {
  return e.excerptCut === true && !jsonBody(e).json;
}

/**
 * The body is the spec's error array (vehicle-data-service-v3.md § Errors, Body). An excerpt cut
 * short is given the benefit of the doubt when it begins like an array.
 */
export function isApiError(e: Exchange): boolean {
  if (cut(e)) return e.bodyExcerpt!.trimStart().startsWith('[');
  const body = jsonBody(e);
  return body.json && checkContract('errorArray', body.value).length === 0;
}

/** An HTTP answer came (no timeout, no connection failure). */
export function answered(e: Exchange): e is Exchange & { status: number } {
  return e.status !== undefined && !e.error;
}

export function isSuccess(e: Exchange): boolean {
  return answered(e) && e.status >= 200 && e.status < 300;
}

/**
 * A request the route should serve: the primary user's token (every scope), or no credential where
 * none is needed (the auth routes; a sandbox's open routes). A request made outside
 * CheckContext.call has no recorded credential: valid only on a route that needs none.
 */
export function isValidRequest(e: Exchange, route: Route, env: string): boolean {
  const open = route.public || (env === 'sandbox' && route.sandboxOpen);
  if (e.credential === undefined) return route.public;
  return e.credential === 'full' || (open && e.credential === 'none');
}

/** A token of the run that lacks some scopes: which it lacks, or undefined for any other credential. */
export function missingScopes(e: Exchange, route: Route): string[] | undefined {
  if (e.credential === 'noScopes') return [...route.scopes];
  const m = /^withoutScope\.(.+)$/.exec(e.credential ?? '');
  return m ? [m[1]] : undefined;
}

/**
 * The exchange that showed the check's failure: the one its failure names (request line), else its
 * last request (a failure without a request: a check that ran out of time).
 */
export function decisiveExchange(r: CheckRecord): Exchange | undefined {
  const line = r.failure?.request;
  const exchanges = r.exchanges ?? [];
  const named = line ? exchanges.filter((e) => requestLine(e) === line) : [];
  return named[named.length - 1] ?? exchanges[exchanges.length - 1];
}

/** What an error body is, in a few words: the shape a reader recognises ("a JSON object {type, message, tip}"). */
export function bodyShape(e: Exchange): string {
  if (!e.bodyExcerpt) return 'an empty body';
  const body = jsonBody(e);
  if (!body.json) {
    if (cut(e)) return 'a body too long to read';
    return /^\s*</.test(e.bodyExcerpt)
      ? `HTML (${mediaTypeOf(contentTypeOf(e)) || 'no content type'})`
      : `plain text (${mediaTypeOf(contentTypeOf(e)) || 'no content type'})`;
  }
  const v = body.value;
  const members = (o: unknown) =>
    `{${Object.keys(o as object)
      .slice(0, 5)
      .join(', ')}${Object.keys(o as object).length > 5 ? ', …' : ''}}`;
  if (Array.isArray(v)) {
    if (v.length === 0) return 'an empty JSON array';
    const first = v[0];
    return first !== null && typeof first === 'object' && !Array.isArray(first) ? `a JSON array of ${members(first)}` : `a JSON array of ${typeof first}s`;
  }
  if (v !== null && typeof v === 'object') return `a JSON object ${members(v)}`;
  return `a JSON ${v === null ? 'null' : typeof v}`;
}
