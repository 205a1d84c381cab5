// Variant jwt-access-tokens: access and refresh tokens are JWTs (RFC 7519), signed RS256 with a key of the
// server's own, its public half published as a JWKS (RFC 7517) that OpenID Connect Discovery's document
// names, as Keycloak, Okta or Auth0 issue them. A resource server reads such a token's claims (who, which
// scopes, until when) once its signature is verified; the token store is still asked for its id (jti): a
// revoked or forcibly expired token, or one forgotten by a reset, is refused.
//
// Verification is jose's (panva/jose, the library oidc-provider itself rests on), with the algorithm
// pinned. jose decodes each part with Node's base64url decoder, which is lenient as most libraries'
// decoders are: it takes base64's alphabet too, padding, and ignores the unused bits of the last
// character. Signing is node:crypto's (the same RS256, synchronous where the token store issues).
//
// The faults of the variant are the defects JWT libraries and their callers have shipped: the algorithm
// "none" taken (jwt-alg-none-accepted), the token decoded instead of verified (jwt-signature-not-verified),
// a token without a signature taken as verified (jwt-stripped-signature-accepted), the public key used as
// an HMAC secret when the token names HS256 (jwt-hmac-public-key-accepted: algorithm confusion), and the
// refresh grant reading the grant from an unverified refresh token (jwt-refresh-signature-not-verified).
import { createHash, createSecretKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Faults } from '../switches';

/** What a token of the variant says of itself. */
export interface TokenClaims {
  sub: string;
  client_id: string;
  scope: string;
  exp: number;
  iat: number;
  jti: string;
  /** Keycloak's: which kind of token (Bearer: an access token; Refresh). */
  typ: 'Bearer' | 'Refresh';
}

/** A refresh token of the variant lives this long (its exp claim), as Keycloak's session idle time. */
const REFRESH_LIFETIME_S = 30 * 24 * 3600;

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export class JwtIssuer {
  private readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The key's id (RFC 7638 thumbprint), named in each token's header and in the JWKS. */
  readonly keyId: string;
  /** The issuer (iss): the sign-in page's base URL, as the first request that reached the server named its host. */
  issuer = 'http://localhost/v3/auth';

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = privateKey;
    this.publicKey = publicKey;
    const { e, n } = publicKey.export({ format: 'jwk' });
    this.keyId = createHash('sha256')
      .update(JSON.stringify({ e, kty: 'RSA', n }))
      .digest('base64url');
  }

  /** The published key set (GET /v3/auth/certs). */
  jwks(): { keys: Array<Record<string, unknown>> } {
    return { keys: [{ ...this.publicKey.export({ format: 'jwk' }), kid: this.keyId, alg: 'RS256', use: 'sig' }] };
  }

  /** A signed token for these claims (the access or refresh token of a grant). */
  sign(claims: Omit<TokenClaims, 'jti' | 'iat' | 'exp'> & { exp?: number }, nowMs: number): { value: string; jti: string } {
    const jti = randomBytes(16).toString('hex');
    const iat = Math.floor(nowMs / 1000);
    const body = { iss: this.issuer, ...claims, exp: claims.exp ?? iat + REFRESH_LIFETIME_S, iat, jti };
    const input = `${encode({ alg: 'RS256', typ: 'JWT', kid: this.keyId })}.${encode(body)}`;
    return { value: `${input}.${sign('sha256', Buffer.from(input), this.privateKey).toString('base64url')}`, jti };
  }

  /**
   * The claims of a token this server signed, or undefined: not a JWT, a signature that does not verify,
   * claims that are not ours. `refresh`: the refresh grant's reading (its own fault).
   */
  async read(value: string, faults: Faults, refresh = false): Promise<TokenClaims | undefined> {
    const payload = await this.verified(value, faults, refresh).catch(() => undefined);
    return payload && isClaims(payload) ? payload : undefined;
  }

  private async verified(value: string, faults: Faults, refresh: boolean): Promise<JWTPayload> {
    if (refresh) {
      // fault jwt-refresh-signature-not-verified: the refresh grant reads the grant from the token as it comes.
      if (faults.has('jwt-refresh-signature-not-verified')) return decodeJwt(value);
      return (await this.verify(value)).payload;
    }
    const header = decodeProtectedHeader(value);
    const alg = typeof header.alg === 'string' ? header.alg : '';
    // fault jwt-signature-not-verified: the token decoded, never verified (a decode call where verify belonged).
    if (faults.has('jwt-signature-not-verified')) return decodeJwt(value);
    // fault jwt-alg-none-accepted: an unsecured JWT (RFC 7519 § 6) taken, whatever the case of "none".
    if (faults.has('jwt-alg-none-accepted') && alg.toLowerCase() === 'none') return decodeJwt(value);
    // fault jwt-stripped-signature-accepted: a token without a signature skips the verification meant for signed ones.
    if (faults.has('jwt-stripped-signature-accepted') && value.split('.')[2] === '') return decodeJwt(value);
    // fault jwt-hmac-public-key-accepted: the algorithm taken from the token, the key material as it is: HS256 keyed with the public key's PEM.
    if (faults.has('jwt-hmac-public-key-accepted') && /^HS(256|384|512)$/.test(alg)) {
      const secret = createSecretKey(Buffer.from(this.publicKey.export({ type: 'spki', format: 'pem' })));
      return JSON.parse(Buffer.from((await compactVerify(value, secret, { algorithms: [alg] })).payload).toString('utf8')) as JWTPayload;
    }
    return (await this.verify(value)).payload;
  }

  private async verify(value: string): Promise<{ payload: JWTPayload }> {
    const { payload } = await compactVerify(value, this.publicKey, { algorithms: ['RS256'] });
    return { payload: JSON.parse(Buffer.from(payload).toString('utf8')) as JWTPayload };
  }
}

function isClaims(p: JWTPayload): p is JWTPayload & TokenClaims {
  return (
    typeof p.sub === 'string' &&
    typeof p.jti === 'string' &&
    typeof p.exp === 'number' &&
    typeof (p as { client_id?: unknown }).client_id === 'string' &&
    typeof (p as { scope?: unknown }).scope === 'string' &&
    ((p as { typ?: unknown }).typ === 'Bearer' || (p as { typ?: unknown }).typ === 'Refresh')
  );
}
