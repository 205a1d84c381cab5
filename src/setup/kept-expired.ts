// An expired token a vendor with OAuth credentials alone can have: one the suite minted in an earlier
// run and kept until its expires_in passed. A run against a target that gives no expired token (no
// tokens.expired, no tokenCommands.expired, no control API) and can mint tokens takes the newest kept
// token already expired as tokens.expired, and keeps a fresh one for a later run (a nightly run has
// one from the night before). Kept beside the reports folder, in .vds-conformance/ (a folder readable
// by its owner only, each file mode 0600, as the run's kept tokens are: token-keeper.ts), one file per
// target (its API root, application and user), never in a report. A server may forget a token once it
// has expired; AUTH-EXPIRED takes the answer for an unknown token then (contracts/decisions.yaml).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { reportsDir } from '../options/paths';
import { writeJsonWhole } from '../util/write-whole';
import type { Target } from './target';

/** A token kept to expire: its value, when it runs out by this machine's clock, and when it was kept. */
interface KeptToExpire {
  value: string;
  expiresAtMs: number;
  keptAt: string;
}

/** Taken as expired only this long after its expires_in passed: a server's clock may run a little behind. */
const MARGIN_MS = 60_000;
/** At most this many kept per target: the newest expired one is used, the rest wait their turn. */
const KEPT_AT_MOST = 4;

/** Where the kept tokens live: .vds-conformance/ beside the reports folder (the user's folder for the installed command). */
function keptTokensDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(reportsDir(env)), '.vds-conformance');
}

/** The file of this target's kept tokens: one per API root, application and primary user. */
function fileOf(target: Target, dir: string): string {
  const who = [target.baseUrl, target.oauth?.clientId ?? '', target.oauth?.username ?? ''].join('\n');
  return path.join(dir, `expired-tokens-${crypto.createHash('sha256').update(who).digest('hex').slice(0, 16)}.json`);
}

function read(file: string): KeptToExpire[] {
  try {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens?: KeptToExpire[] };
    return Array.isArray(kept.tokens) ? kept.tokens.filter((t) => typeof t?.value === 'string' && typeof t.expiresAtMs === 'number') : [];
  } catch {
    return [];
  }
}

/** The newest kept token of `target` whose expiry has passed (by the margin), if any. */
export function usableKeptExpired(target: Target, now = Date.now(), dir = keptTokensDir()): KeptToExpire | undefined {
  return read(fileOf(target, dir))
    .filter((t) => t.expiresAtMs + MARGIN_MS <= now)
    .sort((a, b) => b.expiresAtMs - a.expiresAtMs)[0];
}

/** When the next kept token of `target` will do as an expired one, if one is kept. */
function nextKeptExpiry(target: Target, now = Date.now(), dir = keptTokensDir()): number | undefined {
  const waiting = read(fileOf(target, dir))
    .map((t) => t.expiresAtMs + MARGIN_MS)
    .filter((at) => at > now);
  return waiting.length ? Math.min(...waiting) : undefined;
}

/**
 * Keeps `value` (a token just minted, running out at `expiresAtMs`) for a later run, with the others
 * kept; the oldest beyond KEPT_AT_MOST go, but the newest already expired (the one a run takes).
 */
export function keepToExpire(target: Target, value: string, expiresAtMs: number, now = Date.now(), dir = keptTokensDir()): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = fileOf(target, dir);
  const usable = usableKeptExpired(target, now, dir);
  const others = read(file)
    .filter((t) => t.value !== usable?.value)
    .sort((a, b) => b.expiresAtMs - a.expiresAtMs)
    .slice(0, KEPT_AT_MOST - (usable ? 2 : 1));
  const tokens = [{ value, expiresAtMs, keptAt: new Date(now).toISOString() }, ...(usable ? [usable] : []), ...others];
  writeJsonWhole(file, { format: 'vds-conformance-kept-tokens/1', target: target.baseUrl, tokens });
}

/**
 * Why this target has no expired token for a run (the words readiness and the run's note both use),
 * when it gives none and the suite cannot take one it kept; `canMint`: whether a run can keep one.
 */
export function noExpiredToken(target: Target, canMint: boolean, now = Date.now(), dir = keptTokensDir()): string {
  const base = `tokens.expired is not in ${target.source}${target.unset['tokens.expired'] ? ` (\${${target.unset['tokens.expired']}} is not set)` : ''}, nor tokenCommands.expired, and the target has no control API to make one`;
  if (!canMint) return base;
  const next = nextKeptExpiry(target, now, dir);
  return next
    ? `${base}; the token a run kept for it (${dir}) has not expired yet: a run from ${new Date(next).toISOString()} on takes it`
    : `${base}; a run keeps a token it mints (${dir}) and a later run takes it once its expires_in has passed`;
}
