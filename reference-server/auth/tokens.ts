// Authorization codes, access tokens and refresh tokens, in memory. Values are random (crypto) and
// opaque; every decision about them (expiry, single use) is a pure function of the app's clock.

import { randomBytes } from 'node:crypto';
import type { Scope } from './clients';

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
  /** Seconds it lives from its issue (expires_in). */
  lifetimeS: number;
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
}

const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');

/** Tokens issued together by one grant. */
export interface IssuedTokens {
  access: AccessToken;
  refresh: RefreshToken;
}

/** The profile's token record for freshly issued tokens, as the token endpoint answers it by default. */
export function tokenRecord(issued: IssuedTokens): Record<string, unknown> {
  return {
    access_token: issued.access.value,
    expires_at: Math.floor(issued.access.expiresAt / 1000),
    expires_in: issued.access.lifetimeS,
    refresh_token: issued.refresh.value,
    token_type: 'bearer',
  };
}

export class TokenStore {
  private codes = new Map<string, AuthCode>();
  private accessTokens = new Map<string, AccessToken>();
  private refreshTokens = new Map<string, RefreshToken>();
  /** Every secret value ever issued, kept across resets: the suite's secret scan looks for them. */
  private everIssued: string[] = [];
  /** Access tokens minted to outlive resets (the control API's `keep`: a test's fixture token). */
  private kept = new Set<string>();

  /** `lifetimeS`: how long an access token lives (variant short-lived-tokens: a few seconds). */
  constructor(private readonly lifetimeS = ACCESS_TOKEN_LIFETIME_S) {}

  issueCode(input: Omit<AuthCode, 'value' | 'expiresAt' | 'used'>, nowMs: number): AuthCode {
    const code: AuthCode = { ...input, value: randomToken(24), expiresAt: nowMs + CODE_LIFETIME_MS, used: false };
    this.codes.set(code.value, code);
    this.everIssued.push(code.value);
    return code;
  }

  code(value: string): AuthCode | undefined {
    return this.codes.get(value);
  }

  issueTokens(clientId: string, userId: number, scopes: readonly Scope[], nowMs: number, keep = false): IssuedTokens {
    const access: AccessToken = {
      value: randomToken(32),
      clientId,
      userId,
      scopes: [...scopes],
      expiresAt: nowMs + this.lifetimeS * 1000,
      lifetimeS: this.lifetimeS,
      forcedExpired: false,
      revoked: false,
    };
    const refresh: RefreshToken = { value: randomToken(32), clientId, userId, scopes: [...scopes], used: false };
    this.accessTokens.set(access.value, access);
    this.refreshTokens.set(refresh.value, refresh);
    this.everIssued.push(access.value, refresh.value);
    if (keep) this.kept.add(access.value);
    return { access, refresh };
  }

  access(value: string): AccessToken | undefined {
    return this.accessTokens.get(value);
  }

  /** Fault route-token-prefix-match: the first access token that begins with `value` (at least 8 characters). */
  accessByPrefix(value: string): AccessToken | undefined {
    if (value.length < 8) return undefined;
    for (const [key, token] of this.accessTokens) if (key.startsWith(value)) return token;
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
  }
}
