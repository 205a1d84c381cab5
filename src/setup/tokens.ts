// Obtains the run's tokens once: static ones from the target file, the others minted: on a target
// with a test-control API (the embedded reference) through that API, no browser needed; elsewhere
// through the real sign-in flow (browser + token endpoint), and then proven (token-proof.ts).
// Expired and revoked tokens come from the target file or its tokenCommands (handed a token the suite
// minted, to expire or revoke: token-commands.ts); with a control API, from minting one and
// expiring/revoking it; and an expired one, from a token an earlier run minted and kept past its
// expires_in (kept-expired.ts), a fresh one kept for a later run.
// Where the target file gives the primary or the other user's token and the run can mint, the server
// also issues one of its own beside it (issued.full, issued.otherUser: a code exchanged at its token
// endpoint): a given token is often a long-lived one configured for a test client, and the defects of
// a server's store of issued tokens show only on the tokens it issues. Where each token came from is
// recorded (tokenOrigins): a check may ask more of a token the target names than of one the run kept.
import type { Browser } from '@playwright/test';
import type { ApiClient } from '../transport/api';
import { launchBrowser, SIGN_INS_AT_ONCE, type BrowserChoice } from './browser';
import { exchangeCode, missingSignInKeys, signIn, type TokenRecord } from './oauth';
import { Redactor } from '../util/redact';
import { inTurns } from '../util/in-turns';
import { signInProblem, type SignInPageProblem } from './signin-page-state';
import { keptToken, type KeptTokens } from './token-keeper';
import type { Preparation } from './preparation';
import { HANDED_OVER, noRevokedToken, runTokenCommand } from './token-commands';
import { keepToExpire, noExpiredToken, usableKeptExpired } from './kept-expired';
import { BASE_TOKEN_KEYS, ISSUED_TOKEN_KEYS, SCOPES, TOKEN_KEYS, type IssuedTokenKey, type Scope, type Target, type TokenKey } from './target';
import type { TokenOrigin } from './run-context';

export interface ObtainedTokens {
  /** The run's tokens (Preparation.run.tokens), filled in here. */
  tokens: Partial<Record<TokenKey, string>>;
  /** Why a token is missing (Preparation.run.tokenNotes), filled in here. */
  notes: Partial<Record<TokenKey, string>>;
  /** Where each token came from (Preparation.run.tokenOrigins), filled in here. */
  origins: Partial<Record<TokenKey, TokenOrigin>>;
  /** Refresh tokens and codes seen while minting: secrets too. */
  otherSecrets: string[];
  /** Keys minted through the sign-in page: to be proven (token-proof.ts) before a check relies on them. */
  signedIn: TokenKey[];
  /** The sign-in page's form could not be found (or used): the browser checks skip at once (signin-page-state.ts). */
  signInPageProblem?: SignInPageProblem;
  /** The minted tokens' records (refresh token, lifetime, how to get another): token-keeper.ts renews them. */
  kept: KeptTokens;
  /** A token minted to be kept for a later run, as an expired one (kept-expired.ts). */
  forLater?: { token: string; expiresAtMs?: number };
}

interface MintPlan {
  key: TokenKey;
  user: 'primary' | 'other';
  scope: string;
  /** Asked for when the sign-in page grants scopes for `scope` (an empty list read as absent). */
  fallbackScope?: string;
  /** Minted to be kept for a later run's expired token (kept-expired.ts), not one of this run's. */
  forLater?: true;
  /** Through the token endpoint even where a control API mints tokens: a code of the control API's, exchanged (the server's issued tokens). */
  grant?: true;
}

/** A scope name no application has: asking only for it asks for a token with none. */
const NO_SUCH_SCOPE = 'vds_conformance_no_such_scope';

