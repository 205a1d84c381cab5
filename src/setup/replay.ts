// Replaying a certification archive (vds-conformance verify ARCHIVE, src/cli/verify.ts): the same checks
// run again, offline, every request answered from the archive instead of the network.
//
// What a certification records for it (src/playwright/certificate-reporter.ts, when --certify):
//   replay.json     the run's context: the suite's version and content hash, the run's start, fuzz seed
//                   and concurrency, the target's facts with every secret replaced by a placeholder
//                   naming its key, which token keys existed (never their values), the ids discovered,
//                   the data window, the notes and warnings, whether a browser was there;
//   exchanges.json  per check, in order, every redacted request and its whole redacted answer
//                   (Exchange.body), which credential it carried by name (Exchange.credential), and
//                   the instants the check read from its clock (src/transport/clock.ts).
//
// With VDS_REPLAY=<the extracted archive> global setup loads the context instead of reaching the
// target (fixtures/global-setup.ts), loadTargetFromEnv gives the recorded target, and each check's
// ApiClient talks to a ReplaySession (a Transport, src/transport/exchange.ts) holding that check's recorded
// exchanges: a request is answered by the first unused recorded exchange with the same method, URL,
// redacted headers and body, and credential key; the check's clock gives the recorded instants. A
// request nothing recorded answers throws NoRecordedAnswer: the check is reported "no recorded
// answer" (a tampered or incomplete archive), never as the server's failure. A check that needs a
// browser cannot be replayed: "verified from the record only".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOptions } from '../options/options';
import { NoAnswerError, RateLimitedError, type Exchange, type OutgoingRequest, type RawAnswer, type Transport } from '../transport/exchange';
import type { BrowserSession } from './browser';
import { replayedClock, type Clock } from '../transport/clock';
import type { LatencySampling } from './latency-sampling';
import type { RunContext } from './run-context';
import type { SignInPageProblem } from './signin-page-state';
import type { DataKey, Target, TokenKey } from './target';

export const REPLAY_ENV = 'VDS_REPLAY';
export const REPLAY_FILE = 'replay.json';
export const REPLAY_FORMAT = 'vds-conformance-replay/1';

/** Keys whose values in a target file are secrets: replaced by a placeholder naming them. */
const SECRET_OAUTH_FIELDS = ['clientSecret', 'password', 'otherPassword', 'restrictedClientSecret'] as const;

/** The target as a replay needs it: no secret, no command, no file of this machine. */
export type RecordedTarget = Omit<Target, 'startCommand' | 'caFile' | 'rateLimit' | 'tokenCommands' | 'tokens' | 'file'>;

export interface ReplayContextFile {
  format: typeof REPLAY_FORMAT;
  suite: { name: string; version: string; contentSha256?: string };
  /** When global setup started: the run's clock. */
  startedAt: string;
  fuzzSeed: number;
  concurrency: number;
  /** The check selection of the recorded run (a certification has none). */
  selection: Record<string, string>;
  target: RecordedTarget;
  run: {
    /** The token keys the run held (full, otherUser, withoutScope.cars_read, ...): never a value. */
    tokenKeys: TokenKey[];
    tokenNotes: RunContext['tokenNotes'];
    /** Where each token came from (what a check may ask of it depends on it). */
    tokenOrigins?: RunContext['tokenOrigins'];
    /** The public keys the server published for its tokens (public, as the server gives them). */
    publishedKeys?: RunContext['publishedKeys'];
    data: Partial<Record<DataKey, string>>;
    dataNotes: RunContext['dataNotes'];
    window?: RunContext['window'];
    /** Whether the run had a browser; why not when it had none. */
    browser: { available: boolean; missing?: string };
    warnings: string[];
    freshState: boolean;
    signInPageProblem?: SignInPageProblem;
  };
}

/** What a replay reads of one check of exchanges.json (src/verdict/check-record.ts RecordedCheck): its answers and clock. */
export interface RecordedExchanges {
  key: string;
  /** The instants the check read from its clock, in order (CheckContext.now()). */
  clock?: number[];
  exchanges: Exchange[];
}

/** A secret's stand-in in a replay: names its key, never its value (at least 6 characters: redacted like one). */
function placeholder(key: string): string {
  return `replay-secret-${key}`;
}

function tokenPlaceholder(key: string): string {
  return `replay-token-${key}`;
}

/** The target without its secrets (replay.json). */
export function recordedTarget(t: Target): RecordedTarget {
  const { startCommand: _s, caFile: _c, rateLimit: _r, tokenCommands: _tc, tokens: _t, file: _f, ...rest } = t;
  const oauth = t.oauth ? { ...t.oauth } : undefined;
  if (oauth) for (const f of SECRET_OAUTH_FIELDS) if (oauth[f]) oauth[f] = placeholder(`oauth.${f}`);
  const headers = t.headers ? Object.fromEntries(Object.keys(t.headers).map((h) => [h, placeholder(`headers.${h}`)])) : undefined;
  return { ...rest, ...(oauth ? { oauth } : {}), ...(headers ? { headers } : {}) };
}

export function replayDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return runOptions(env).replay;
}

let context: { dir: string; file: ReplayContextFile } | undefined;

export function readReplayContext(dir: string): ReplayContextFile {
  if (context?.dir !== dir) context = { dir, file: JSON.parse(fs.readFileSync(path.join(dir, REPLAY_FILE), 'utf8')) as ReplayContextFile };
  return context.file;
}

