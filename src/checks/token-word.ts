// Tokens keep their word: what a token was issued with (its lifetime, its scopes) holds for as long as
// it says, and no later request widens it. The run itself goes on when one breaks it (token-keeper.ts
// renews a token refused as expired; token-proof.ts drops a token that grants more than it was asked
// for), which would hide the defect: what they met is recorded, and judged here beside the checks'
// own evidence, which needs no such luck (a later grant beside an earlier token).
import {
  type ApiResponse,
  brokenLifetimes,
  type CheckContext,
  expectError,
  expectStatus,
  fail,
  keptTokenTimes,
  NotRun,
  SCOPES,
  show,
  together,
  tokenRequest,
} from '../check-api';
import { codeForTokenEndpoint, codeGrant, freshCode, requireOauth, tokenOf } from './token-endpoint';

const SCOPE_REFUSAL = {
  status: 403,
  type: 'AUTHORIZATION_ERROR',
  message: 'Token does not have the required scope',
  tip: 'names-scope',
  scope: 'cars_read',
} as const;

/** An answer that refuses its token as expired (401 or 403, "expired" in its body). */
function saysExpired(res: ApiResponse): boolean {
  return (res.status === 401 || res.status === 403) && /expired/i.test(res.text.slice(0, 2000));
}

/** A fresh token of the primary user for `scope` (the application's scopes when undefined), through the token endpoint, and when it was asked for. */
async function grantedToken(ctx: CheckContext, scope?: string, what = 'exchanging a fresh code') {
  const { code } = await codeForTokenEndpoint(ctx, scope);
  const askedAt = ctx.now();
  const res = await codeGrant(ctx, code);
  expectStatus(res, 200, what);
  return { token: tokenOf(ctx, res, what), askedAt };
}

/**
 * How old each token the server issued in the run is before it is used again (or a quarter of its life,
 * when that is shorter): a store that keeps a token for its lifetime read as milliseconds, or a session
 * that ends long before the token's expires_in, shows within a run, where the tokens a check obtains for
 * itself are used at once, and a given token is often a long-lived one the server never issued.
 */
const AGED_MS = 5_000;

/**
 * Every token the run obtained from the server (token-keeper.ts keeps them), but the revoked one, sent
 * once more to GET /users/me when it is AGED_MS old: the keeper records one refused as expired while
 * its expires_in said it lived (brokenLifetimes), renews it, and the request goes on.
 */
async function useIssuedOnceAged(ctx: CheckContext): Promise<void> {
  const issued = keptTokenTimes(ctx.run).filter((t) => !t.revoked && ctx.run.tokens[t.key]);
  if (issued.length === 0) return;
  const readyAt = Math.max(...issued.map((t) => t.obtainedAtMs + Math.min(AGED_MS, t.lifetimeMs / 4)));
  const wait = readyAt - ctx.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const me = ctx.catalogue.route('GET /users/me');
  // By its value, not its key: these tokens are what the server issued, not what the check needs.
  await together(issued.map((t) => ctx.call(me, { authorization: `Bearer ${ctx.run.tokens[t.key]}`, credential: t.key })));
}

/**
 * A token is not refused as expired while its expires_in says it lives (RFC 6749 § 5.1: "the lifetime
 * in seconds of the access token"; decision D-TOKEN-LIFETIME), with the renewal margin the run keeps
 * for the round trip and a clock running apart (a quarter of its life, 1 s to 30 s). Judged on every
 * token the run kept and met so refused (token-keeper.ts: the run renewed it and went on), every token
 * the server issued in the run used again once it is a few seconds old (useIssuedOnceAged), and on one
 * of its own: a token of the primary user, then a second one for the same user and application (a
 * later sign-in), then the first is used (a server keeping one session per user expires the first).
 */
export async function tokenLifetimeKept(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  const first = await grantedToken(ctx);
  await grantedToken(ctx, undefined, 'exchanging a second fresh code of the same user');
  const res = await ctx.call(ctx.catalogue.route('GET /users/me'), { authorization: `Bearer ${first.token.access_token}`, credential: 'a fresh token' });
  const lifetimeMs = typeof first.token.expires_in === 'number' ? first.token.expires_in * 1000 : undefined;
  const margin = lifetimeMs === undefined ? 0 : Math.min(30_000, Math.max(1_000, lifetimeMs / 4));
  const leftMs = lifetimeMs === undefined ? 0 : first.askedAt + lifetimeMs - margin - ctx.now();
  if (saysExpired(res) && leftMs > 0) {
    fail({
      expected: `a token issued with expires_in ${first.token.expires_in} is not refused as expired ${Math.round((ctx.now() - first.askedAt) / 1000)} s later (after a second token of the same user and application)`,
      actual: `status ${res.status}: ${show(res.json ?? res.text.slice(0, 200))}`,
      exchange: res.exchange,
    });
  }
  await useIssuedOnceAged(ctx);
  const kept = brokenLifetimes(ctx.run);
  if (kept.length) {
    const e = kept[0];
    fail({
      expected: `the run's tokens are not refused as expired while their expires_in says they live (each renewed before the last quarter of its life)`,
      actual:
        `${kept.length} refusal(s) as expired of tokens the run kept, the first of tokens.${e.key} (status ${e.status}) with ${Math.round(e.leftMs / 1000)} s of its ` +
        `${Math.round(e.lifetimeMs / 1000)} s still to live: the run renewed it and went on`,
    });
  }
}