/** Fills in the run's tokens and their notes (`prep.run`); returns them with what the next stages need (the keeper, the proofs). */
export async function obtainTokens(prep: Pick<Preparation, 'target' | 'redactor' | 'api' | 'run'>, browserChoice: BrowserChoice): Promise<ObtainedTokens> {
  const { target, redactor, api } = prep;
  prep.run.tokenOrigins ??= {};
  const result: ObtainedTokens = {
    tokens: prep.run.tokens,
    notes: prep.run.tokenNotes,
    origins: prep.run.tokenOrigins,
    otherSecrets: [],
    signedIn: [],
    kept: {},
  };
  if (target.env === 'sandbox' && !hasAnyToken(target) && !target.oauth?.clientId) {
    return noteAll(result, 'the target is a sandbox with no tokens (the sandbox needs none on its read routes)');
  }
  copyStatic(target, result);
  const mintProblem = whyCannotMint(target, browserChoice);
  const canMint = mintsThroughControl(target) || !mintProblem;
  // The expired and revoked tokens' commands act on a token the suite mints first, where it can.
  const handOver = (Object.keys(HANDED_OVER) as TokenKey[]).filter((k) => target.tokenCommands[k] && !result.tokens[k] && canMint);
  runTokenCommands(target, result, redactor, handOver);
  const kept = !result.tokens.expired && !target.tokenCommands.expired && !target.control ? usableKeptExpired(target) : undefined;
  if (kept) {
    redactor.add(kept.value);
    result.tokens.expired = kept.value;
    result.origins.expired = 'kept';
  }

  const plans = [...mintPlans(target, result, handOver, canMint), ...(canMint ? issuedPlans(target, result) : [])];
  const mint = async (some: MintPlan[]) => {
    if (some.length > 0 && mintsThroughControl(target)) {
      await mintThroughControl(api, target, some, result, redactor);
    } else if (some.length > 0 && mintProblem) {
      for (const p of some) result.notes[p.key] ??= `tokens.${p.key} is not in ${target.source}, and it cannot be minted: ${mintProblem}`;
    } else if (some.length > 0) {
      const browser = await launchBrowser(browserChoice);
      try {
        await mintAll(browser, api, target, some, result, redactor);
      } finally {
        await browser.close();
      }
    }
  };
  await mint(plans);
  for (const key of handOver) handTo(target, key, result, redactor);
  await expireAndRevoke(api, target, result, redactor, handOver);
  // A server that answers the valid token of a user, application and scopes again to a later grant gave
  // the expired or revoked token another key's value: expiring or revoking it ended both. Each is minted
  // again in turn, now that the shared one is no longer valid: the expired one, then the revoked one
  // (each expired or revoked before the next is minted), then the keys that held the shared value.
  for (const key of reissuedKeys(result, plans)) {
    await mint(plans.filter((p) => p.key === key && !p.forLater));
    if (handOver.includes(key)) handTo(target, key, result, redactor);
    else if (key === 'expired' || key === 'revoked') await expireOrRevoke(api, target, result, redactor, key, key === 'expired' ? 'expire' : 'revoke');
  }
  if (result.forLater) {
    try {
      keepToExpire(target, result.forLater.token, result.forLater.expiresAtMs ?? Date.now() + DEFAULT_LIFETIME_MS);
    } catch (err) {
      result.notes.expired ??= `a token to keep for a later run's expired token could not be kept: ${(err as Error).message}`;
    }
  }
  return result;
}

/** A token that says nothing of its lifetime is taken as expired after an hour (the reference's default). */
const DEFAULT_LIFETIME_MS = 3_600_000;

/**
 * Hands tokenCommands.<key> the token minted for it (VDS_TOKEN_TO_EXPIRE / _TO_REVOKE): the token it
 * printed, else the one it acted on. A revoked one is kept revoked: a renewal mints another and hands
 * it over again (token-keeper.ts); an expired one is never renewed.
 */
function handTo(target: Target, key: TokenKey, result: ObtainedTokens, redactor: Redactor): void {
  const minted = result.tokens[key];
  if (!minted) return; // minting it failed: its note says why
  const got = runTokenCommand(target, key, redactor, minted);
  if ('note' in got) {
    delete result.tokens[key];
    delete result.kept[key];
    result.notes[key] = got.note;
    return;
  }
  result.tokens[key] = got.token;
  result.origins[key] = 'command';
  if (got.token !== minted || key === 'expired') delete result.kept[key];
  else if (result.kept[key]) result.kept[key] = { ...result.kept[key], revoke: true };
}

function hasAnyToken(target: Target): boolean {
  return Object.keys(target.tokens).length > 0;
}

function noteAll(result: ObtainedTokens, why: string): ObtainedTokens {
  for (const key of TOKEN_KEYS) {
    result.notes[key] = why;
  }
  return result;
}

function copyStatic(target: Target, result: ObtainedTokens): void {
  const t = target.tokens;
  for (const key of BASE_TOKEN_KEYS) {
    if (t[key]) {
      result.tokens[key] = t[key];
      result.origins[key] = 'target';
    }
  }
  for (const [scope, token] of Object.entries(t.withoutScope ?? {})) {
    if (!token) continue;
    result.tokens[`withoutScope.${scope as Scope}`] = token;
    result.origins[`withoutScope.${scope as Scope}`] = 'target';
  }
}

