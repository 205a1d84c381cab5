// What global setup learns once per run (tokens, discovered ids, the browser) and hands to every
// worker through the environment, so no worker signs in or discovers again.
import type { JsonWebKey } from 'node:crypto';
import type { LatencySampling } from '../transport/answer-times';
import type { BrowserChoice } from './browser';
import type { DataKey, Target, TokenKey } from './target';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOptions } from '../options/options';
import { DEFAULT_MAX_CONCURRENCY } from '../transport/http-policy';
import { Redactor } from '../util/redact';
import { writeJsonWhole } from '../util/write-whole';
import { keptSecrets, keptSecretsStamp } from './token-keeper';

export type { DataKey } from './target';

/**
 * Where a token of the run came from: the target file (`target`) or a command of it (`command`) names it;
 * the run minted it through the control API (`control`) or the sign-in page (`signin`), or kept it from an
 * earlier run (`kept`, kept-expired.ts).
 */
export type TokenOrigin = 'target' | 'command' | 'control' | 'signin' | 'kept';

export interface RunContext {
  startedAt: string;
  tokens: Partial<Record<TokenKey, string>>;
  /** Why a token is missing: the reason a check needing it is not run. */
  tokenNotes: Partial<Record<TokenKey, string>>;
  /** Where each token came from (tokens.ts): the target names some, the run minted or kept the others. */
  tokenOrigins?: Partial<Record<TokenKey, TokenOrigin>>;
  /** The public keys the server publishes (a JWKS) for its readable tokens (published-keys.ts): what forging a token with them takes. */
  publishedKeys?: JsonWebKey[];
  data: Partial<Record<DataKey, string>>;
  dataNotes: Partial<Record<DataKey, string>>;
  /** A window of at most 28 days in which the primary car has trips (for range checks). */
  window?: { begin: string; end: string };
  /** The browser for the sign-in page, and what it is given to reach the target (browser-network.ts). */
  browser: BrowserChoice;
  /** Every secret value of the run, for redaction in workers and reporters. */
  secrets: string[];
  /** Problems found while preparing the run, shown once in the console and the certificate. */
  warnings: string[];
  /** What discovery chose among several (the car with the most data, its trip), shown in the console. */
  choices?: string[];
  /** True when the control API reset the target before this run: no earlier run's writes remain. */
  freshState: boolean;
  /** A folder of this run for what stateful checks share across workers (src/setup/run-state.ts). */
  stateDir: string;
  /** How many checks a worker runs at once: they wait on the network, so it follows the target's latency. */
  concurrency: number;
  /** The round trip measured before the run (ms). */
  roundTripMs?: number;
  /** The target is distant (prepare-run.ts, isDistant): its route groups run side by side (workersFor). */
  distant?: boolean;
  /**
   * The requests each worker may have in flight at once with its own slots: the target's maxConcurrency
   * shared among the workers, or, with a slot pool, a few each (shareSlots).
   */
  requestSlots?: number;
  /** Where the workers borrow request slots from the runner's pool (src/transport/request-slots.ts), when it lends. */
  slotPool?: string;
  /** The run's workers: they share the target's rate limit (http-policy.ts shareRateLimit). */
  workers?: number;
  /** The server's answer time per GET route, sampled before the checks (src/setup/latency-sampling.ts). */
  latency?: LatencySampling;
  /**
   * Routes the preparation got no answer from (not a byte within requestTimeoutMs, or none several
   * times in a row), and why: the checks send them no more requests (src/transport/breaker.ts), so the run
   * waits out their time-out once.
   */
  silentRoutes?: Record<string, string>;
  /**
   * What the preparation learnt of the server's connections: per origin, the shortest idle time after
   * which it closed one unannounced (src/transport/connection-reuse.ts). Each worker keeps its
   * connections well under it from its first request.
   */
  idleCloses?: Record<string, number>;
  /**
   * The applications (client ids) whose token endpoint refused their HTTP Basic credentials in RFC 6749's
   * form and took them raw (basic-form.ts): every request of the run sends them raw (oauth.ts setRawBasicClients).
   */
  rawBasicClients?: string[];
  /**
   * Tokens the run minted through the sign-in page for a non-empty list of scopes that served where a
   * scope they were not asked for is needed (token-proof.ts): dropped, the run goes on; TOKEN-SCOPES-KEPT fails on them.
   */
  tokensGrantingMore?: string[];
}

