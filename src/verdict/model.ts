// The shape of reports/conformance.json (the certificate) and of the per-check results it is built
// from. Other tools read this file (--compare reads a previous one): change it only by adding fields.
import type { ConformanceClass, Group } from '../catalogue/catalogue';
import type { GateClasses } from '../options/options';

export const CERTIFICATE_FORMAT = 'vds-conformance-certificate/1';

/** run.errors of a run that was stopped rather than broken (nothing else reports them). */
export const RUN_STOPPED = {
  interrupted: 'the run was interrupted before every check ran',
  timedOut: 'the run reached its global timeout before every check ran',
} as const;

/** not-applicable: the target's environment rules the check out (a tokenless sandbox); it never counts. */
export type CheckStatus = 'passed' | 'failed' | 'not-run' | 'not-applicable';
export type ClassVerdict = 'PASS' | 'INCOMPLETE' | 'FAIL';

/** What a failing check showed: the documents' expectation against the server's answer. */
export interface CheckFailure {
  check: string;
  expected: string;
  actual: string;
  /** JSON pointer into the body, when the fault is in one member. */
  pointer?: string;
  /** The request that showed it, e.g. "GET http://host/v3/cars/1 -> 404". */
  request?: string;
  /** An excerpt of the answer's body. */
  body?: string;
  /** The failing request as one shell line, secrets as $VARIABLE references. */
  curl?: string;
  /** The command that runs just this check again. */
  rerun?: string;
}

/** One test of the run (one requirement applied to one route, scope, or once), as collected. */
export interface CheckResult {
  /** The test title: the stable check key used in baselines. */
  key: string;
  requirement: string;
  group: string;
  status: CheckStatus;
  /** Why it did not run (status not-run or not-applicable). */
  reason?: string;
  /** The input it lacked (contracts/inputs.yaml: tokens.expired, data.freeDeviceId, writes, browser), when that stopped it. */
  missing?: string;
  /**
   * Not run because the suite itself broke under the check (a defect of the suite or of its inputs,
   * never anything the server did): counted apart from the other reasons (counts.checks.notRunBySuite).
   */
  suiteBroke?: boolean;
  warnings: string[];
  failure?: CheckFailure;
  /** Latency of every request the check made, per catalogue route. */
  latencies: LatencySample[];
  /** How long the check took. */
  durationMs?: number;
}

export interface LatencySample {
  route: string;
  ms: number;
  /** The request got no HTTP answer (timeout, connection refused). */
  error?: boolean;
}

export interface LatencyStats {
  count: number;
  errors: number;
  p50: number;
  p95: number;
  max: number;
}

/** The server's answer time per route (src/setup/latency-sampling.ts): what --compare and --history use. */
export interface ServerLatency {
  /** How the samples were taken, in words. */
  method: string;
  routes: Record<string, RouteLatency>;
}

export interface RouteLatency {
  /** Answer times in milliseconds, in the order taken (a merged run: every shard's). */
  samples: number[];
  count: number;
  /** Nearest-rank percentiles of the samples (0 without any). */
  p50: number;
  p90: number;
  max: number;
  /** The path asked, ids filled in. */
  path?: string;
  /** Why fewer samples than asked, or none. */
  note?: string;
}

export interface StatusCounts {
  passed: number;
  failed: number;
  notRun: number;
  /** Checks the target's environment rules out (never counted). */
  notApplicable?: number;
}

export interface RequirementResult {
  id: string;
  class: ConformanceClass;
  title: string;
  cite: string;
  routes: string[];
  severity: string;
  /** Advisory requirements only warn: they never count in a verdict. */
  advisory: boolean;
  /**
   * False when the requirement concerns another environment than the target's (a sandbox-only
   * requirement on a cloud target), or every one of its checks is not applicable to the target (a
   * tokenless sandbox): listed with its reason, never counted in a verdict.
   */
  applicable: boolean;
  status: CheckStatus;
  checks: StatusCounts & { total: number };
  /** The requirement's status within each route group it touches. */
  groups: Partial<Record<Group, CheckStatus>>;
  /** Identical reasons are listed once, with the checks they apply to. */
  notRun: Array<{ reason: string; checks: string[]; missing?: string }>;
  /** Checks the target's environment rules out, by reason (absent when none). */
  notApplicable?: Array<{ reason: string; checks: string[] }>;
  warnings: Array<{ message: string; checks: string[] }>;
  failures: CheckFailure[];
}