/** tokenCommands: each prints a token the file does not give, but those `later` hands a token it mints first. */
function runTokenCommands(target: Target, result: ObtainedTokens, redactor: Redactor, later: TokenKey[]): void {
  for (const key of Object.keys(target.tokenCommands) as TokenKey[]) {
    if (result.tokens[key] || later.includes(key)) continue;
    const got = runTokenCommand(target, key, redactor);
    if ('token' in got) {
      result.tokens[key] = got.token;
      result.origins[key] = 'command';
    } else result.notes[key] = got.note;
  }
}

/**
 * The tokens the server issues beside the ones the target names (ISSUED_TOKEN_KEYS): for the primary
 * user, and for the other one where the target gives their credentials, each through the token endpoint.
 */
function issuedPlans(target: Target, result: ObtainedTokens): MintPlan[] {
  const all = SCOPES.join(' ');
  const o = target.oauth;
  return (Object.entries(ISSUED_TOKEN_KEYS) as Array<[IssuedTokenKey, 'full' | 'otherUser']>)
    .filter(([, beside]) => result.tokens[beside] && (result.origins[beside] === 'target' || result.origins[beside] === 'command'))
    .filter(([, beside]) => beside === 'full' || (o?.otherUsername && o.otherPassword))
    .map(([key, beside]) => ({ key, user: beside === 'full' ? 'primary' : 'other', scope: all, grant: true }));
}

/**
 * The keys a server gave one token twice (it answers a valid token again: same user, application and
 * scopes): the expired and the revoked token when either holds the value of another minted key, then
 * the keys that held it. Empty on a server that issues a new token to each grant.
 */
function reissuedKeys(result: ObtainedTokens, plans: MintPlan[]): TokenKey[] {
  const minted = plans.filter((p) => !p.forLater && result.tokens[p.key]).map((p) => p.key);
  const acted = (['expired', 'revoked'] as const).filter((k) => minted.includes(k));
  const shared = new Set(acted.map((k) => result.tokens[k]).filter((v) => minted.some((m) => m !== acted[0] && m !== acted[1] && result.tokens[m] === v)));
  if (acted.length === 2 && result.tokens.expired === result.tokens.revoked) shared.add(result.tokens.expired);
  if (shared.size === 0) return [];
  const others = minted.filter((k) => !acted.includes(k as 'expired' | 'revoked') && shared.has(result.tokens[k]));
  return [...acted, ...others];
}

/**
 * Tokens still missing that the sign-in flow can make: full, otherUser, the scope-limited ones; those
 * a command will expire or revoke (`handOver`); and, where nothing else gives an expired token, one to
 * keep for a later run (`canMint`: the target can mint one).
 */
function mintPlans(target: Target, result: ObtainedTokens, handOver: TokenKey[], canMint: boolean): MintPlan[] {
  const all = SCOPES.join(' ');
  const plans: MintPlan[] = [];
  if (!result.tokens.full) plans.push({ key: 'full', user: 'primary', scope: all });
  if (!result.tokens.otherUser) {
    if (target.oauth?.otherUsername && target.oauth.otherPassword) plans.push({ key: 'otherUser', user: 'other', scope: all });
    else result.notes.otherUser ??= missingKeys(target, ['tokens.otherUser'], ['oauth.otherUsername', 'oauth.otherPassword']);
  }
  // An empty scope list asks for a token with no scope at all; a server may read it as absent (all
  // the application's scopes): then only a scope no application has is asked for.
  if (!result.tokens.noScopes) plans.push({ key: 'noScopes', user: 'primary', scope: '', fallbackScope: NO_SUCH_SCOPE });
  for (const scope of SCOPES) {
    const key = `withoutScope.${scope}` as TokenKey;
    if (!result.tokens[key]) plans.push({ key, user: 'primary', scope: SCOPES.filter((s) => s !== scope).join(' ') });
  }
  // tokens.restrictedApp is never minted here: what it proves is how the sign-in grants scopes to an
  // application, so its check signs in through the real page itself (a control API would prove nothing).
  if (!result.tokens.restrictedApp) {
    result.notes.restrictedApp ??= missingKeys(target, ['tokens.restrictedApp'], ['oauth.restrictedClientId', 'oauth.restrictedClientSecret']);
  }
  // Expired and revoked tokens cannot be minted as such: a fresh token is minted here and then handed
  // to the target's tokenCommand, or (a control API: the reference) expired / revoked through it;
  // otherwise they come from the target file, or (expired) a token an earlier run kept.
  for (const key of ['expired', 'revoked'] as const) {
    if (result.tokens[key] || (key in result.notes && !handOver.includes(key))) continue;
    if (handOver.includes(key) || target.control) plans.push({ key, user: 'primary', scope: all });
    else if (key === 'expired') result.notes.expired ??= noExpiredToken(target, canMint);
    else result.notes.revoked ??= noRevokedToken(target);
  }
  // Nothing else gives this target an expired token: one minted now, kept for a later run.
  if (!target.tokens.expired && !target.tokenCommands.expired && !target.control && canMint) {
    plans.push({ key: 'expired', user: 'primary', scope: all, forLater: true });
  }
  return plans.filter((p) => p.forLater || !(p.key in result.notes));
}

