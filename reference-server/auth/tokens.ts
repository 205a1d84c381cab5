// Authorization codes, access tokens and refresh tokens, in memory. Values are random (crypto) and
// opaque, or (variant jwt-access-tokens) signed JWTs naming their record by its id; every decision about
// them (expiry, single use) is a pure function of the app's clock. Two kinds of access token live here:
// those a grant issued (the token endpoint's, the control API's mints) and long-lived ones configured for
// a test client (the control API's `keep`: they outlive resets), which the faults of the issued tokens'
// store never touch.

import { randomBytes } from 'node:crypto';
import type { Scope } from './clients';
import type { JwtIssuer } from './jwt';
import type { Faults } from '../switches';

const ACCESS_TOKEN_LIFETIME_S = 3600;
/** Variant short-lived-tokens: access tokens live this long, shorter than a run of the suite. */
export const SHORT_ACCESS_TOKEN_LIFETIME_S = 8;
const CODE_LIFETIME_MS = 60_000;

export interface AuthCode {
  value: string;
  clientId: string;
  userId: number;
  scopes: Scope[];
  /** The redirect_uri given on the sign-in request, if any (must match on exchange when sent). */
  redirectUri: string | null;
  expiresAt: number;
  used: boolean;
}

export interface AccessToken {
  value: string;
  clientId: string;
  userId: number;
  scopes: Scope[];
  expiresAt: number;
  /** When it was issued (ms): its answer's expires_at is this plus its lifetime. */
  issuedAt: number;
  /** Seconds it lives from its issue (expires_in). */
  lifetimeS: number;
  /** Variant jwt-access-tokens: the id its JWT names (jti). */
  jti?: string;
  /** Set by POST /_control/tokens/expire. */
  forcedExpired: boolean;
  /** When POST /_control/tokens/expire expired it (its expiresAt, else). */
  forcedExpiredAt?: number;
  revoked: boolean;
}

export interface RefreshToken {
  value: string;
  clientId: string;
  userId: number;
  scopes: Scope[];
  used: boolean;
  /** Variant jwt-access-tokens: the id its JWT names (jti). */
  jti?: string;
}

const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');

/**
 * Variants blindp-tokens-base64-padded and blindp-codes-base64-padded: a value in base64's own alphabet with its
 * padding (RFC 6750 § 2.1 b64token; RFC 6749 Appendix A.11, A.12, A.17: any VSCHAR), as servers that encode random
 * bytes with plain base64 write them; one of + and / at least, so that every value needs encoding in a form or a URL.
 */
function paddedBase64(bytes: number): string {
  for (;;) {
    const value = randomBytes(bytes).toString('base64');
    if (/[+/]/.test(value) && value.endsWith('=')) return value;
  }
}

/** Tokens issued together by one grant. */
export interface IssuedTokens {
  access: AccessToken;
  refresh: RefreshToken;
}

/**
 * The profile's token record for freshly issued tokens, as the token endpoint answers it by default:
 * `expiresInS`, the seconds it has left (its lifetime, but for a token answered again: variant same-token-reissued).
 */
export function tokenRecord(issued: IssuedTokens, expiresInS = issued.access.lifetimeS): Record<string, unknown> {
  return {
    access_token: issued.access.value,
    expires_at: Math.floor((issued.access.issuedAt + issued.access.lifetimeS * 1000) / 1000),
    expires_in: expiresInS,
    refresh_token: issued.refresh.value,
    token_type: 'bearer',
  };
}

/** What the store is built with besides the tokens' lifetime. */
export interface TokenStoreOptions {
  /** The faults of the issued tokens' store (switches.ts: the app's active fault). */
  faults?: Faults;
  /** Variant jwt-access-tokens: tokens are JWTs it signs. */
  jwt?: JwtIssuer;
  /** Variant blindp-tokens-base64-padded: access and refresh tokens in plain base64, padded, 400 characters long. */
  paddedTokens?: boolean;
  /** Variant blindp-codes-base64-padded: authorization codes in plain base64, padded. */
  paddedCodes?: boolean;
}

export class TokenStore {
  private codes = new Map<string, AuthCode>();
  private accessTokens = new Map<string, AccessToken>();
  private refreshTokens = new Map<string, RefreshToken>();
  /** Every secret value ever issued, kept across resets: the suite's secret scan looks for them. */
  private everIssued: string[] = [];
  /** Access tokens minted to outlive resets (the control API's `keep`: a test's fixture token). */
  private kept = new Set<string>();

  /** Variant jwt-access-tokens: the records of the JWTs, by the id each names. */
  private accessByJti = new Map<string, AccessToken>();
  private refreshByJti = new Map<string, RefreshToken>();

  /** `lifetimeS`: how long an access token lives (variant short-lived-tokens: a few seconds). */
  constructor(
    private readonly lifetimeS = ACCESS_TOKEN_LIFETIME_S,
    private readonly options: TokenStoreOptions = {},
  ) {}

