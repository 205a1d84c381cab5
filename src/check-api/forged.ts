// Forged credentials: a credential whose own format says it can be read - a JWT (RFC 7519): three
// base64url parts, the first a JSON header naming its algorithm (RFC 7515 § 4.1.1) - presented as an
// attacker rewrites it: its claims edited under its own signature (another user's subject, every scope,
// an expiry a year out), its signature stripped or replaced, its algorithm named "none" (RFC 7519 § 6,
// in the spellings blocklists miss) with no signature, or HMAC where it is signed asymmetrically, keyed
// with what an attacker has: the server's published public key (algorithm confusion, RFC 8725 § 2.1,
// § 3.1) or an empty key. A server must refuse each as a token it never issued. An opaque token offers
// nothing to forge: readJwt gives nothing, and the checks say so (not applicable).
//
// Each forgery is another token, never another spelling of the same one: a lenient decoder (base64's
// alphabet, padding, a last character's unused bits) reads different bytes in every form below.
import { createHmac, createPublicKey, type JsonWebKey } from 'node:crypto';
import { readJwt, signedAsymmetrically, type ReadableToken } from '../setup/published-keys';
import { NotReplayable, replayDir } from '../setup/replay';
import type { RunContext } from '../setup/run-context';
import { SCOPES, type TokenKey } from '../setup/target';

export { readJwt, type ReadableToken };

/** The forged forms of a readable token (requirements.yaml `forged`). */
export const FORGED_FORMS = ['subject', 'scope', 'expiry', 'stripped', 'replaced', 'alg-none', 'hmac-public-key', 'hmac-empty-key'] as const;
export type ForgedForm = (typeof FORGED_FORMS)[number];

/** "none" as a blocklist that compares exactly misses it (RFC 7518 § 3.6 names it in lower case). */
const NONE_SPELLINGS = ['none', 'None', 'NONE', 'nOnE'];

export interface Forgery {
  form: ForgedForm;
  value: string;
  /** The forgery in words ("its algorithm named \"None\", no signature"). */
  what: string;
}

/** What forging takes besides the token: the other subjects it may claim, and the keys the server publishes (its JWKS). */
export interface ForgeInputs {
  /** Subjects of the run's other users (their tokens' sub, else their ids), the first another than the token's own is claimed. */
  subjects: Array<string | number>;
  /** The public keys the server publishes (a JWKS's keys), for HMAC keyed with them. */
  publicKeys?: JsonWebKey[];
}

/**
 * What forging a token of the run takes: the subjects another user's token would claim (the other
 * users' tokens' sub and their ids first, then the primary user's), and the keys the server publishes.
 */
export function forgeInputs(run: Pick<RunContext, 'tokens' | 'data' | 'publishedKeys'>): ForgeInputs {
  const sub = (key: TokenKey) => {
    const value = run.tokens[key];
    const claims = value ? readJwt(value)?.claims : undefined;
    return claims?.sub === undefined ? [] : [String(claims.sub)];
  };
  const ids = (key: 'userId' | 'otherUserId') => (run.data[key] ? [run.data[key]!] : []);
  return {
    subjects: [...sub('otherUser'), ...sub('issued.otherUser'), ...ids('otherUserId'), ...sub('full'), ...sub('issued.full'), ...ids('userId')],
    publicKeys: run.publishedKeys,
  };
}

/**
 * A forgery is made of the credential's own bytes, which a certification archive never holds (its tokens
 * are placeholders, its answers redacted): replayed by verify, a check that forges is verified from the record.
 */
