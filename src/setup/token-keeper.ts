// Tokens the suite minted expire. Their lifetime is the server's ("token lifetime: not shown" in the
// spec; expires_in in the profile's token record), and a run against a slow server may outlast it:
// a check must never fail because a token the suite minted ran out under it. The keeper holds, per
// token key, every value minted for it, its refresh token and when it runs out, and
//   - before a request carries one of those values: the current one, renewed first when less than a
//     quarter of its life (at most 30 s, at least 1 s) is left;
//   - after an answer that says the token has expired: a renewal, and one more try (api.ts).
// A renewal is the refresh grant (POST /auth/access_token, the target's client credentials), else a
// new token the way the first was obtained (the control API, or the sign-in page in Chromium). The
// records live in the run's state folder, shared by global setup and every worker, and change under a
// lock: refresh tokens are single use. Renewed values are secrets: they join the run's redaction
// (keptSecrets). Never renewed: tokens of the target file (static, or printed by a tokenCommand: their
// lifetime is the user's to know), the `expired` token (expired on purpose). The `revoked` token is
// renewed as a revoked one (a new token, revoked at once through the control API, or by the
// tokenCommand it was handed to), so that it never also expires under a check (a server may say
// "expired" before "revoked").
import fs from 'node:fs';
import path from 'node:path';
import { writeJsonWhole } from '../util/write-whole';
import { setTokenKeeper, type ApiClient, type KeptAuthorization } from '../transport/api';
import { bearerOf } from '../transport/bearer';
import { launchBrowser, type BrowserChoice } from './browser';
import { basicAuth, exchangeCode, signIn, tokenRequest, type TokenRecord } from './oauth';
import { Redactor } from '../util/redact';
import { runTokenCommand } from './token-commands';
import type { Target, TokenKey } from './target';

/** How a kept token is obtained again when its refresh token cannot renew it. */
export type MintedVia = 'control' | 'signin';

export interface KeptToken {
  /** Every access token value minted for this key, oldest first: the last is current. */
  values: string[];
  refresh?: string;
  /** When the current value runs out, by this machine's clock (its answer's expires_in, else expires_at); unknown: renewed only when refused as expired. */
  expiresAtMs?: number;
  lifetimeMs?: number;
  via: MintedVia;
  user: 'primary' | 'other';
  /** The scopes asked for, space-separated (as the sign-in page takes them). */
  scope: string;
  /** The `revoked` token: revoked again after each renewal. */
  revoke?: boolean;
  /** Renewals so far (the certificate counts them). */
  renewals: number;
}

export type KeptTokens = Partial<Record<TokenKey, KeptToken>>;

/** A kept token's record as the token endpoint (or the control API) answered it, at `obtainedMs`. */
export function keptToken(record: Partial<TokenRecord>, obtainedMs: number, via: MintedVia, user: KeptToken['user'], scope: string): KeptToken {
  return { values: [String(record.access_token)], refresh: record.refresh_token, ...lifetimeOf(record, obtainedMs), via, user, scope, renewals: 0 };
}

/** expires_in from when it was received (this machine's clock: a server's clock may be off), else expires_at. */
function lifetimeOf(record: Partial<TokenRecord>, obtainedMs: number): Pick<KeptToken, 'expiresAtMs' | 'lifetimeMs'> {
  if (typeof record.expires_in === 'number' && record.expires_in > 0)
    return { expiresAtMs: obtainedMs + record.expires_in * 1000, lifetimeMs: record.expires_in * 1000 };
  if (typeof record.expires_at === 'number' && record.expires_at * 1000 > obtainedMs) {
    return { expiresAtMs: record.expires_at * 1000, lifetimeMs: record.expires_at * 1000 - obtainedMs };
  }
  return {};
}

/** Renewed early: a quarter of the token's life before it runs out, at most 30 s, at least 1 s. */
function marginMs(t: KeptToken): number {
  return Math.min(30_000, Math.max(1_000, (t.lifetimeMs ?? 0) / 4));
}

const FILE = 'kept-tokens.json';
const SECRETS_FILE = 'kept-secrets.json';
const LOCK = 'kept-tokens.lock';

interface Keeping {
  target: Target;
  stateDir: string;
  browser: BrowserChoice;
  /** The client of the renewals' requests: the preparation's in the runner (preparation.ts), the worker's own in a worker. */
  api: ApiClient;
}

