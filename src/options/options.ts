// Every option of a run, read from the environment in one place. The command line (src/cli/args.ts)
// turns its flags into these variables for Playwright's runner and its workers; a user or a CI job may
// set them directly. OPTION_VARIABLES is the list the table of docs/options.md shows (a test keeps the
// two equal), and no other module reads a VDS_ variable.
import path from 'node:path';

/** The classes whose failures fail the run (--gate): both, or the spec's only. */
export type GateClasses = 'all' | 'core';

export class OptionError extends Error {}

/** One variable: its name, the flag that sets it (if any), what it does, and whether only the suite sets it. */
export interface OptionVariable {
  name: string;
  flag?: string;
  meaning: string;
  /** Set by the suite for its own processes (a user has no reason to). */
  internal?: boolean;
}

export const OPTION_VARIABLES: readonly OptionVariable[] = [
  { name: 'VDS_TARGET', flag: '--target', meaning: 'the target: a name of fixtures/targets/ or the path of a target file (default local)' },
  { name: 'VDS_MONITOR', flag: '--monitor', meaning: '1: nightly monitoring, read-only whatever the target file allows' },
  { name: 'VDS_CERTIFY', flag: '--certify', meaning: '1: a certification run (every class must PASS; an archive that verify replays)' },
  { name: 'VDS_GREP', flag: '--grep', meaning: "the checks to run: a regular expression on a check's key and tags" },
  { name: 'VDS_GREP_INVERT', flag: '--grep-invert', meaning: 'the checks to leave out, likewise' },
  {
    name: 'VDS_MAX_FAILURES',
    flag: '--max-failures, -x',
    meaning: 'no new check starts once a worker has seen this many fail (but CORE-ERROR-BODY, which judges the errors already received)',
  },
  { name: 'VDS_GATE', flag: '--gate', meaning: 'all (default: core and profile) or core: the classes whose failures fail the run' },
  { name: 'VDS_REQUIRE_COMPLETE', flag: '--require-complete', meaning: '1: a check not run fails the gate' },
  { name: 'VDS_BASELINE', flag: '--baseline', meaning: 'a baseline file: only failures it does not list fail the gate' },
  { name: 'VDS_UPDATE_BASELINE', flag: '--update-baseline', meaning: "write the run's failures to this baseline file" },
  { name: 'VDS_COMPARE', flag: '--compare', meaning: 'an earlier conformance.json to compare with (what changed, what got slower)' },
  { name: 'VDS_HISTORY', flag: '--history', meaning: 'a folder of earlier runs: this one is added, and the trend pages drawn' },
  { name: 'VDS_LATENCY_RATIO', flag: '--latency-ratio', meaning: 'a route is slower when its answer times grew this many times (default 1.5)...' },
  { name: 'VDS_LATENCY_FLOOR_MS', flag: '--latency-floor-ms', meaning: '...and by at least this many milliseconds (default 100)' },
  { name: 'VDS_REPORTS_DIR', meaning: 'the reports folder (default reports/ of the suite; ./reports for the installed command)' },
  { name: 'VDS_REPORTS', meaning: 'certificate: write only the certificate (no JUnit, HTML report or Allure results)' },
  { name: 'VDS_ATTACH', meaning: 'failures: keep the requests and answers of failing checks only (a certification keeps all)' },
  {
    name: 'VDS_WORKERS',
    meaning: 'Playwright workers (default 1: the checks of a worker already run concurrently; against a distant server two, three from 100 ms of round trip)',
  },
  { name: 'VDS_CONCURRENCY', meaning: "checks in flight per worker (default: 8, plus one per 2 ms of round trip, at most the target's maxConcurrency)" },
  {
    name: 'VDS_BROWSER',
    meaning: "the Chromium to drive for the sign-in page, or none (default: /usr/bin/chromium-headless-shell, else Playwright's, else /usr/bin/chromium)",
  },
  { name: 'VDS_LATENCY_SAMPLING', meaning: "off: skip the sampling of each route's answer time before the checks" },
  { name: 'VDS_FUZZ_SEED', meaning: "the seed of the hostile inputs (the console prints the run's: the same seed, the same inputs)" },
  { name: 'VDS_REFERENCE_PORT', meaning: 'the port of the embedded reference for the local targets (default: a free one)' },
  { name: 'VDS_REPLAY', flag: '--verify', meaning: 'an extracted certification archive: every request answered from it', internal: true },
  {
    name: 'VDS_TARGET_CHECKED',
    meaning: 'the target file the runner checked against its schema: its workers read it without checking it again',
    internal: true,
  },
  {
    name: 'VDS_TARGET_SERVER',
    meaning: "the command's status file of the target's server it started before the runner (src/setup/start-command.ts): the runner waits for that one",
    internal: true,
  },
  {
    name: 'VDS_RUN_STATE',
    meaning: "the run's state folder (its run context, mode 0600: tokens never travel in the environment; removed when the run ends)",
    internal: true,
  },
  { name: 'VDS_BLOB', flag: '--shard', meaning: '1: write a blob report for a later merge', internal: true },
  {
    name: 'VDS_COMMAND',
    meaning: 'how the command was invoked (vds-conformance, or npm run conformance --): the commands the reports suggest are written as it',
    internal: true,
  },
  { name: 'VDS_RECORD_REQUESTS', meaning: 'a file to append every request to, as sent (the benchmark only)', internal: true },
  {
    name: 'VDS_TIMELINE',
    meaning: "a file to append the run's timeline to: each request's start and end, and the stages of the run (the benchmark only)",
    internal: true,
  },
];