/**
 * Checks in flight per worker, by Little's law: the requests in flight are the rate they are answered
 * at times the time each takes. Locally the suite's two cores answer about one request per 2 ms
 * (CHECKS_NEARBY at once keep them busy; more only queue); across a network each request also waits
 * out the round trip, so keeping that rate takes one more check per 2 ms of round trip. Bounded by
 * the target's maxConcurrency (default DEFAULT_MAX_CONCURRENCY: more checks than request slots only
 * queue). VDS_CONCURRENCY overrides (e.g. 1 to debug).
 */
export function concurrencyFor(roundTripMs: number, maxConcurrency = DEFAULT_MAX_CONCURRENCY, env: NodeJS.ProcessEnv = process.env): number {
  const given = runOptions(env).concurrency;
  if (given !== undefined) return given;
  return Math.max(1, Math.min(maxConcurrency, Math.ceil(CHECKS_NEARBY + roundTripMs / MS_PER_REQUEST)));
}

/**
 * The round trips from which a distant target's route groups run side by side: their round trips
 * overlap instead of adding up, while each worker more starts (about 1.5 s of CPU) on the two cores the
 * running checks use. The choices below, and how to see them again: `npm run bench -- --only
 * default,remote-20,remote,remote-300 --with '--workers N'` for N of 1 to 5 (the reference at once,
 * 20, 40 and 300 ms late), against the same call without `--with` (the choice made here), comparing
 * the critical paths each prints (docs/performance.md):
 *   - at once, one worker: the machine is the limit, a second costs what it saves;
 *   - from DISTANT_MS (remote-20), two: the device checks' write lane, the longest group, beside the
 *     other groups (remote: three and five workers are slower than two);
 *   - from GROUPS_SIDE_BY_SIDE_MS (remote-300), three: the device checks' write lane is the run's
 *     critical path (about 80 requests one after another), and the other groups fit beside it in two
 *     workers (Playwright hands the groups out in file order: auth, cars and devices at once, then trips
 *     and users to the first free); four and five are no faster, each worker more starting on the
 *     cores the checks already running use.
 * Side by side, a group's reads meet another's writes: the checks that compare two reads leave out
 * what the run's writes change between them (COH-ME-CARS: writes-between-reads.test.ts).
 */
export const DISTANT_MS = 20;
/** The round trip from which the latency samples are taken side by side (latency-sampling.ts): each route a lane of its own. */
export const SAMPLED_SIDE_BY_SIDE_MS = 10;
export const GROUPS_SIDE_BY_SIDE_MS = 100;
/** Workers against a target DISTANT_MS to GROUPS_SIDE_BY_SIDE_MS away. */
const WORKERS_NEARLY = 2;
/** Workers against a target GROUPS_SIDE_BY_SIDE_MS away or more: the device checks' lane beside two for the other groups. */
const WORKERS_FAR = 3;

/**
 * Playwright's workers for this run: as the user gave them (VDS_WORKERS, --workers), else against a
 * distant target two from DISTANT_MS of round trip and three from GROUPS_SIDE_BY_SIDE_MS (never more
 * than the route groups), else one (on two cores a second worker costs a nearby run what it saves).
 */
export function workersFor(distant: boolean, groups: number, given?: number, roundTripMs = Infinity): number {
  if (given !== undefined) return given;
  if (!distant || roundTripMs < DISTANT_MS) return 1;
  return Math.max(1, Math.min(roundTripMs >= GROUPS_SIDE_BY_SIDE_MS ? WORKERS_FAR : WORKERS_NEARLY, groups));
}

/**
 * Whether the target is distant: its round trip is long (DISTANT_MS or more), and requests sent side
 * by side on open connections (the preflight's, prepare-run.ts) came back about as fast as one request
 * alone (their median within twice the round trip): the time is the network's, and requests overlap it.
 * A busy machine, or a slow server on it, also shows a long round trip, but requests sent together
 * there queue on the cores, each taking longer: the run then stays as on a nearby server (measured: a
 * local run under heavy load taken for a distant one overloaded the reference with five workers).
 * Without such samples, nothing says which: not distant.
 */