let keeping: Keeping | undefined;
/** In this process: one renewal of a key at a time. */
const inFlight = new Map<TokenKey, Promise<string | undefined>>();

/** Starts keeping these tokens for the run (global setup, once): they are written to its state folder. */
export function startKeeping(keep: Keeping, tokens: KeptTokens): void {
  fs.mkdirSync(keep.stateDir, { recursive: true });
  writeJsonWhole(path.join(keep.stateDir, FILE), tokens);
  keeping = keep;
}

/** Keeps the run's tokens in this process too (a worker): the records global setup wrote. */
export function keepRunTokens(keep: Keeping): void {
  keeping = fs.existsSync(path.join(keep.stateDir, FILE)) ? keep : undefined;
}

export function stopKeeping(): void {
  keeping = undefined;
  inFlight.clear();
}

/** What changes when the kept secrets do (the file's inode, time and size: each write replaces it whole), '' without any. */
export function keptSecretsStamp(stateDir: string | undefined): string {
  const stat = stateDir ? fs.statSync(path.join(stateDir, SECRETS_FILE), { throwIfNoEntry: false }) : undefined;
  return stat ? `${stat.ino}:${stat.mtimeMs}:${stat.size}` : '';
}

/** The secrets renewals added (new access and refresh tokens): the run's redaction includes them. */
export function keptSecrets(stateDir: string | undefined): string[] {
  if (!stateDir) return [];
  const file = path.join(stateDir, SECRETS_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as string[]) : [];
}

/** The refresh tokens the run holds (the current one of each token key it minted), by key: what a check may present as another credential. */
export function heldRefreshTokens(run: { stateDir?: string }): Array<{ key: TokenKey; value: string }> {
  const tokens = run.stateDir ? readTokens(run.stateDir) : {};
  return (Object.keys(tokens) as TokenKey[]).flatMap((key) => (tokens[key]?.refresh ? [{ key, value: tokens[key]!.refresh! }] : []));
}

/** When the current value of each token the run minted was obtained, and how long it said it lives (unknown: not listed). */
export function keptTokenTimes(run: { stateDir?: string }): Array<{ key: TokenKey; obtainedAtMs: number; lifetimeMs: number; revoked: boolean }> {
  const tokens = run.stateDir ? readTokens(run.stateDir) : {};
  return (Object.keys(tokens) as TokenKey[]).flatMap((key) => {
    const t = tokens[key]!;
    if (t.expiresAtMs === undefined || t.lifetimeMs === undefined) return [];
    return [{ key, obtainedAtMs: t.expiresAtMs - t.lifetimeMs, lifetimeMs: t.lifetimeMs, revoked: t.revoke === true }];
  });
}

/** How many times the run's tokens were renewed. */
export function renewalsOf(stateDir: string | undefined): number {
  const tokens = stateDir ? readTokens(stateDir) : {};
  return Object.values(tokens).reduce((n, t) => n + (t?.renewals ?? 0), 0);
}

/** The Authorization header carries a token the keeper keeps: its current value, renewed if need be. */
async function keptAuthorization(authorization: string | null | undefined, now = Date.now()): Promise<KeptAuthorization | undefined> {
  const keep = keeping;
  const carried = bearerOf(authorization);
  if (!keep || !carried) return undefined;
  const tokens = readTokens(keep.stateDir);
  const key = (Object.keys(tokens) as TokenKey[]).find((k) => tokens[k]!.values.includes(carried.token));
  if (!key) return undefined;
  const added: string[] = [];
  const current = tokens[key]!;
  const dueAt = current.expiresAtMs === undefined ? Infinity : current.expiresAtMs - marginMs(current);
  const value = now >= dueAt ? ((await renew(keep, key, current.values[current.values.length - 1], added)) ?? last(current)) : last(current);
  // What the value sent promised: its record once renewed (readTokens reads the file again only if it changed).
  const sent = readTokens(keep.stateDir)[key];
  return {
    header: `${carried.scheme} ${value}`,
    afterAnswer: async (status, text) => {
      // The server read the request before its answer came: judged at the answer's arrival, since a
      // busy client may write a request long after it was handed over (waiting for a slot, sent again
      // on a fresh connection), and a token's life is counted from before it was asked for.
      const answeredAt = Date.now();
      const expired = saysExpired(status, text);
      // A token at the end of its life refused as unknown may have expired and been forgotten by now
      // (decision D-EXPIRED-NAMED lets a server answer so): renewed and sent again too.
      const due = sent?.expiresAtMs !== undefined && answeredAt >= sent.expiresAtMs - marginMs(sent);
      if (!expired && !(status === 401 && due)) return undefined;
      if (expired && sent && last(sent) === value) noteBrokenLifetime(keep.stateDir, key, sent, answeredAt, status);
      const renewed = await renew(keep, key, value, added, true);
      return renewed && renewed !== value ? `${carried.scheme} ${renewed}` : undefined;
    },
    secrets: () => added,
  };
}