/**
 * A token gets the scopes it was asked for and keeps them (v3-profile.md § Sign-in page: "the token
 * gets the requested scopes that the application has"): signed in for every scope but cars_read (a long
 * scope list, space-separated), it is refused /users/me/cars; a token for users_read is still refused
 * there after a later sign-in of the same user asked for cars_read too; and no token the run minted
 * through the sign-in page for a non-empty list of scopes served beyond it (token-proof.ts: the run
 * dropped it and went on). An empty list is not judged: a server may read it as absent.
 */
export async function tokenScopesKept(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  // Every scope but cars_read, through the sign-in page where there is a browser (the list the run's scope-limited tokens ask for).
  const allButCars = SCOPES.filter((s) => s !== 'cars_read').join(' ');
  const { code } = ctx.hasBrowser() ? await freshCode(ctx, allButCars) : await codeForTokenEndpoint(ctx, allButCars);
  const exchanged = await codeGrant(ctx, code);
  expectStatus(exchanged, 200, `exchanging a code for "${allButCars}"`);
  const long = tokenOf(ctx, exchanged, `exchanging a code for "${allButCars}"`);
  const readCars = (token: string, credential: string) => ctx.call(ctx.catalogue.route('GET /users/me/cars'), { authorization: `Bearer ${token}`, credential });
  const [me, cars] = await together([
    ctx.call(ctx.catalogue.route('GET /users/me'), { authorization: `Bearer ${long.access_token}`, credential: 'a token for every scope but cars_read' }),
    readCars(long.access_token, 'a token for every scope but cars_read'),
  ]);
  if (me.status !== 200) throw new NotRun(`the token for every scope but cars_read was refused /users/me (${me.status}): SIGNIN-SCOPE-SUBSET judges the grant`);
  expectError(cars, { ...SCOPE_REFUSAL, why: `a token signed in for "${allButCars}" reads no car` });

  // An earlier token, then a later grant of the same user asking for more.
  const earlier = await grantedToken(ctx, 'users_read', 'exchanging a fresh code for users_read');
  const before = await readCars(earlier.token.access_token, 'a token for users_read');
  if (before.status < 400) throw new NotRun('a token for users_read already reads /users/me/cars: SIGNIN-SCOPE-SUBSET judges the grant');
  await grantedToken(ctx, 'users_read cars_read', 'exchanging a later fresh code of the same user for users_read and cars_read');
  const after = await readCars(earlier.token.access_token, 'a token for users_read');
  expectError(after, { ...SCOPE_REFUSAL, why: 'a token for users_read still reads no car after a later sign-in of the same user asked for cars_read too' });

  const more = ctx.run.tokensGrantingMore ?? [];
  if (more.length) {
    fail({
      expected: 'every token the run minted through the sign-in page for a non-empty list of scopes is refused where a scope it was not asked for is needed',
      actual: `${more.join('; ')} (the run dropped it and went on)`,
    });
  }
}

/**
 * A refresh grant asking for more scope than the original grant never widens the token (RFC 6749 § 6:
 * "The requested scope MUST NOT include any scope not originally granted by the resource owner";
 * decision D-REFRESH-SCOPE): refreshed with scope "users_read status_read cars_read" from a grant for
 * users_read and status_read, it is refused (an error answer), or its token is refused /users/me/cars.
 */
export async function tokenRefreshNoWider(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  const { token } = await grantedToken(ctx, 'users_read status_read', 'exchanging a fresh code for users_read and status_read');
  if (!token.refresh_token) throw new NotRun('the token record has no refresh_token (TOKEN-REFRESH judges it)');
  const cars = ctx.catalogue.route('GET /users/me/cars');
  const before = await ctx.call(cars, { authorization: `Bearer ${token.access_token}`, credential: 'a token for users_read and status_read' });
  if (before.status < 400)
    throw new NotRun('the token of the grant for users_read and status_read already reads /users/me/cars: SIGNIN-SCOPE-SUBSET judges the grant');
  const res = await tokenRequest(ctx.api, ctx.target, {
    grant_type: 'refresh_token',
    refresh_token: token.refresh_token,
    scope: 'users_read status_read cars_read',
  });
  if (res.status >= 400) return;
  expectStatus(res, 200, 'a refresh grant asking for a wider scope: refused, or the original grant kept');
  const refreshed = tokenOf(ctx, res, 'refreshing with a wider scope');
  const after = await ctx.call(cars, { authorization: `Bearer ${refreshed.access_token}`, credential: 'the refreshed token' });
  expectError(after, {
    ...SCOPE_REFUSAL,
    why: 'refreshed with scope "users_read status_read cars_read" from a grant without cars_read, the token still reads no car',
  });
}
