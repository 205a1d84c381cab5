// A request's Cookie header read by name: the sign-in pages' sessions (oauth.ts, vendor-flows.ts).
import type { FastifyRequest } from 'fastify';

/** Fault blind-sso-cookie-authenticates-api: the single sign-on session the sign-in sets, which the faulty API takes for a token. */
export const SSO_COOKIE = 'vds_session';

/** A request's cookies by name (the first of each). */
export function cookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? '').split(/; */)) {
    const eq = part.indexOf('=');
    if (eq > 0 && !(part.slice(0, eq) in out)) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}