function missingKeys(target: Target, direct: string[], viaOauth: string[]): string {
  const unset = [...direct, ...viaOauth].filter((k) => target.unset[k]).map((k) => `${k} (\${${target.unset[k]}} is not set)`);
  return `${direct.join(' / ')} is not in ${target.source}, nor ${viaOauth.join(' + ')} to mint it` + (unset.length ? `; unset: ${unset.join(', ')}` : '');
}

/** The reference's control API mints tokens directly (the sign-in page is then only checked, not used). */
function mintsThroughControl(target: Target): boolean {
  return Boolean(target.control && target.control.mintTokens !== false && target.oauth?.clientId && target.oauth.username);
}

async function mintThroughControl(api: ApiClient, target: Target, plans: MintPlan[], result: ObtainedTokens, redactor: Redactor): Promise<void> {
  const o = target.oauth!;
  await Promise.all(
    plans.map(async (plan) => {
      const username = plan.user === 'primary' ? o.username : o.otherUsername;
      try {
        // Its lifetime counts from before it was asked for (the server issued it later, never earlier).
        const asked = Date.now();
        const scopes = plan.scope.split(' ').filter(Boolean);
        const token = plan.grant ? await grantThroughControl(api, target, username!, scopes, redactor) : await mintedByControl(api, target, username!, scopes);
        redactor.add(token.access_token, token.refresh_token);
        if (plan.forLater) {
          result.forLater = { token: token.access_token, expiresAtMs: keptToken(token, Date.now(), 'control', plan.user, plan.scope).expiresAtMs };
          return;
        }
        result.tokens[plan.key] = token.access_token;
        result.origins[plan.key] = 'control';
        result.kept[plan.key] = keptToken(token, asked, 'control', plan.user, plan.scope);
        if (token.refresh_token) result.otherSecrets.push(token.refresh_token);
      } catch (err) {
        result.notes[plan.key] =
          `minting tokens.${plan.key} through the control API (${target.control!.url}) failed: ${redactor.redact((err as Error).message)}`;
      }
    }),
  );
}

/** A token record the control API minted (its access_token a string), else an Error. */
async function mintedByControl(api: ApiClient, target: Target, username: string, scopes: string[]): Promise<Partial<TokenRecord> & { access_token: string }> {
  const res = await api.post(`${target.control!.url}/tokens/mint`, { body: { clientId: target.oauth!.clientId, username, scopes } });
  const token = res.json as Partial<TokenRecord> | undefined;
  if (res.status !== 200 || typeof token?.access_token !== 'string') throw new Error(`the control API answered ${res.status}`);
  return token as Partial<TokenRecord> & { access_token: string };
}

/** A token the token endpoint issued for a code of the control API's, as a client obtains one. */
async function grantThroughControl(
  api: ApiClient,
  target: Target,
  username: string,
  scopes: string[],
  redactor: Redactor,
): Promise<Partial<TokenRecord> & { access_token: string }> {
  const o = target.oauth!;
  const res = await api.post(`${target.control!.url}/codes/mint`, { body: { clientId: o.clientId, username, scopes, redirectUri: o.redirectUri } });
  const code = (res.json as { code?: unknown } | undefined)?.code;
  if (res.status !== 200 || typeof code !== 'string') throw new Error(`the control API did not mint a code (${res.status})`);
  redactor.add(code);
  return exchangeCode(api, target, code);
}

function whyCannotMint(target: Target, browserChoice: BrowserChoice): string | undefined {
  const absent = missingSignInKeys(target);
  if (absent.length) return `the target file lacks ${absent.join(', ')}`;
  if (!browserChoice.executablePath) return browserChoice.missing;
  return undefined;
}