/** The recorded target, secrets as placeholders (loadTargetFromEnv during a replay). */
export function replayTarget(dir: string): Target {
  const t = readReplayContext(dir).target;
  return { ...t, tokens: {}, tokenCommands: {}, source: t.source };
}

/** The run context global setup publishes during a replay: the recorded one, tokens as placeholders. */
export function replayRunContext(dir: string): RunContext {
  const { run, startedAt, concurrency, target } = readReplayContext(dir);
  const tokens = Object.fromEntries(run.tokenKeys.map((k) => [k, tokenPlaceholder(k)])) as RunContext['tokens'];
  const secrets = [
    ...(Object.values(tokens) as string[]),
    ...SECRET_OAUTH_FIELDS.flatMap((f) => (target.oauth?.[f] ? [target.oauth[f]!] : [])),
    ...Object.values(target.headers ?? {}),
  ];
  const latency: LatencySampling = { method: 'not sampled: a replay of a certification archive', routes: [] };
  return {
    startedAt,
    tokens,
    tokenNotes: run.tokenNotes,
    ...(run.tokenOrigins ? { tokenOrigins: run.tokenOrigins } : {}),
    ...(run.publishedKeys ? { publishedKeys: run.publishedKeys } : {}),
    data: run.data,
    dataNotes: run.dataNotes,
    window: run.window,
    browser: run.browser.available ? { executablePath: '(none: a replay launches no browser)' } : { missing: run.browser.missing },
    secrets,
    warnings: run.warnings,
    freshState: run.freshState,
    stateDir: fs.mkdtempSync(path.join(os.tmpdir(), 'vds-replay-')),
    concurrency,
    latency,
  };
}

let checks: { dir: string; byKey: Map<string, RecordedExchanges> } | undefined;

/** The archive's checks by key (read once per worker). */
export function recordedChecks(dir: string, file = 'exchanges.json'): Map<string, RecordedExchanges> {
  if (checks?.dir !== dir) {
    const list = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as RecordedExchanges[];
    checks = { dir, byKey: new Map(list.map((c) => [c.key, c])) };
  }
  return checks.byKey;
}

/** A request the archive has no answer for: the archive was edited, or is incomplete. */
export class NoRecordedAnswer extends Error {
  constructor(readonly request: string) {
    super(`no recorded answer for ${request}`);
    this.name = 'NoRecordedAnswer';
  }
}

/** Something a replay cannot do (drive a browser): the check is verified from the record only. */
export class NotReplayable extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'NotReplayable';
  }
}

/** A request and its recorded twin are the same request: method, URL, headers and body (all redacted), credential key. */
function sameRequest(asked: Exchange, recorded: Exchange): boolean {
  return (
    asked.method === recorded.method &&
    asked.url === recorded.url &&
    (asked.credential ?? 'unnamed') === (recorded.credential ?? 'unnamed') &&
    JSON.stringify(asked.requestHeaders) === JSON.stringify(recorded.requestHeaders) &&
    (asked.requestBody ?? '') === (recorded.requestBody ?? '')
  );
}

/** One check's replay: its transport (the recorded answers), its clock, and what it could not answer. */
export class ReplaySession implements Transport {
  /** Requests nothing recorded answers, as lines. */
  readonly misses: string[] = [];
  /** The check asked for a browser. */
  needsBrowser = false;
  readonly clock: Clock;
  private readonly used: boolean[];

  constructor(readonly recorded: RecordedExchanges | undefined) {
    this.clock = replayedClock(recorded?.clock ?? []);
    this.used = (recorded?.exchanges ?? []).map(() => false);
  }

  /** The recorded exchanges the replay did not ask for. */
  unused(): number {
    return this.used.filter((u) => !u).length;
  }

  readonly browserSession: BrowserSession = () => {
    this.needsBrowser = true;
    return Promise.reject(new NotReplayable('needs a browser (the sign-in page), which a replay does not drive'));
  };

  async send(request: OutgoingRequest, exchange: Exchange): Promise<RawAnswer> {
    const list = this.recorded?.exchanges ?? [];
    const i = list.findIndex((r, n) => !this.used[n] && sameRequest(exchange, r));
    const line = `${exchange.method} ${exchange.url} (credential ${exchange.credential ?? 'none named'})`;
    if (i < 0) {
      this.misses.push(line);
      exchange.error = 'no recorded answer in the archive';
      throw new NoRecordedAnswer(line);
    }
    this.used[i] = true;
    const r = list[i];
    if (r.throttled) exchange.throttled = r.throttled;
    if (r.reconnected) exchange.reconnected = r.reconnected;
    if (r.errorKind === 'rate-limited') {
      exchange.status = 429;
      exchange.errorKind = 'rate-limited';
      throw new RateLimitedError(`${request.method} ${exchange.url}: still 429 Too Many Requests (recorded)`, exchange);
    }
    if (r.error !== undefined || r.status === undefined) {
      exchange.error = r.error ?? 'no answer';
      exchange.errorKind = r.errorKind ?? 'network';
      exchange.durationMs = r.durationMs;
      throw new NoAnswerError(`${request.method} ${exchange.url}: ${exchange.error}`, r.errorKind === 'timeout' ? 'timeout' : 'network', exchange);
    }
    if (r.body === undefined) {
      this.misses.push(`${line}: recorded without its whole answer`);
      throw new NoRecordedAnswer(`${line}: recorded without its whole answer`);
    }
    return { status: r.status, headers: r.responseHeaders ?? {}, text: r.body, truncated: r.truncated ?? false, durationMs: r.durationMs };
  }
}
