// Runs one planned check (a requirement on one route and scope, or once) and turns its outcome into
// the plain record the reports are built from:
//   the procedure returns        -> passed
//   it throws NotRun              -> not-run, with the reason (never counted as passed)
//   it throws NotApplicable       -> not-applicable: the target's environment rules it out (never counted)
//   it throws ConformanceFailure  -> failed, expected vs actual and the request that showed it
//   a request gets no answer      -> failed, "an HTTP answer within requestTimeoutMs"
//   it outlives its time limit    -> failed, "the check finishes within N ms"
//   the run is interrupted under it, or Playwright stops its worker -> not-run (unless it passed): the browser or server may be gone
// Anything else thrown is a defect of the suite itself or of its inputs (a bug, a control API that
// did not mint): never a conformance failure, so not-run with the reason, flagged `suiteBroke` and
// counted apart in the certificate. A server's odd answer must therefore always meet an assertion
// (ConformanceFailure) before it can break a procedure: that is the procedures' job, not this file's.
import { ApiClient, NoAnswerError, RateLimitedError, type Exchange } from '../transport/api';
import { networkTransport } from '../transport/network';
import { stage } from '../transport/timeline';
import { joinRun } from '../transport/breaker';
import { rememberIdleCloses } from '../transport/connection-reuse';
import { notApplicableReason, type Catalogue, type PlannedCheck } from '../catalogue/catalogue';
import { CheckContext, type BrowserSession } from '../check-api/check-context';
import { systemClock, type Clock } from '../transport/clock';
import { NotReplayable, recordedChecks, replayDir, ReplaySession } from '../setup/replay';
import type { SecretRefs } from '../transport/curl';
import { interruption, watchForInterruption, workerStopping } from '../setup/interruption';
import { redactorFor, type RunContext } from '../setup/run-context';
import type { Redactor } from '../util/redact';
import { keysPattern } from '../catalogue/selection';
import type { Target } from '../setup/target';
import { releaseDevice } from '../setup/device-release';
import { ConformanceFailure, formatFailure, NotApplicable, NotRun, SUITE_BROKE, type FailureDetails } from '../check-api/outcome';
import { failureOf, type CheckRecord } from '../verdict/check-record';
import { CHECKS, EARLY } from '../checks';
import { commandLine, runOptions } from '../options/options';
import type { ErrorsSeen } from './errors-seen';
import { writes } from './schedule';

export interface CheckInputs {
  target: Target;
  run: RunContext;
  catalogue: Catalogue;
  /** The worker's browser, launched when a check first asks for it. */
  browserSession: BrowserSession;
  /** The run's secrets by the variable a curl line names them with. */
  secretRefs: SecretRefs;
  /** The group's error answers so far (errors-seen.ts): each check adds its own, CORE-ERROR-BODY judges them. */
  errorsSeen?: ErrorsSeen;
  /** The checks whose early part started (startEarly), by key: each runs in the context it started in. */
  prepared?: Map<string, Prepared>;
}

/** A check that neither finishes nor fails by then (its requests held by the run itself not counted) is failed: a run never hangs on one check. */
function checkTimeLimitMs(target: Target): number {
  return Math.max(30_000, target.requestTimeoutMs * 8);
}

/** After a group's writing checks (schedule.ts `afterWrites`), the device the device checks leave associated is freed (setup/device-release.ts); not in a replay: nothing is reached. */
export function releaseAfterWrites(inputs: CheckInputs): (writing: PlannedCheck[]) => Promise<void> {
  return async (writing) => {
    if (replayDir()) return;
    const { target, run, catalogue } = inputs;
    await releaseDevice(target, run, catalogue, writing, new ApiClient(target.baseUrl, target.requestTimeoutMs, redactorFor(run)));
  };
}

/** A check's context, made before it runs: its requests, clock and replay. */
interface Prepared {
  ctx: CheckContext;
  api: ApiClient;
  redactor: Redactor;
  replay?: ReplaySession;
  clock: Clock;
}

/**
 * Starts, for each check of `checks` that has one (checks/index.ts EARLY), the part that depends on
 * no other check: a write lane's check then finds it done when its turn comes (the restricted
 * application's sign-in, seconds in a browser, beside the lane's first checks). Not in a replay: a
 * replayed check runs as recorded, its part with it.
 */