export const DEFAULT_LATENCY_RATIO = 1.5;
export const DEFAULT_LATENCY_FLOOR_MS = 100;
const DEFAULT_FUZZ_SEED = 20261122;

/** The options of a run, typed. Files are absolute paths. */
export interface RunOptions {
  target: string;
  /** VDS_TARGET was set (else the default, local). */
  targetGiven: boolean;
  monitor: boolean;
  certify: boolean;
  grep?: string;
  grepInvert?: string;
  /** 0: no limit. */
  maxFailures: number;
  requireComplete: boolean;
  baseline?: string;
  updateBaseline?: string;
  compare?: string;
  history?: string;
  reportsDir?: string;
  /** Only the certificate is written. */
  certificateOnly: boolean;
  /** Only failing checks keep their requests and answers. */
  attachFailuresOnly: boolean;
  workers: number;
  /** VDS_WORKERS was set (else the run chooses: run-context.ts, workersFor). */
  workersGiven: boolean;
  /** undefined: as the round trip calls for. */
  concurrency?: number;
  browser?: string;
  latencySampling: boolean;
  fuzzSeed: number;
  referencePort?: string;
  replay?: string;
  runState?: string;
  /** The target file the runner checked against its schema (VDS_TARGET_CHECKED): a worker need not check it again. */
  targetChecked?: string;
  /** The command's status file of the target's server it started (VDS_TARGET_SERVER). */
  targetServer?: string;
  blob: boolean;
  /** How the command was invoked (VDS_COMMAND): `vds-conformance`, or `npm run conformance --` (the default). */
  command: string;
  recordRequests?: string;
  timeline?: string;
}

const file = (v: string | undefined) => (v ? path.resolve(v) : undefined);
const set = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);

/**
 * The run's options from the environment. Never throws: the options a user can get wrong (the gate,
 * the latency thresholds) are parsed by their own functions below, which say what is wrong.
 */
