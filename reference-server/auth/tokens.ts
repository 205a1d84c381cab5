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

  refresh(value: string): RefreshToken | undefined {
    return this.refreshTokens.get(value);
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
    this.codes.clear();
    for (const value of this.accessTokens.keys()) if (!this.kept.has(value)) this.accessTokens.delete(value);
    this.refreshTokens.clear();
  }
}
