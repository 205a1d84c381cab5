// What a token's own format says of it, and the keys its server publishes. A JWT (RFC 7519) names its
// algorithm in a header anyone can read; one signed asymmetrically is verified with a public key its
// server publishes as a JWKS (RFC 7517), which OpenID Connect Discovery's document names (jwks_uri). An
// attacker has that key; so does the run, to try what an attacker would do with it (check-api forged.ts:
// HMAC keyed with it). The keys are looked for once, where a client finds them, on the target's own
// origin only (a request elsewhere would carry the target's headers to another host): the issuer's
// discovery document (its iss claim), then the API's sign-in base (<baseUrl>/auth), then the origin's.
import type { JsonWebKey } from 'node:crypto';
import type { Preparation } from './preparation';

/** A JWT read: its header and claims (JSON objects), and its three parts as they came. */
export interface ReadableToken {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  parts: [string, string, string];
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function jsonObject(part: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The token read as a JWS-signed JWT where its format says it is one: three parts of base64url, the first a
 * JSON object naming its algorithm, the second a JSON object (its claims). Anything else is undefined: opaque.
 */
export function readJwt(token: string): ReadableToken | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p)) || !parts[0] || !parts[1]) return undefined;
  const header = jsonObject(parts[0]);
  const claims = jsonObject(parts[1]);
  if (!header || typeof header.alg !== 'string' || !claims) return undefined;
  return { header, claims, parts: parts as [string, string, string] };
}

/** Whether the token's algorithm is asymmetric (RSA, RSA-PSS, ECDSA, EdDSA): its key may be published. */
export function signedAsymmetrically(token: ReadableToken): boolean {
  return /^(RS|PS|ES)\d+$|^EdDSA$/.test(String(token.header.alg));
}

/** The places a discovery document may be, on the target's origin: the issuer's (its iss claim), the API's sign-in base, the origin's. */
function discoveryUrls(baseUrl: string, issuers: string[]): string[] {
  const origin = new URL(baseUrl).origin;
  const own = issuers.filter((iss) => URL.canParse(iss) && new URL(iss).origin === origin).map((iss) => iss.replace(/\/+$/, ''));
  return [...new Set([...own, `${baseUrl.replace(/\/+$/, '')}/auth`, origin].map((base) => `${base}/.well-known/openid-configuration`))];
}

function keysOf(body: unknown): JsonWebKey[] {
  const keys = (body as { keys?: unknown } | undefined)?.keys;
  return Array.isArray(keys) ? keys.filter((k): k is JsonWebKey => !!k && typeof k === 'object' && typeof (k as { kty?: unknown }).kty === 'string') : [];
}

/**
 * The keys the server publishes for its asymmetrically signed tokens (run.publishedKeys), when any token
 * of the run is one; a warning when none is found (the checks then forge without them).
 */
export async function learnPublishedKeys(prep: Pick<Preparation, 'target' | 'api' | 'run'>): Promise<void> {
  const { target, api, run } = prep;
  const signed = Object.values(run.tokens)
    .map((t) => (t ? readJwt(t) : undefined))
    .filter((t): t is ReadableToken => t !== undefined && signedAsymmetrically(t));
  if (signed.length === 0) return;
  const origin = new URL(target.baseUrl).origin;
  const json = async (url: string) => {
    const res = await api.get(url, { authorization: null }).catch(() => undefined);
    return res?.status === 200 ? res.json : undefined;
  };
  const tried: string[] = [];
  for (const url of [
    ...discoveryUrls(
      target.baseUrl,
      signed.map((t) => String(t.claims.iss ?? '')),
    ),
    `${origin}/.well-known/jwks.json`,
  ]) {
    tried.push(url);
    const found = await json(url);
    const jwksUri = (found as { jwks_uri?: unknown } | undefined)?.jwks_uri;
    const keys = typeof jwksUri === 'string' && URL.canParse(jwksUri) && new URL(jwksUri).origin === origin ? keysOf(await json(jwksUri)) : keysOf(found);
    if (keys.length) {
      run.publishedKeys = keys;
      return;
    }
  }
  run.warnings.push(
    `the run's tokens are JWTs signed ${String(signed[0].header.alg)}, but no published key was found (${tried.join(', ')}): ` +
      'forging them with the public key as an HMAC secret was not tried',
  );
}