export function isDistant(roundTripMs: number, sideBySideSamples: number[]): boolean {
  if (roundTripMs < DISTANT_MS || sideBySideSamples.length === 0) return false;
  const sorted = [...sideBySideSamples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] <= 2 * roundTripMs;
}

/** The request slots of each of `workers` workers: maxConcurrency shared among them (never below one). */
export function requestSlotsFor(maxConcurrency: number, workers: number): number {
  return Math.max(1, Math.floor(maxConcurrency / Math.max(1, workers)));
}

/** How the workers share the target's maxConcurrency. */
export interface SlotShare {
  /** Each worker's own request slots. */
  requestSlots: number;
  /** The slots the runner lends among the workers (src/transport/request-slots.ts); 0: none, each has its share. */
  lent: number;
  /** Checks in flight per worker. */
  concurrency: number;
}

/**
 * A worker's own request slots when the runner lends the rest: a slot borrowed costs a message to the
 * runner and back (tens of milliseconds with three busy workers: the remote-300 scenario of npm run
 * bench, whose timeline gives each request's wait for a slot), so the few requests a worker always
 * keeps in flight (the device checks' write lanes: two or three) never wait for the runner.
 */
const OWN_SLOTS = 8;

/**
 * How `workers` workers share a cap of `maxConcurrency` requests in flight. A share each is enough
 * when the round trip asks no more checks in flight than it (Little's law, concurrencyFor): then
 * each worker keeps its share. Otherwise a worker whose groups need few slots (the device checks'
 * write lane) would leave its share idle while the others queue: each worker keeps OWN_SLOTS, one is
 * the runner's (the tokens' renewals), and the runner lends the rest among the workers as they ask,
 * when that pool is more than a share.
 */
export function shareSlots(maxConcurrency: number, workers: number, roundTripMs: number, canLend = true, env: NodeJS.ProcessEnv = process.env): SlotShare {
  const share = requestSlotsFor(maxConcurrency, workers);
  const wanted = concurrencyFor(roundTripMs, maxConcurrency, env);
  const own = Math.min(OWN_SLOTS, share);
  const lent = maxConcurrency - workers * own - 1;
  if (!canLend || workers <= 1 || wanted <= share || lent <= share)
    return { requestSlots: share, lent: 0, concurrency: concurrencyFor(roundTripMs, share, env) };
  return { requestSlots: own, lent, concurrency: wanted };
}

/** Checks in flight against a server on this machine. */
const CHECKS_NEARBY = 8;
/** Milliseconds per request answered at the rate of a run against a nearby server (the rate kept across a network). */
const MS_PER_REQUEST = 2;

/** The run context's file in the run's state folder. */
const CONTEXT_FILE = 'run-context.json';

/** The file that says, in place of the run context, why the preparation ended without one (PreparationStop). */
const STOP_FILE = 'preparation-stopped.json';

/**
 * Hands the run context to the workers: a file of the run's state folder, readable by its owner only
 * (mode 0600; it holds every token of the run), whose folder the workers inherit in VDS_RUN_STATE. The
 * environment carries the path, never a token, to the workers and every process they start.
 */
export function publishRunContext(context: RunContext): void {
  writeJsonWhole(path.join(context.stateDir, CONTEXT_FILE), context);
  announceRunState(context.stateDir);
}

/**
 * Names the run's state folder to the processes started from now on (the workers), before its context
 * is in it: they wait for it (awaitRunContext).
 */
export function announceRunState(stateDir: string): void {
  process.env.VDS_RUN_STATE = stateDir;
}

/**
 * Why the preparation ended without a context: it failed (a message, never a secret), or the run was
 * interrupted (Ctrl-C) before it ended: a worker still loading when the signal came never saw it
 * (Playwright's workers ignore it until the suite watches for it), and would wait for a context that
 * no longer comes.
 */
export type PreparationStop = { failed: string } | { interrupted: NodeJS.Signals };

/** Says to the waiting workers, in place of the context, why there will be none. */
export function publishPreparationStop(stateDir: string, stop: PreparationStop): void {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeJsonWhole(path.join(stateDir, STOP_FILE), stop);
}

/** Why the preparation ended without a context, once it has (undefined while it goes on, and once it published one). */
function preparationStop(env: NodeJS.ProcessEnv = process.env): PreparationStop | undefined {
  const dir = runOptions(env).runState;
  try {
    return dir ? (JSON.parse(fs.readFileSync(path.join(dir, STOP_FILE), 'utf8')) as PreparationStop) : undefined;
  } catch {
    return undefined;
  }
}