export function runOptions(env: NodeJS.ProcessEnv = process.env): RunOptions {
  const maxFailures = Number(env.VDS_MAX_FAILURES ?? 0);
  const concurrency = Number(env.VDS_CONCURRENCY);
  const seed = Number(env.VDS_FUZZ_SEED ?? DEFAULT_FUZZ_SEED);
  return {
    target: set(env.VDS_TARGET) ?? 'local',
    targetGiven: set(env.VDS_TARGET) !== undefined,
    monitor: env.VDS_MONITOR === '1',
    certify: env.VDS_CERTIFY === '1',
    grep: set(env.VDS_GREP),
    grepInvert: set(env.VDS_GREP_INVERT),
    maxFailures: Number.isInteger(maxFailures) && maxFailures > 0 ? maxFailures : 0,
    requireComplete: env.VDS_REQUIRE_COMPLETE === '1',
    baseline: file(env.VDS_BASELINE),
    updateBaseline: file(env.VDS_UPDATE_BASELINE),
    compare: file(env.VDS_COMPARE),
    history: file(env.VDS_HISTORY),
    reportsDir: file(env.VDS_REPORTS_DIR),
    certificateOnly: env.VDS_REPORTS === 'certificate',
    attachFailuresOnly: env.VDS_ATTACH === 'failures',
    workers: Number(env.VDS_WORKERS ?? 1),
    workersGiven: set(env.VDS_WORKERS) !== undefined,
    concurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : undefined,
    browser: set(env.VDS_BROWSER),
    latencySampling: env.VDS_LATENCY_SAMPLING !== 'off',
    fuzzSeed: Number.isSafeInteger(seed) ? seed : DEFAULT_FUZZ_SEED,
    referencePort: set(env.VDS_REFERENCE_PORT),
    replay: set(env.VDS_REPLAY),
    runState: set(env.VDS_RUN_STATE),
    targetChecked: set(env.VDS_TARGET_CHECKED),
    targetServer: set(env.VDS_TARGET_SERVER),
    blob: env.VDS_BLOB === '1',
    command: set(env.VDS_COMMAND) ?? 'npm run conformance --',
    recordRequests: set(env.VDS_RECORD_REQUESTS),
    timeline: set(env.VDS_TIMELINE),
  };
}

/**
 * The runner's mark that it checked this target file (VDS_TARGET_CHECKED), inherited by its workers;
 * undefined clears a mark the runner itself inherited (it always checks the file).
 */
export function markTargetChecked(file: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (file === undefined) delete env.VDS_TARGET_CHECKED;
  else env.VDS_TARGET_CHECKED = file;
}

/** --gate all|core (VDS_GATE): which classes decide the exit status. */
export function parseGate(raw: string | undefined): GateClasses {
  if (raw === undefined || raw === '' || raw === 'all') return 'all';
  if (raw === 'core') return 'core';
  throw new OptionError(`--gate must be all (core and profile, the default) or core (the spec only), got "${raw}"`);
}

export function parseRatio(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LATENCY_RATIO;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1) throw new OptionError(`--latency-ratio must be a number of at least 1 (e.g. 1.5), got "${raw}"`);
  return n;
}

export function parseFloor(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LATENCY_FLOOR_MS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new OptionError(`--latency-floor-ms must be a number of milliseconds, 0 or more (e.g. 100), got "${raw}"`);
  return n;
}

/** The gate and the latency thresholds, parsed (OptionError says what is wrong). */
export function judgementOptions(env: NodeJS.ProcessEnv = process.env): { gate: GateClasses; latencyRatio: number; latencyFloorMs: number } {
  return { gate: parseGate(env.VDS_GATE), latencyRatio: parseRatio(env.VDS_LATENCY_RATIO), latencyFloorMs: parseFloor(env.VDS_LATENCY_FLOOR_MS) };
}

/** What is wrong with one option, as lines naming its variable (and flag): none when `check` parses it. */
export function problemsOf(name: string, check: () => unknown): string[] {
  try {
    check();
    return [];
  } catch (err) {
    return [`${name}: ${(err as Error).message.replace(/^--[\w-]+: /, '')}`];
  }
}

/** What is wrong with the options that parse (the gate, the latency thresholds), naming each variable and its flag. */
export function parseProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    ...problemsOf('VDS_LATENCY_RATIO', () => parseRatio(env.VDS_LATENCY_RATIO)),
    ...problemsOf('VDS_LATENCY_FLOOR_MS', () => parseFloor(env.VDS_LATENCY_FLOOR_MS)),
    ...problemsOf('VDS_GATE (--gate)', () => parseGate(env.VDS_GATE)),
  ];
}

/**
 * A command line of the suite as the user invokes it (VDS_COMMAND): `args` after the command, or a
 * subcommand (`report`: npm run report in a clone, vds-conformance report installed).
 */
export function commandLine(args: string, env: NodeJS.ProcessEnv = process.env): string {
  const command = runOptions(env).command;
  if (command.startsWith('npm ')) return args === 'report' ? 'npm run report' : `${command} ${args}`;
  return `npx ${command} ${args}`;
}