  /** Variant jwt-access-tokens: the signer and reader of the tokens. */
  get jwt(): JwtIssuer | undefined {
    return this.options.jwt;
  }

  issueCode(input: Omit<AuthCode, 'value' | 'expiresAt' | 'used'>, nowMs: number): AuthCode {
    const code: AuthCode = { ...input, value: this.options.paddedCodes ? paddedBase64(44) : randomToken(24), expiresAt: nowMs + CODE_LIFETIME_MS, used: false };
    this.codes.set(code.value, code);
    this.everIssued.push(code.value);
    return code;
  }

  code(value: string): AuthCode | undefined {
    return this.codes.get(value);
  }

  /** `keep`: a long-lived token configured for a test client (it outlives resets; the issued tokens' faults never touch it). */
  issueTokens(clientId: string, userId: number, scopes: readonly Scope[], nowMs: number, keep = false): IssuedTokens {
    const expiresAt = nowMs + this.lifetimeS * 1000;
    const jwt = this.options.jwt?.sign(
      { sub: String(userId), client_id: clientId, scope: scopes.join(' '), typ: 'Bearer', exp: Math.floor(expiresAt / 1000) },
      nowMs,
    );
    const access: AccessToken = {
      value: jwt?.value ?? (this.options.paddedTokens ? paddedBase64(298) : randomToken(32)),
      clientId,
      userId,
      scopes: [...scopes],
      // fault issued-tokens-lifetime-ms: the issued tokens' store keeps each for its lifetime read as milliseconds (its answer still says seconds).
      expiresAt: !keep && this.options.faults?.has('issued-tokens-lifetime-ms') ? nowMs + this.lifetimeS : expiresAt,
      issuedAt: nowMs,
      lifetimeS: this.lifetimeS,
      forcedExpired: false,
      revoked: false,
      ...(jwt ? { jti: jwt.jti } : {}),
    };
    this.accessTokens.set(access.value, access);
    if (access.jti) this.accessByJti.set(access.jti, access);
    if (keep) this.kept.add(access.value);
    this.everIssued.push(access.value);
    return { access, refresh: this.issueRefresh(access, nowMs) };
  }

  /** A refresh token of the grant `access` was issued for. */
  issueRefresh(access: AccessToken, nowMs: number): RefreshToken {
    const { clientId, userId, scopes } = access;
    const jwt = this.options.jwt?.sign({ sub: String(userId), client_id: clientId, scope: scopes.join(' '), typ: 'Refresh' }, nowMs);
    const refresh: RefreshToken = {
      value: jwt?.value ?? (this.options.paddedTokens ? paddedBase64(298) : randomToken(32)),
      clientId,
      userId,
      scopes: [...scopes],
      used: false,
      ...(jwt ? { jti: jwt.jti } : {}),
    };
    this.refreshTokens.set(refresh.value, refresh);
    if (refresh.jti) this.refreshByJti.set(refresh.jti, refresh);
    this.everIssued.push(refresh.value);
    return refresh;
  }

  access(value: string): AccessToken | undefined {
    return this.accessTokens.get(value);
  }

  /**
   * Variant jwt-access-tokens: the access token a JWT stands for, as its verified claims say (who, which
   * scopes, until when), the record its id names giving its state (revoked, forcibly expired; none after a
   * reset: unknown). Undefined for a token that does not verify, or names no access token.
   */
  async accessOfJwt(value: string, faults: Faults): Promise<AccessToken | undefined> {
    const claims = await this.options.jwt?.read(value, faults);
    const record = claims?.typ === 'Bearer' ? this.accessByJti.get(claims.jti) : undefined;
    if (!claims || !record || !this.accessTokens.has(record.value)) return undefined;
    return {
      ...record,
      userId: Number(claims.sub),
      clientId: claims.client_id,
      scopes: claims.scope.split(' ').filter(Boolean) as Scope[],
      expiresAt: claims.exp * 1000,
    };
  }

  /** Variant jwt-access-tokens: the refresh token a JWT stands for (its grant as its claims say), as accessOfJwt. */
  async refreshOfJwt(value: string, faults: Faults): Promise<RefreshToken | undefined> {
    const claims = await this.options.jwt?.read(value, faults, true);
    const record = claims?.typ === 'Refresh' ? this.refreshByJti.get(claims.jti) : undefined;
    if (!claims || !record || !this.refreshTokens.has(record.value)) return undefined;
    // The record itself: using it marks it used, whatever value named it.
    return Object.assign(record, { userId: Number(claims.sub), clientId: claims.client_id, scopes: claims.scope.split(' ').filter(Boolean) as Scope[] });
  }