setTokenKeeper((authorization) => keptAuthorization(authorization));

const BROKEN_LIFETIMES = 'broken-lifetimes.jsonl';

/** A kept token refused as expired while its expires_in said it lived: what TOKEN-LIFETIME-KEPT judges. */
export interface BrokenLifetime {
  key: TokenKey;
  /** How long it still had to live by its expires_in (on this machine's clock, less the renewal margin) when its answer came, in ms. */
  leftMs: number;
  lifetimeMs: number;
  status: number;
}

/**
 * The run keeps going (the token is renewed and the request sent again), but the event is the
 * server's: recorded when the value sent had more than its renewal margin left (a quarter of its life,
 * 1 s to 30 s: what covers the round trip and a clock running apart), appended whole (one short line).
 */
function noteBrokenLifetime(stateDir: string, key: TokenKey, t: KeptToken, answeredAt: number, status: number): void {
  if (t.expiresAtMs === undefined || t.lifetimeMs === undefined) return;
  const leftMs = t.expiresAtMs - marginMs(t) - answeredAt;
  if (leftMs <= 0) return;
  const event: BrokenLifetime = { key, leftMs: Math.round(leftMs), lifetimeMs: Math.round(t.lifetimeMs), status };
  fs.appendFileSync(path.join(stateDir, BROKEN_LIFETIMES), `${JSON.stringify(event)}\n`);
}

/** The kept tokens of the run refused as expired while they lived by their expires_in (noteBrokenLifetime). */
export function brokenLifetimes(run: { stateDir?: string }): BrokenLifetime[] {
  const file = run.stateDir ? path.join(run.stateDir, BROKEN_LIFETIMES) : undefined;
  if (!file || !fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as BrokenLifetime);
}

/** An answer that says the request's token has expired (401 or 403, "expired" in its message). */
function saysExpired(status: number, text: string): boolean {
  return (status === 401 || status === 403) && /expired/i.test(text.slice(0, 2000));
}

const last = (t: KeptToken) => t.values[t.values.length - 1];

/**
 * Renews `key` unless another renewal already replaced `stale` (in this process, or another under the
 * lock): then that one's value. `force`: renew even if not due yet (the server said it expired).
 * Undefined when it cannot be renewed (the answer stands, and the check judges it).
 */
function renew(keep: Keeping, key: TokenKey, stale: string, added: string[], force = false): Promise<string | undefined> {
  const pending = inFlight.get(key);
  if (pending) return pending;
  const work = withLock(keep.stateDir, async () => {
    const tokens = { ...readTokens(keep.stateDir) }; // a copy: the kept read is shared
    const t = tokens[key];
    if (!t) return undefined;
    if (last(t) !== stale) return last(t);
    if (!force && t.expiresAtMs !== undefined && Date.now() < t.expiresAtMs - marginMs(t)) return last(t);
    // Its lifetime counts from before it was asked for: the server issued it later, never earlier.
    const obtained = Date.now();
    const fresh = await obtainAgain(keep, t);
    if (!fresh) return undefined;
    const next: KeptToken = {
      ...t,
      values: [...t.values, String(fresh.access_token)],
      refresh: fresh.refresh_token ?? t.refresh,
      ...lifetimeOf(fresh, obtained),
      renewals: t.renewals + 1,
    };
    if (!lifetimeOf(fresh, obtained).expiresAtMs) delete next.expiresAtMs;
    tokens[key] = next;
    const secrets = [fresh.access_token, fresh.refresh_token].filter((v): v is string => typeof v === 'string');
    // The secrets first: a reader that finds the new token can redact it.
    writeJsonWhole(path.join(keep.stateDir, SECRETS_FILE), [...keptSecrets(keep.stateDir), ...secrets]);
    writeJsonWhole(path.join(keep.stateDir, FILE), tokens);
    added.push(...secrets);
    return String(fresh.access_token);
  }).finally(() => inFlight.delete(key));
  inFlight.set(key, work);
  return work;
}