export interface TargetInfo {
  name: string;
  baseUrl: string;
  env: string;
  allowWrites: boolean;
  source: string;
}

export interface Certificate {
  format: typeof CERTIFICATE_FORMAT;
  suite: { name: string; version: string };
  specVersion: 'v3';
  target: TargetInfo;
  run: {
    date: string;
    durationMs: number;
    monitor: boolean;
    /** Errors outside any check (a failed global setup, a crashed worker): the run is not complete. */
    errors: string[];
    /** Problems found while preparing the run (discovery, tokens). */
    warnings: string[];
    /** Answers 429 Too Many Requests the checks waited out and retried (rateLimit); never failures. */
    throttledRequests?: number;
    /**
     * Requests of the checks sent again on a fresh connection because the kept-alive connection they
     * went on was closed before any byte of answer (src/transport/connection-reuse.ts); never failures.
     */
    reconnectedRequests?: number;
    /**
     * Renewals of the tokens the suite minted, which the server let expire within the run
     * (src/setup/token-keeper.ts: before they ran out, or refused as expired and sent again); never failures.
     */
    tokenRenewals?: number;
  };
  verdict: Record<ConformanceClass, ClassVerdict>;
  counts: {
    /** notRunBySuite: of the checks not run, those the suite itself broke under (CheckResult.suiteBroke). */
    checks: StatusCounts & { total: number; notRunBySuite?: number };
    classes: Record<ConformanceClass, StatusCounts & { requirements: number; advisory: number; notApplicable: number }>;
    groups: Record<Group, { requirements: StatusCounts; checks: StatusCounts }>;
  };
  requirements: RequirementResult[];
  /**
   * Per catalogue route: the duration of every request the checks made, in milliseconds. Many are in
   * flight at once, so these include the suite's own queueing: never compared (see serverLatency).
   */
  latency: Record<string, LatencyStats>;
  /** Per GET route: the server's answer time, sampled one request at a time before the checks. */
  serverLatency?: ServerLatency;
  /** How the run's exit status was decided (see src/verdict/gate.ts). */
  gate?: Gate;
  /** The run's verdict in one line, the first every report says (src/verdict/headline.ts). */
  headline?: Headline;
  /** A certification run (--certify): what was run, against what. */
  certification?: Certification;
  baseline?: BaselineEvaluation;
  comparison?: Comparison;
  /**
   * The failures regrouped by likely cause (src/verdict/triage.ts), most checks first; absent when no
   * check failed or no cause explains several. It never changes a verdict.
   */
  triage?: Triage;
}

/** The kinds of cause the triage knows (src/verdict/triage.ts states each rule). */
const TRIAGE_CAUSES = ['not-implemented', 'no-answer', 'auth-refused', 'error-body', 'content-type', 'scope-map', 'date-shape'] as const;
export type TriageCauseId = (typeof TRIAGE_CAUSES)[number];

export interface Triage {
  /** Failing checks of the run. */
  failed: number;
  /** Of them, those a cause below explains (each by one cause only, so the causes' counts add up to this). */
  explained: number;
  causes: TriageCause[];
}

/** One likely cause of many failures, found in the recorded exchanges. */
export interface TriageCause {
  id: TriageCauseId;
  /** What the answers show, e.g. "10 routes answer a non-API 404 to every valid request (not implemented?)". */
  title: string;
  /** How many failing checks it explains: checks.length. */
  explains: number;
  /** The keys of those checks. */
  checks: string[];
  /** The catalogue routes where the answers show it. */
  routes: string[];
  /** One exchange that shows it. */
  example?: { check: string; request: string; curl?: string; body?: string };
  /** The fix, in one sentence. */
  fix: string;
  /**
   * Where every route the run reached was not implemented: the base URL the run used, and the base
   * URLs tried in its place after the run (src/verdict/triage-base-url.ts), each with its answer.
   */
  basePath?: { baseUrl: string; tried: BaseUrlTry[] };
}