export function forgingNeedsTheCredential(): void {
  if (replayDir()) throw new NotReplayable('forging a credential needs its own bytes, which a certification archive never holds');
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The PEM texts of a published key an attacker tries as an HMAC secret: SPKI as exported (and without its last newline), PKCS#1 for RSA. */
function keyTexts(jwk: JsonWebKey): string[] {
  try {
    const key = createPublicKey({ key: jwk, format: 'jwk' });
    const spki = String(key.export({ type: 'spki', format: 'pem' }));
    const pkcs1 = key.asymmetricKeyType === 'rsa' ? [String(key.export({ type: 'pkcs1', format: 'pem' }))] : [];
    return [spki, spki.trimEnd(), ...pkcs1];
  } catch {
    return [];
  }
}

/** The published keys that may verify the token: the one its header names (kid), else every key not for encryption. */
function signingKeys(token: ReadableToken, keys: JsonWebKey[]): JsonWebKey[] {
  const named = keys.filter((k) => token.header.kid !== undefined && (k as { kid?: unknown }).kid === token.header.kid);
  return named.length ? named : keys.filter((k) => (k as { use?: unknown }).use !== 'enc');
}

/** The claims with one edited, or undefined when the edit would change nothing. */
function edited(token: ReadableToken, form: 'subject' | 'scope' | 'expiry', inputs: ForgeInputs): Record<string, unknown> | undefined {
  const { claims } = token;
  if (form === 'subject') {
    if (claims.sub === undefined) return undefined;
    const other = inputs.subjects.find((s) => String(s) !== String(claims.sub));
    if (other === undefined) return undefined;
    return { ...claims, sub: typeof claims.sub === 'number' ? Number(other) : String(other) };
  }
  if (form === 'scope') {
    const field = typeof claims.scope === 'string' ? 'scope' : claims.scp !== undefined ? 'scp' : undefined;
    if (!field) return undefined;
    const held = Array.isArray(claims[field]) ? (claims[field] as unknown[]).map(String) : String(claims[field]).split(' ').filter(Boolean);
    const wider = [...new Set([...held, ...SCOPES])];
    if (wider.length === held.length) return undefined;
    return { ...claims, [field]: Array.isArray(claims[field]) ? wider : wider.join(' ') };
  }
  if (typeof claims.exp !== 'number') return undefined;
  return { ...claims, exp: claims.exp + 365 * 24 * 3600 };
}

const EDIT_WORDS = {
  subject: "its subject (sub) made another user's, under its own signature",
  scope: 'its scope claim widened to every scope of the API, under its own signature',
  expiry: 'its expiry (exp) pushed a year out, under its own signature',
} as const;

/** HS256 over the header (its alg so named) and the claims, keyed with `key`. */
function hmacSigned(token: ReadableToken, key: string): string {
  const input = `${encode({ ...token.header, alg: 'HS256' })}.${token.parts[1]}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

/** The forged forms asked for of a readable token, each another token; a form the token gives nothing to (no exp claim, no published key) is left out. */
export function forgeries(token: ReadableToken, forms: readonly ForgedForm[], inputs: ForgeInputs): Forgery[] {
  const [header, payload, signature] = token.parts;
  const out: Forgery[] = [];
  for (const form of forms) {
    switch (form) {
      case 'subject':
      case 'scope':
      case 'expiry': {
        const claims = edited(token, form, inputs);
        if (claims) out.push({ form, value: `${header}.${encode(claims)}.${signature}`, what: EDIT_WORDS[form] });
        break;
      }
      case 'stripped':
        out.push({ form, value: `${header}.${payload}.`, what: 'its signature stripped' });
        break;
      case 'replaced': {
        // Every byte of the signature flipped: as long as the original, and other bytes however it is decoded.
        const flipped = Buffer.from(signature, 'base64url').map((b) => b ^ 0xff);
        if (flipped.length) out.push({ form, value: `${header}.${payload}.${Buffer.from(flipped).toString('base64url')}`, what: 'its signature replaced' });
        break;
      }
      case 'alg-none':
        for (const alg of NONE_SPELLINGS) {
          out.push({ form, value: `${encode({ ...token.header, alg })}.${payload}.`, what: `its algorithm named "${alg}", no signature` });
        }
        break;
      case 'hmac-public-key':
        if (!signedAsymmetrically(token)) break;
        for (const [i, text] of signingKeys(token, inputs.publicKeys ?? [])
          .flatMap(keyTexts)
          .entries()) {
          out.push({ form, value: hmacSigned(token, text), what: `signed HS256 keyed with the published public key (text ${i + 1})` });
        }
        break;
      case 'hmac-empty-key':
        out.push({ form, value: hmacSigned(token, ''), what: 'signed HS256 keyed with an empty key' });
        break;
    }
  }
  return out.filter((f, i) => f.value !== token.parts.join('.') && !out.slice(0, i).some((o) => o.value === f.value));
}