/** A new token record for this key: the refresh grant first, else a new one the way the first was obtained; revoked again if it is the revoked one. */
async function obtainAgain(keep: Keeping, t: KeptToken): Promise<Partial<TokenRecord> | undefined> {
  const { target, api } = keep;
  let fresh: Partial<TokenRecord> | undefined;
  if (t.refresh && target.oauth?.clientId) {
    const res = await tokenRequest(api, target, { grant_type: 'refresh_token', refresh_token: t.refresh }, basicAuth(target)).catch(() => undefined);
    const body = res?.json as Partial<TokenRecord> | undefined;
    if (res?.status === 200 && typeof body?.access_token === 'string') fresh = body;
  }
  fresh ??= await (t.via === 'control' ? mintThroughControl(api, target, t) : signInAgain(api, keep, t));
  // A server that answers a valid token again to a later grant (the same user, application and scopes) may
  // answer another key's token: revoking it would end that one too.
  const held = Object.values(readTokens(keep.stateDir)).flatMap((k) => k?.values.slice(-1) ?? []);
  if (fresh && t.revoke && held.includes(String(fresh.access_token))) return undefined;
  if (fresh && t.revoke && target.tokenCommands.revoked) {
    // Revoked again by the operator's tool it was handed to (token-commands.ts).
    const got = runTokenCommand(target, 'revoked', new Redactor(), String(fresh.access_token));
    return 'token' in got ? { ...fresh, access_token: got.token } : undefined;
  }
  if (fresh && t.revoke && target.control) {
    const res = await api.post(`${target.control.url}/tokens/revoke`, { body: { token: fresh.access_token } }).catch(() => undefined);
    if (!res || res.status >= 300) return undefined;
  }
  return fresh;
}

async function mintThroughControl(api: ApiClient, target: Target, t: KeptToken): Promise<Partial<TokenRecord> | undefined> {
  const o = target.oauth;
  if (!target.control || !o?.clientId) return undefined;
  const username = t.user === 'primary' ? o.username : o.otherUsername;
  const res = await api
    .post(`${target.control.url}/tokens/mint`, { body: { clientId: o.clientId, username, scopes: t.scope.split(' ').filter(Boolean) } })
    .catch(() => undefined);
  const body = res?.json as Partial<TokenRecord> | undefined;
  return res?.status === 200 && typeof body?.access_token === 'string' ? body : undefined;
}

/** Signs in again through the page (a browser of its own, for this once), and exchanges the code. */
async function signInAgain(api: ApiClient, keep: Keeping, t: KeptToken): Promise<Partial<TokenRecord> | undefined> {
  const o = keep.target.oauth;
  const username = t.user === 'primary' ? o?.username : o?.otherUsername;
  const password = t.user === 'primary' ? o?.password : o?.otherPassword;
  if (!username || !password || !keep.browser.executablePath) return undefined;
  const browser = await launchBrowser(keep.browser).catch(() => undefined);
  if (!browser) return undefined;
  try {
    const signed = await signIn(browser, keep.target, { username, password, scope: t.scope });
    return signed.code ? await exchangeCode(api, keep.target, signed.code).catch(() => undefined) : undefined;
  } finally {
    await browser.close().catch(() => undefined);
  }
}

/**
 * The run's kept tokens, read again only when the file changed: every request with a token asks (about
 * 1600 a run). Each write replaces the file whole (writeJsonWhole), so a new inode says it changed, and a
 * reader in another process never sees half a file.
 */
let lastRead: { file: string; ino: number; mtimeMs: number; size: number; tokens: KeptTokens } | undefined;

/** The run's kept tokens (shared: copy before changing them). */
function readTokens(stateDir: string): Readonly<KeptTokens> {
  const file = path.join(stateDir, FILE);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return {};
  const r = lastRead;
  if (r && r.file === file && r.ino === stat.ino && r.mtimeMs === stat.mtimeMs && r.size === stat.size) return r.tokens;
  const tokens = JSON.parse(fs.readFileSync(file, 'utf8')) as KeptTokens;
  lastRead = { file, ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size, tokens };
  return tokens;
}

/** Runs `fn` holding the run's token lock (a folder: made atomically, by one process at a time). */
async function withLock<T>(stateDir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(stateDir, LOCK);
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // A lock older than a minute was left by a process that died holding it.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 60_000 || Date.now() > deadline) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