  /** Fault route-token-prefix-match: the first access token that begins with `value` (at least 8 characters). */
  accessByPrefix(value: string): AccessToken | undefined {
    if (value.length < 8) return undefined;
    for (const [key, token] of this.accessTokens) if (key.startsWith(value)) return token;
    return undefined;
  }

  /** Fault issued-tokens-prefix-match: the first issued (not configured) access token that begins with `value` (at least 8 characters). */
  issuedByPrefix(value: string): AccessToken | undefined {
    if (value.length < 8) return undefined;
    for (const [key, token] of this.accessTokens) if (!this.kept.has(key) && key.startsWith(value)) return token;
    return undefined;
  }

  /** Fault refresh-token-as-access: a refresh token taken for the access token of its grant (its user, client and scopes, alive). */
  accessOfRefresh(value: string): AccessToken | undefined {
    const refresh = this.refreshTokens.get(value);
    if (!refresh) return undefined;
    return {
      value,
      clientId: refresh.clientId,
      userId: refresh.userId,
      scopes: [...refresh.scopes],
      expiresAt: Number.MAX_SAFE_INTEGER,
      issuedAt: 0,
      lifetimeS: this.lifetimeS,
      forcedExpired: false,
      revoked: false,
    };
  }

  refresh(value: string): RefreshToken | undefined {
    return this.refreshTokens.get(value);
  }

  /** Fault code-compared-case-insensitively: the code looked up as a case-insensitive column compares it. */
  codeIgnoringCase(value: string): AuthCode | undefined {
    const lower = value.toLowerCase();
    for (const [key, code] of this.codes) if (key.toLowerCase() === lower) return code;
    return undefined;
  }

  /** Fault refresh-compared-on-first-20: the refresh token looked up by its first 20 characters (an index prefix). */
  refreshByFirst(value: string, length: number): RefreshToken | undefined {
    for (const [key, refresh] of this.refreshTokens) if (key.slice(0, length) === value.slice(0, length)) return refresh;
    return undefined;
  }

  /** Fault grant-kinds-one-table: an access token taken for a refresh token of its grant (a new one each time). */
  refreshOfAccess(value: string): RefreshToken | undefined {
    const access = this.accessTokens.get(value);
    return access && { value, clientId: access.clientId, userId: access.userId, scopes: [...access.scopes], used: false };
  }

  /** The access tokens issued for a code (the token endpoint's authorization_code grant), oldest first. */
  private byCode: AccessToken[] = [];

  /** Records an access token the code grant issued (faults code-grant-widens-earlier-tokens, token-superseded-expires look back at them). */
  issuedForCode(access: AccessToken): void {
    this.byCode.push(access);
  }

  /** The access tokens issued earlier for a code to this application and user. */
  earlierForCode(clientId: string, userId: number, except: AccessToken): AccessToken[] {
    return this.byCode.filter((t) => t !== except && t.clientId === clientId && t.userId === userId && this.accessTokens.get(t.value) === t);
  }

  /**
   * Variant same-token-reissued: an access token a code grant issued to this application and user for
   * these scopes that is still valid (neither expired nor revoked), the latest; undefined when none is.
   */
  validForCode(clientId: string, userId: number, scopes: readonly Scope[], nowMs: number): AccessToken | undefined {
    const same = (t: AccessToken) => t.scopes.length === scopes.length && scopes.every((s) => t.scopes.includes(s));
    return this.byCode
      .filter(
        (t) => t.clientId === clientId && t.userId === userId && same(t) && this.accessTokens.get(t.value) === t && !t.revoked && !this.isExpired(t, nowMs),
      )
      .at(-1);
  }

  isExpired(token: AccessToken, nowMs: number): boolean {
    return token.forcedExpired || nowMs >= token.expiresAt;
  }

  /** Whether a server that purges expired tokens after `afterMs` has forgotten it (variant expired-tokens-forgotten). */
  isForgotten(token: AccessToken, nowMs: number, afterMs: number): boolean {
    const expiredAt = token.forcedExpired ? (token.forcedExpiredAt ?? 0) : token.expiresAt;
    return this.isExpired(token, nowMs) && nowMs >= expiredAt + afterMs;
  }

  /** A secret issued by another authorization server of this app (variant authorization-server-oidc). */
  recordIssued(value: string): void {
    this.everIssued.push(value);
  }

  /** Codes, access tokens and refresh tokens issued since the server started (resets included). */
  issued(): readonly string[] {
    return this.everIssued;
  }

  /** Forgets every code and token, but the access tokens minted to be kept (they stay as they are). */
  clear(): void {
    this.byCode = [];
    this.codes.clear();
    for (const value of this.accessTokens.keys()) if (!this.kept.has(value)) this.accessTokens.delete(value);
    this.refreshTokens.clear();
    this.refreshByJti.clear();
    for (const [jti, token] of this.accessByJti) if (!this.accessTokens.has(token.value)) this.accessByJti.delete(jti);
  }
}