export function startEarly(checks: PlannedCheck[], inputs: CheckInputs): void {
  if (replayDir()) return;
  for (const p of checks) {
    const part = EARLY[p.requirement.check];
    if (!part || !p.requirement.env.includes(inputs.target.env)) continue;
    const prepared = prepare(p, inputs);
    prepared.ctx.startEarly(part);
    (inputs.prepared ??= new Map()).set(p.key, prepared);
  }
}

/**
 * The requests of a check's early part when the check itself will not run (the run stopped after its
 * group started): the part is awaited (but once the run is interrupted), so that every request it sent
 * is in the stopped check's record, redacted as a check's are. None when no part was started.
 */
export async function earlyExchanges(p: PlannedCheck, inputs: CheckInputs): Promise<Exchange[]> {
  const prepared = inputs.prepared?.get(p.key);
  const part = EARLY[p.requirement.check];
  if (!prepared || !part) return [];
  inputs.prepared?.delete(p.key);
  if (!interruption()) await prepared.ctx.early(part).catch(() => undefined);
  return prepared.api.exchanges.map((e) => prepared.redactor.redactValue(e));
}

function prepare(p: PlannedCheck, inputs: CheckInputs): Prepared {
  const { target, run, catalogue } = inputs;
  // The routes the run's preparation got no answer from get no more requests (src/transport/breaker.ts).
  joinRun(run.stateDir, target.baseUrl, catalogue.routes, { silent: run.silentRoutes });
  // The server's idle time as the preparation learnt it: connections kept under it from the first request.
  rememberIdleCloses(run.idleCloses);
  const redactor = redactorFor(run);
  // The network, or during a replay (src/setup/replay.ts) this check's recorded answers and clock: the
  // check cannot tell. A certification records every answer whole and every reading of the clock.
  const replaying = replayDir();
  const replay = replaying ? new ReplaySession(recordedChecks(replaying).get(p.key)) : undefined;
  const recording = !replay && runOptions().certify;
  const clock = replay?.clock ?? systemClock(recording);
  const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, redactor, {
    secretRefs: inputs.secretRefs,
    transport: replay ?? networkTransport,
    recordBodies: recording,
    check: p.key,
    // A write lane's checks wait for one another: each of their waits for a request slot is the lane's.
    inLane: writes(p),
  });
  const seen = inputs.errorsSeen;
  const ctx = new CheckContext(
    target,
    run,
    catalogue,
    api,
    redactor,
    p.requirement,
    p.route,
    p.scope,
    replay?.browserSession ?? inputs.browserSession,
    clock,
    (route) => seen?.on(route) ?? [],
    (id) => seen?.ran(id) ?? true,
  );
  return { ctx, api, redactor, replay, clock };
}

