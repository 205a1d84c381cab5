// Forged credentials (src/check-api/forged.ts): only a token whose format says it can be read (a JWT)
// is forged; each forgery is another token (never the same bytes under a lenient decoder) and none
// verifies with the server's key; a form the token gives nothing to is left out.
import { createHmac, generateKeyPairSync, sign, verify } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { forgeries, readJwt, type ForgedForm } from '../../../src/check-api/forged';
import { SCOPES } from '../../../src/setup/target';

const ALL: ForgedForm[] = ['subject', 'scope', 'expiry', 'stripped', 'replaced', 'alg-none', 'hmac-public-key', 'hmac-empty-key'];
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function rs256(claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT', kid: 'k1' }): string {
  const input = `${encode(header)}.${encode(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** Whether a token still verifies as the server verifies it: RS256 with its key. */
const verifies = (token: string) => {
  const [h, p, s] = token.split('.');
  return verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64'));
};

const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' };

test('only a JWT is read: three base64url parts, a JSON header naming its algorithm, JSON claims', () => {
  expect(readJwt(rs256({ sub: '101' }))?.claims.sub).toBe('101');
  for (const opaque of [
    'vds-conformance-unknown-token-7f3a9c',
    'abc.def',
    `${encode({ alg: 'RSA-OAEP', enc: 'A256GCM' })}.a.b.c.d`,
    `${encode({ typ: 'JWT' })}.${encode({ sub: '1' })}.sig`,
    `${encode({ alg: 'RS256' })}.bm90IGpzb24.sig`,
    `${encode({ alg: 'RS256' })}.${encode({ sub: '1' })}.si+g/=`,
  ]) {
    expect(readJwt(opaque), opaque).toBeUndefined();
  }
});

test('every form of an RS256 token is another token that does not verify, with the edit it says', () => {
  const exp = 1_900_000_000;
  const token = rs256({ sub: '101', scope: 'users_read cars_read', exp, client_id: 'app' });
  expect(verifies(token)).toBe(true);
  const forged = forgeries(readJwt(token)!, ALL, { subjects: ['101', '102'], publicKeys: [jwk] });
  expect([...new Set(forged.map((f) => f.form))].sort()).toEqual([...ALL].sort());
  // Four spellings of none; three texts of the published key (SPKI, SPKI without its last newline, PKCS#1).
  expect(forged.filter((f) => f.form === 'alg-none')).toHaveLength(4);
  expect(forged.filter((f) => f.form === 'hmac-public-key')).toHaveLength(3);
  for (const f of forged) {
    const parts = f.value.split('.');
    const original = token.split('.');
    // Other bytes in some part however a lenient decoder reads it (base64's alphabet, padding, unused bits).
    expect(
      parts.some((p, i) => Buffer.from(p, 'base64').toString('hex') !== Buffer.from(original[i], 'base64').toString('hex')),
      f.what,
    ).toBe(true);
    expect(verifies(f.value), f.what).toBe(false);
  }
  const claimsOf = (form: ForgedForm) => readJwt(forged.find((f) => f.form === form)!.value)!.claims;
  expect(claimsOf('subject').sub).toBe('102');
  expect(String(claimsOf('scope').scope).split(' ').sort()).toEqual([...SCOPES].sort());
  expect(claimsOf('expiry').exp).toBe(exp + 365 * 24 * 3600);
  expect(forged.find((f) => f.form === 'stripped')!.value.endsWith('.')).toBe(true);
});

test('HMAC keyed with the published key is what algorithm confusion verifies: HS256 over the PEM text a server holds', () => {
  const token = readJwt(rs256({ sub: '101' }))!;
  const [first] = forgeries(token, ['hmac-public-key'], { subjects: [], publicKeys: [jwk] });
  const [h, p, s] = first.value.split('.');
  expect(JSON.parse(Buffer.from(h, 'base64url').toString()).alg).toBe('HS256');
  const pem = publicKey.export({ type: 'spki', format: 'pem' });
  expect(createHmac('sha256', pem).update(`${h}.${p}`).digest('base64url')).toBe(s);
});

test('a form the token gives nothing to is left out: its own subject only, every scope already, no exp, a symmetric algorithm, no published key', () => {
  const full = readJwt(rs256({ sub: '101', scope: SCOPES.join(' ') }))!;
  const forms = forgeries(full, ALL, { subjects: ['101'] }).map((f) => f.form);
  for (const absent of ['subject', 'scope', 'expiry', 'hmac-public-key'] as const) expect(forms).not.toContain(absent);
  const hs = readJwt(`${encode({ alg: 'HS256' })}.${encode({ sub: 7, scp: ['users_read'] })}.c2ln`)!;
  const hsForged = forgeries(hs, ALL, { subjects: [7, 8], publicKeys: [jwk] });
  expect(hsForged.map((f) => f.form)).not.toContain('hmac-public-key');
  // A numeric subject stays a number, an array of scopes an array.
  expect(readJwt(hsForged.find((f) => f.form === 'subject')!.value)!.claims.sub).toBe(8);
  expect(Array.isArray(readJwt(hsForged.find((f) => f.form === 'scope')!.value)!.claims.scp)).toBe(true);
});