/** A base URL tried in place of the target's: one request, and whether it answered like the API. */
export interface BaseUrlTry {
  baseUrl: string;
  /** The request and its answer: "GET http://host/users/me -> 401". */
  request: string;
  likeTheApi: boolean;
}

/** The run's verdict over the classes its gate judged, and the one reason (src/verdict/headline.ts). */
export interface Headline {
  verdict: ClassVerdict | 'NO VERDICT';
  reason: string;
}

export interface Certification {
  /** The rule of a certification's verdicts. */
  rule: string;
  /** The suite that certified: its version, commit, and a hash of what decides its verdicts. */
  suite: { name: string; version: string; commit: string; workingTreeModified: boolean | 'unknown'; contentSha256: string; hashed: string[] };
  /** The implementation under test, as the target file names it. */
  product?: { name?: string; version?: string; vendor?: string };
}

/** The classes a gate judges: both (the default) or the spec's only (--gate core). */
export type { GateClasses };

export interface Gate {
  status: 'passed' | 'failed';
  /** The exit status of the run (src/verdict/exit-codes.ts): 0 passed, 1 failed, 3 the run did not complete. */
  exitCode: number;
  /** The classes it judged: all (core and profile) or core (--gate core). */
  classes?: GateClasses;
  /** The rule that decided: the verdicts of the gated classes, a certification, a baseline, a comparison. */
  rule: string;
  reasons: string[];
}

export interface BaselineCheck {
  requirement: string;
  class: ConformanceClass | 'unknown';
  check: string;
}

export interface BaselineEvaluation {
  path: string;
  /** Failures the baseline does not list. */
  regressions: BaselineCheck[];
  /** Failures it lists. */
  known: BaselineCheck[];
  /** Listed checks that pass now: remove them from the baseline. */
  fixed: Array<{ requirement: string; checks: string[]; wholeEntry: boolean }>;
  /** Listed checks that did not run now, so cannot be judged. */
  unverified: BaselineCheck[];
  /** Set when the baseline was (re)written by this run. */
  written?: string;
}

export interface StatusChange {
  id: string;
  class: ConformanceClass;
  title: string;
  was: CheckStatus | 'absent';
  now: CheckStatus;
}

/** A route slower than in the previous run (src/monitoring/slowdown.ts): its sampled answer times then and now. */
export interface LatencyChange {
  route: string;
  previous: { fastest: number; p50: number; p90: number; count: number };
  current: { fastest: number; p50: number; p90: number; count: number };
  /** How many times the median grew. */
  ratio: number;
}

/** A latency change that is not a slowdown (part of the rule held), or why a route was not compared. */
export interface LatencyNote {
  /** Empty when the note is about the whole run. */
  route: string;
  note: string;
}

export interface Comparison {
  previous: { path: string; date: string; target: string };
  /** The slowdown rule: the fastest answer and the median each grew more than `ratio` times and by at least `floorMs`... */
  ratio: number;
  floorMs: number;
  /** ...on at least this many samples in each run. */
  minSamples: number;
  newlyFailing: StatusChange[];
  newlyPassing: StatusChange[];
  newlyNotRun: StatusChange[];
  /** Routes significantly slower (the rule above); they make the comparison worse. */
  latencyRegressions: LatencyChange[];
  /** Latency changes that are not slowdowns, and routes not compared: shown, never failing. */
  latencyNotes: LatencyNote[];
  /** Anything got worse: a new failure, a check that stopped running, a slower route. */
  worse: boolean;
}

/** The conformance classes, in the order every report gives them. */
export const CLASSES: ConformanceClass[] = ['core', 'profile'];

/** A check of the run as the reports list it: its result, in catalogue order. */
export interface Check extends CheckResult {
  order: number;
}