export async function runCheck(p: PlannedCheck, inputs: CheckInputs): Promise<CheckRecord> {
  const { target } = inputs;
  const r = p.requirement;
  const procedure = CHECKS[r.check];
  if (!procedure) throw new Error(`requirements.yaml: ${r.id} uses check "${r.check}", which src/checks/index.ts does not define`);
  const base = { key: p.key, requirement: r.id, group: p.group };
  if (!r.env.includes(target.env)) {
    return {
      ...base,
      status: 'not-applicable',
      reason: notApplicableReason(r, target.env),
      warnings: [],
      exchanges: [],
    };
  }
  watchForInterruption();
  const early = inputs.prepared?.get(p.key);
  inputs.prepared?.delete(p.key);
  const { ctx, api, redactor, replay, clock } = early ?? prepare(p, inputs);
  const seen = inputs.errorsSeen;
  const limit = checkTimeLimitMs(target);
  const started = performance.now();
  stage(`check ${p.key} start`);
  let outcome: unknown;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      procedure(ctx),
      new Promise((_, reject) => {
        // The time its requests were all held by the run itself (waiting for a slot, or to be sent
        // alone: src/transport/request-slots.ts) is not the server's: the limit is counted without it.
        const arm = () => {
          const spent = performance.now() - started - api.heldMs();
          timer = setTimeout(() => (performance.now() - started - api.heldMs() >= limit ? reject(new CheckTimeout(limit)) : arm()), limit - spent);
        };
        arm();
      }),
    ]);
  } catch (err) {
    outcome = err;
  } finally {
    clearTimeout(timer);
    seen?.add(p, api.clientErrors);
    stage(`check ${p.key} end`);
  }
  // An advisory requirement states an inference neither document makes (profile, rule 3): what
  // would be its failure is reported as a warning, never as a failure.
  if (r.advisory && outcome instanceof ConformanceFailure) {
    ctx.warn(`advisory, not a failure: ${formatFailure(outcome.details).split('\n').slice(0, 2).join('; ')}`);
    outcome = undefined;
  }
  const exchanges: Exchange[] = api.exchanges.map((e) => redactor.redactValue(e));
  const warnings = ctx.warnings.map((w) => redactor.redact(w));
  const done = {
    ...base,
    warnings,
    exchanges,
    durationMs: Math.round(performance.now() - started),
    ...(clock.readings ? { clock: clock.readings } : {}),
    asked: [...ctx.asked].sort(),
  };
  // A replay that met a request the archive does not answer, or a browser: its verdict says nothing.
  if (replay?.misses.length) {
    return { ...done, status: 'not-run', reason: `no recorded answer: ${replay.misses[0]}`, replay: { kind: 'no-recorded-answer', requests: replay.misses } };
  }
  if (replay?.needsBrowser || outcome instanceof NotReplayable) {
    const why = outcome instanceof NotReplayable ? outcome.why : 'needs a browser, which a replay does not drive';
    return { ...done, status: 'not-run', reason: `verified from the record only: ${why}`, replay: { kind: 'record-only', why } };
  }
  if (outcome === undefined) return { ...done, status: 'passed' };
  const signal = interruption();
  if (signal)
    return { ...done, status: 'not-run', reason: `the run was interrupted (${signal}) while this check ran: its outcome says nothing about the server` };
  const stopped = workerStopping();
  if (stopped) return { ...done, status: 'not-run', reason: `${stopped} while this check ran: its outcome says nothing about the server` };
  if (outcome instanceof NotRun)
    return { ...done, status: 'not-run', reason: redactor.redact(outcome.reason), ...(outcome.missing ? { missing: outcome.missing } : {}) };
  if (outcome instanceof NotApplicable) return { ...done, status: 'not-applicable', reason: redactor.redact(outcome.reason) };
  // Rate limiting is the operator's setting, not the server's conformance (docs/targets.md, "rateLimit").
  if (outcome instanceof RateLimitedError) {
    return {
      ...done,
      status: 'not-run',
      reason: `the target kept answering 429 Too Many Requests (${redactor.redact(outcome.message)}): lower rateLimit.requestsPerSecond in the target file`,
    };
  }
  if (!(outcome instanceof ConformanceFailure || outcome instanceof NoAnswerError || outcome instanceof CheckTimeout)) {
    return { ...done, status: 'not-run', suiteBroke: true, reason: suiteBrokeReason(outcome, redactor.redact.bind(redactor)) };
  }
  const details: FailureDetails =
    outcome instanceof ConformanceFailure
      ? outcome.details
      : outcome instanceof NoAnswerError
        ? { expected: `an HTTP answer within ${target.requestTimeoutMs} ms`, actual: outcome.message, exchange: outcome.exchange }
        : { expected: `the check finishes within ${limit} ms`, actual: `it was still running after ${limit} ms (the last request: ${lastRequest(exchanges)})` };
  return { ...done, status: 'failed', failure: { ...failureOf(p.key, redactor.redactValue(details)), rerun: rerunCommand(p.key) } };
}

/** The command that runs just this check again against the same target. */
function rerunCommand(key: string): string {
  const options = runOptions();
  const target = options.targetGiven ? options.target : undefined;
  const pattern = keysPattern([key]);
  return commandLine(`${target ? `--target '${target.replace(/'/g, `'\\''`)}' ` : ''}--grep '${pattern.replace(/'/g, `'\\''`)}'`);
}

/** Why a check did not run when its procedure threw something unforeseen: the first line of it, redacted. */
function suiteBrokeReason(thrown: unknown, redact: (text: string) => string): string {
  const message = String((thrown as Error)?.message ?? thrown).split('\n')[0];
  return `${SUITE_BROKE}: ${redact(message)}`;
}

class CheckTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the check did not finish within ${ms} ms`);
  }
}

function lastRequest(exchanges: Exchange[]): string {
  const e = exchanges[exchanges.length - 1];
  return e ? `${e.method} ${e.url}` : 'none';
}