/** Why the preparation failed, once it has (what the certificate says of a run that did not complete). */
export function preparationFailure(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const stop = preparationStop(env);
  return stop && 'failed' in stop ? stop.failed : undefined;
}

/** Whether the preparation ended: its context, or why there is none, published (read without parsing either). */
export function preparationEnded(env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = runOptions(env).runState;
  return !!dir && (fs.existsSync(path.join(dir, CONTEXT_FILE)) || fs.existsSync(path.join(dir, STOP_FILE)));
}

/** A worker's run when the preparation failed or the run was interrupted before it ended: no check can run. */
export interface RunStopped {
  stopped: string;
}

/** How often a waiting worker looks for the run's context. */
const WAIT_POLL_MS = 15;

/**
 * The run context, once the preparation published it: a worker starts while the preparation goes on
 * (global setup), and its checks wait for it here. The preparation's failure, or the run's interruption
 * (a signal this worker saw, `signalled()`, or one the runner saw), ends the wait with the reason instead.
 */
export async function awaitRunContext(signalled: () => NodeJS.Signals | undefined = () => undefined): Promise<RunContext | RunStopped> {
  for (;;) {
    const context = runContextIfAny();
    if (context) return context;
    const stop = preparationStop();
    if (stop && 'failed' in stop) return { stopped: `the run's preparation failed: ${stop.failed}` };
    const signal = signalled() ?? (stop && 'interrupted' in stop ? stop.interrupted : undefined);
    if (signal) return { stopped: `the run was interrupted (${signal}) before its preparation ended` };
    if (!runOptions().runState) throw new Error('The run context is missing: run the suite through playwright.config.ts (npm run conformance).');
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/**
 * Removes the run's state folder (its context and kept tokens: every token of the run) once the last
 * reader, the certificate's reporter, is done: a run left it in the temporary folder before, tokens and
 * all. Only a folder the suite made there (prepare-run.ts, replay.ts) is ever removed.
 */
export function removeRunState(dir: string | undefined = runOptions().runState): void {
  if (!dir || path.dirname(path.resolve(dir)) !== path.resolve(os.tmpdir()) || !/^vds-(run|replay)-/.test(path.basename(dir))) return;
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The run context global setup published, or undefined outside a run (merge-reports). */
export function runContextIfAny(env: NodeJS.ProcessEnv = process.env): RunContext | undefined {
  const dir = runOptions(env).runState;
  const file = dir ? path.join(dir, CONTEXT_FILE) : undefined;
  try {
    return file && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as RunContext) : undefined;
  } catch {
    return undefined;
  }
}

/** All secrets a target file can hold, before anything is minted. */
export function targetSecrets(target: Target): string[] {
  const t = target.tokens;
  return [
    t.full,
    t.otherUser,
    t.noScopes,
    t.expired,
    t.revoked,
    t.restrictedApp,
    ...Object.values(t.withoutScope ?? {}),
    target.oauth?.clientSecret,
    target.oauth?.password,
    target.oauth?.otherPassword,
    target.oauth?.restrictedClientSecret,
    ...Object.values(target.headers ?? {}),
  ].filter((v): v is string => typeof v === 'string');
}

/** The last redactor made: the next check's while the run's secrets stay the same. */
let lastRedactor: { secrets: readonly string[]; kept: string; redactor: Redactor } | undefined;

/**
 * The run's secrets: those it started with, and the tokens renewed since (token-keeper.ts). One
 * redactor for the checks that follow one another while these stay the same (its pattern is built
 * once, not per check); what a check mints and adds to it (codes, tokens) is redacted from the next
 * checks' records too.
 */
export function redactorFor(context: Pick<RunContext, 'secrets'> & Partial<Pick<RunContext, 'stateDir'>>): Redactor {
  const kept = keptSecretsStamp(context.stateDir);
  if (lastRedactor?.secrets === context.secrets && lastRedactor.kept === kept) return lastRedactor.redactor;
  const redactor = new Redactor([...context.secrets, ...keptSecrets(context.stateDir)]);
  lastRedactor = { secrets: context.secrets, kept, redactor };
  return redactor;
}