async function mintAll(browser: Browser, api: ApiClient, target: Target, plans: MintPlan[], result: ObtainedTokens, redactor: Redactor): Promise<void> {
  const o = target.oauth!;
  // Each sign-in in its own browser context (no session leaks between users). The first alone (when
  // it fails, the others would too: the same page for the same application), then SIGN_INS_AT_ONCE at
  // a time (browser.ts: a sign-in mostly waits, and a server whose sign-in goes through several pages
  // makes each wait longer).
  let broken: string | undefined;
  const signIn1 = async (plan: MintPlan): Promise<void> => {
    if (broken) {
      if (!plan.forLater) result.notes[plan.key] = `tokens.${plan.key} was not minted: ${broken}`;
      return;
    }
    const creds = plan.user === 'primary' ? { username: o.username!, password: o.password! } : { username: o.otherUsername!, password: o.otherPassword! };
    const mint = async (scope: string): Promise<string> => {
      const obtained = Date.now();
      const signed = await signIn(browser, target, { ...creds, scope });
      if (!signed.code) {
        const pageProblem = signInProblem(signed, target);
        if (pageProblem) result.signInPageProblem ??= pageProblem;
        throw new Error(pageProblem?.reason ?? signed.problem ?? 'the redirect carried no code');
      }
      redactor.add(signed.code);
      result.otherSecrets.push(signed.code);
      const token = await exchangeCode(api, target, signed.code);
      redactor.add(token.access_token, token.refresh_token);
      if (token.refresh_token) result.otherSecrets.push(token.refresh_token);
      const record = keptToken(token, obtained, 'signin', plan.user, scope);
      if (plan.forLater) result.forLater = { token: token.access_token, expiresAtMs: record.expiresAtMs };
      else result.kept[plan.key] = record;
      return token.access_token;
    };
    try {
      let token = await mint(plan.scope);
      // Granted anyway (GET /users/me needs users_read)? Then the request was read another way.
      if (plan.fallbackScope !== undefined && (await api.get('/users/me', { authorization: `Bearer ${token}` })).status === 200) {
        token = await mint(plan.fallbackScope);
      }
      if (plan.forLater) return;
      result.tokens[plan.key] = token;
      result.origins[plan.key] = 'signin';
      result.signedIn.push(plan.key);
    } catch (err) {
      // One to keep for a later run is no token of this run's: its failure changes nothing now.
      if (plan.forLater) return;
      result.notes[plan.key] = `minting tokens.${plan.key} through the sign-in flow failed: ${redactor.redact((err as Error).message.split('\n')[0])}`;
      // The same page for the same application: when the first sign-in fails, the others would too.
      if (plan === plans[0]) broken = `the first sign-in (tokens.${plan.key}) failed: ${result.notes[plan.key]}`;
    }
  };
  const [first, ...rest] = plans;
  if (first) await signIn1(first);
  await inTurns(rest, SIGN_INS_AT_ONCE, signIn1);
  // In the plans' order, whichever finished first.
  const order = plans.map((p) => p.key);
  result.signedIn.sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** Expired and revoked tokens: static, handed to a command (`handedOver`), or (with a control API) minted above and then expired/revoked. */
async function expireAndRevoke(api: ApiClient, target: Target, result: ObtainedTokens, redactor: Redactor, handedOver: TokenKey[]): Promise<void> {
  // The two go together: neither waits for the other's answer.
  const both = [
    ['expired', 'expire'],
    ['revoked', 'revoke'],
  ] as const;
  await Promise.all(both.filter(([key]) => !handedOver.includes(key)).map(([key, action]) => expireOrRevoke(api, target, result, redactor, key, action)));
}

async function expireOrRevoke(
  api: ApiClient,
  target: Target,
  result: ObtainedTokens,
  redactor: Redactor,
  key: 'expired' | 'revoked',
  action: 'expire' | 'revoke',
): Promise<void> {
  if (target.tokens[key] || target.tokenCommands[key] || result.notes[key]) return;
  const token = result.tokens[key];
  if (!token || !target.control) return;
  try {
    const res = await api.post(`${target.control.url}/tokens/${action}`, { body: { token } });
    if (res.status >= 300) throw new Error(`the control API answered ${res.status}`);
    // The expired token stays expired; the revoked one is kept revoked but alive (token-keeper.ts).
    if (key === 'expired') delete result.kept.expired;
    else if (result.kept.revoked) result.kept.revoked.revoke = true;
  } catch (err) {
    delete result.tokens[key];
    delete result.kept[key];
    result.notes[key] = `making a ${key} token through the control API failed: ${redactor.redact((err as Error).message)}`;
  }
}
