// `npm run bench`: how long the suite takes, measured as its users run it, on this machine.
//
//   npm run bench [-- --runs N] [--warmup N] [--only default,failing,...] [--with 'FLAGS']
//
// Each scenario is the whole command (`npm run conformance`, server start, tokens, browser checks and
// reports included), timed over several runs after a warm-up; the table gives median, min and max
// wall seconds, and for the others the ratio of medians to the default run:
//   default    the embedded reference, as `npm run conformance` runs it (goal: <= 5 s)
//   failing    the reference with fault error-body-object-not-array: most checks fail (goal: <= 2x)
//   remote-20  the reference answering every request 20 ms late: the nearest server whose route groups
//              run side by side (src/setup/run-context.ts DISTANT_MS)
//   remote     the reference answering every request 40 ms late, like a distant server (goal: <= 1.3x)
//   remote-300 every request 300 ms late, a server across the world (goal: <= 2x)
//   one-check  a single check: the fixed cost of a run (runner, server, tokens, reports)
//   idle-drops the reference closing kept-alive connections idle for 100 ms, unannounced (variant
//              idle-connection-close): requests sent again on fresh connections (goal: <= 1x default)
//   signin     every token minted through the sign-in page in Chromium (target local-signin)
//   unlabelled-form  the same with a sign-in form without labels (variant signin-form-unlabelled):
//              the form read from its layout (goal: <= 1x signin)
//   network-300  every round trip 300 ms long in the network (scripts/network-delay.ts: a TCP proxy, so a
//              new connection pays its handshake, as across a network), against remote-300 (the reference
//              answering 300 ms late, where a new connection costs nothing more)
//   https-by-name  the reference over its own TLS with a private authority (caFile), reached by this
//              machine's name, as a vendor's deployment is (the default run's cost there)
// A scenario's ratio is to its baseline: the default run, or the one it names. The scenarios take turns
// (A B C A B C ...: a machine that slows down or speeds up touches all of them alike), so their ratios
// hold where their absolute times do not. --with adds FLAGS to every run of the command: `--with
// '--workers 2'` against the same scenarios without it measures a constant that chooses the workers.
// The critical path: each run writes its timeline (VDS_TIMELINE: every request's start and end, the
// stages of the run; src/transport/timeline.ts). A run against a server L ms late costs the default
// run's time plus L for each round trip it waits for one after the other: (wall at L - wall at 0) / L
// round trips, split the same way into the preparation's and the checks' (their spans in the timeline)
// and the rest; each scenario's line names its route groups' spans (the longest is the checks' critical
// path) and the check whose requests went most often one after another (each request's line in the
// timeline names its check, and when it waited for a request slot). The one-check run's timeline splits
// the fixed cost of a run by stage.
// Then the suite's own overhead apart from the server's speed: the requests of one run, recorded
// (VDS_RECORD_REQUESTS) and replayed with a plain keep-alive client, no assertions, as many at once
// as the suite runs checks. Writes reports/bench.json. npm test (goal: <= 10 min) is too long to
// repeat here: the table shows its last duration, from reports/self/summary.json.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedRequest } from '../src/transport/network';
import { timelineLines, type TimelineLine } from '../src/transport/timeline';
import type { Certificate } from '../src/verdict/model';
import { REPORT_FILES } from '../src/options/paths';
import { machineName, makeAuthority } from './deployment';
import { delayNetwork } from './network-delay';
import { startReference, freshRunEnv, writeTargetFile } from './reference-process';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'reports', 'bench.json');
const TIME = '/usr/bin/time';

interface Scenario {
  name: string;
  what: string;
  env: Record<string, string>;
  args: string[];
  goal?: string;
  /** The scenario its ratio is to (default: the default run). */
  baseline?: string;
  /** Another command than `npm run conformance`, and its folder. */
  command?: () => { argv: string[]; cwd: string };
  /** A server of its own, started before the runs (and stopped after): the variables that point the run at it. */
  server?: () => Promise<{ env: Record<string, string>; stop: () => Promise<void> }>;
}

const SCENARIOS: Scenario[] = [
  { name: 'default', what: 'npm run conformance (embedded reference)', env: {}, args: [], goal: '<= 5 s' },
  {
    name: 'failing',
    what: 'most checks fail (fault error-body-object-not-array)',
    env: { VDS_REFERENCE_FAULT: 'error-body-object-not-array' },
    args: [],
    goal: '<= 2x default',
  },
  { name: 'remote-20', what: 'every answer 20 ms late', env: { VDS_REFERENCE_LATENCY_MS: '20' }, args: [] },
  { name: 'remote', what: 'every answer 40 ms late', env: { VDS_REFERENCE_LATENCY_MS: '40' }, args: [], goal: '<= 1.3x default' },
  { name: 'remote-300', what: 'every answer 300 ms late', env: { VDS_REFERENCE_LATENCY_MS: '300' }, args: [], goal: '<= 2x default' },
  { name: 'one-check', what: 'one check: the fixed cost of a run', env: {}, args: ['--grep', '^AUTH-MISSING GET /users/me @'] },
  {
    name: 'floor',
    what: 'a bare Playwright run of one trivial test (the floor: nothing of the suite)',
    env: {},
    args: [],
    command: () => ({ argv: ['npx', 'playwright', 'test'], cwd: floorFolder() }),
  },
  {
    name: 'idle-drops',
    what: 'idle kept-alive connections closed unannounced (variant idle-connection-close)',
    env: { VDS_REFERENCE_VARIANT: 'idle-connection-close' },
    args: [],
    goal: '<= 1x default',
  },
  { name: 'signin', what: 'every token through the sign-in page (target local-signin)', env: { VDS_TARGET: 'local-signin' }, args: [] },
  {
    name: 'unlabelled-form',
    what: 'the same, the sign-in form without labels (variant signin-form-unlabelled)',
    env: { VDS_TARGET: 'local-signin', VDS_REFERENCE_VARIANT: 'signin-form-unlabelled' },
    args: [],
    goal: '<= 1x signin',
    baseline: 'signin',
  },
  {
    name: 'network-300',
    what: 'every round trip 300 ms long in the network, handshakes included (a TCP proxy in front of the reference)',
    env: {},
    args: [],
    baseline: 'remote-300',
    server: async () => {
      const reference = await startReference();
      const network = await delayNetwork({ host: '127.0.0.1', port: reference.port }, 300);
      // The API through the network; the control API (reset, tokens) as the reference's own test harness reaches it.
      const targetFile = writeTargetFile(network.origin, 'local', { control: reference.control });
      return {
        env: { VDS_TARGET: targetFile },
        stop: async () => {
          await network.stop();
          await reference.stop();
        },
      };
    },
  },
  {
    name: 'https-by-name',
    what: "over HTTPS with a private authority (caFile), by this machine's name",
    env: {},
    args: [],
    server: async () => {
      const host = (await machineName()) ?? 'localhost';
      const authority = makeAuthority('bench');
      const tls = { ...authority.issue([host, 'localhost']), ca: authority.ca };
      const reference = await startReference({ reach: { listen: '::', host, tls } });
      return { env: { VDS_TARGET: reference.targetFile }, stop: reference.stop };
    },
  },
];

/** A folder with a bare Playwright configuration and one trivial test, node_modules linked from the project. */
function floorFolder(): string {
  const dir = path.join(os.tmpdir(), 'vds-bench-floor');
  if (!fs.existsSync(path.join(dir, 'trivial.spec.ts'))) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'playwright.config.ts'), "export default { testDir: '.', reporter: 'dot', workers: 1 };\n");
    fs.writeFileSync(path.join(dir, 'trivial.spec.ts'), "import { expect, test } from '@playwright/test';\ntest('one', () => expect(1).toBe(1));\n");
    if (!fs.existsSync(path.join(dir, 'node_modules'))) fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  }
  return dir;
}

interface Sample {
  wallS: number;
  /** The processor seconds (user + system) of the command and every process it waited for (/usr/bin/time). */
  cpuS?: number;
  peakMemoryMb?: number;
  checks: number;
  failed: number;
  requests: number;
  exit: number | null;
  /** Seconds from the command's start to each stage of its timeline, and the spans of the preparation and the checks. */
  timeline?: RunTimeline;
}

interface RunTimeline {
  /** Seconds spent in each stage of FIXED_COST_STAGES, in order. */
  stages: Record<string, number>;
  /** The preparation's span: its first request's start to its last request's end (s). */
  preparationS: number;
  /** The checks' span: the first route group's start to the last one's end (s). */
  checksS: number;
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** Each route group's span (s), its start to its end: the longest is the checks' critical path. */
  groupsS: Record<string, number>;
  /** The check that sent the most requests one after another (each sent once the one before it was answered). */
  longestChain?: { check: string; requests: number };
}

/**
 * The stages a run goes through, each ending at a stage of the timeline (src/transport/timeline.ts):
 * the label, the stage that ends it (the first of its name; "group * start" the first group's start,
 * "group * end" the last one's end), and the stage it is measured from when not the one before it: the
 * rest of the preparation and a worker's start go side by side (global setup returns once the target
 * answered), so their stages add up to more than the run's wall time.
 */
const FIXED_COST_STAGES: Array<[string, string, string?]> = [
  ['npm, node and the runner loading the configuration', 'runner configured'],
  ["the reference's start (begun by the command, beside the runner)", 'server up'],
  ['preparation: the target answers', 'preflight'],
  ['preparation: reset', 'reset'],
  ['global setup returns: Playwright starts the workers', 'workers started'],
  ["preparation (beside the workers' start): the browser's reach", 'browser reach learnt', 'reset'],
  ['preparation: tokens', 'tokens'],
  ['preparation: discovery', 'discovery'],
  ['preparation: token proofs', 'token proofs'],
  ['preparation: latency sampling', 'latency sampling'],
  ['a worker starts (beside the preparation)', 'worker started', 'workers started'],
  ['the worker waits for the rest of the preparation', 'worker ready', 'worker started'],
  ['until the first route group starts', 'group * start'],
  ['the checks (the route groups, one after another)', 'group * end'],
  ['the runner ends the tests', 'tests done'],
  ['the reports (certificate, HTML, JUnit, Allure)', 'certificate written'],
  ['the command exits', 'exit'],
];

/** Reads a run's timeline file: where its time went. */
function readTimeline(file: string, startedAt: number, endedAt: number): RunTimeline | undefined {
  if (!fs.existsSync(file)) return undefined;
  const lines = timelineLines(file);
  const at = (name: string): number | undefined => {
    const stages = lines.flatMap((l) => (l.kind === 'stage' ? [l] : []));
    if (name === 'exit') return endedAt;
    if (name === 'group * start') return Math.min(...stages.filter((s) => /^group \S+ start$/.test(s.stage)).map((s) => s.at));
    if (name === 'group * end') return Math.max(...stages.filter((s) => /^group \S+ end$/.test(s.stage)).map((s) => s.at));
    return stages.find((s) => s.stage === name)?.at;
  };
  const stages: Record<string, number> = {};
  let previous = startedAt;
  for (const [label, name, from] of FIXED_COST_STAGES) {
    const t = at(name);
    if (t === undefined || !Number.isFinite(t)) continue;
    const start = from === undefined ? previous : (at(from) ?? previous);
    stages[label] = round((t - start) / 1000, 3);
    previous = t;
  }
  const requests = lines.flatMap((l) => (l.kind === 'request' ? [l] : []));
  const prep = requests.filter((r) => r.phase === 'preparation');
  const span = (xs: number[], ys: number[]) => (xs.length ? (Math.max(...ys) - Math.min(...xs)) / 1000 : 0);
  const groupStart = at('group * start');
  const groupEnd = at('group * end');
  const edges = requests.flatMap((r) => [
    [r.start, 1],
    [r.end, -1],
  ]) as Array<[number, number]>;
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inFlight = 0;
  let maxInFlight = 0;
  for (const [, d] of edges) maxInFlight = Math.max(maxInFlight, (inFlight += d));
  const stageLines = lines.flatMap((l) => (l.kind === 'stage' ? [l] : []));
  const groupAt = (group: string, edge: string) => stageLines.find((l) => l.stage === `group ${group} ${edge}`)?.at;
  const groups = [...new Set(stageLines.flatMap((l) => /^group (\S+) start$/.exec(l.stage)?.[1] ?? []))];
  const groupsS = Object.fromEntries(
    groups.flatMap((g) => {
      const [start, end] = [groupAt(g, 'start'), groupAt(g, 'end')];
      return start !== undefined && end !== undefined ? [[g, round((end - start) / 1000, 3)]] : [];
    }),
  );
  return {
    groupsS,
    ...longestChain(requests),
    stages,
    preparationS: round(
      span(
        prep.map((r) => r.start),
        prep.map((r) => r.end),
      ),
      3,
    ),
    checksS: groupStart !== undefined && groupEnd !== undefined && Number.isFinite(groupEnd - groupStart) ? round((groupEnd - groupStart) / 1000, 3) : 0,
    maxInFlight,
  };
}

/** Over a scenario's runs, the longest chain of one check's requests. */
function longestOf(timelines: RunTimeline[]): { longestChain?: { check: string; requests: number } } {
  const chains = timelines.flatMap((t) => (t.longestChain ? [t.longestChain] : []));
  return chains.length ? { longestChain: chains.reduce((a, b) => (b.requests > a.requests ? b : a)) } : {};
}

/** The check whose requests went most often one after another: each sent once the one before was answered. */
function longestChain(requests: Array<Extract<TimelineLine, { kind: 'request' }>>): { longestChain?: { check: string; requests: number } } {
  const byCheck = new Map<string, Array<{ start: number; end: number }>>();
  for (const r of requests) if (r.check) byCheck.set(r.check, [...(byCheck.get(r.check) ?? []), r]);
  let longest: { check: string; requests: number } | undefined;
  for (const [check, sent] of byCheck) {
    let chain = 0;
    let answered = -Infinity;
    for (const r of [...sent].sort((a, b) => a.start - b.start)) {
      if (r.start >= answered) {
        chain += 1;
        answered = r.end;
      } else answered = Math.max(answered, r.end);
    }
    if (!longest || chain > longest.requests) longest = { check, requests: chain };
  }
  return longest ? { longestChain: longest } : {};
}

interface Row {
  scenario: string;
  what: string;
  goal?: string;
  runs: number;
  wallS: { median: number; min: number; max: number };
  /** The ratio of medians to the baseline scenario (the default run unless the scenario names another). */
  ratioToDefault?: number;
  baseline?: string;
  checks: number;
  failedChecks: number;
  requests: number;
  checksPerS: number;
  peakMemoryMb?: number;
  exitCodes: Array<number | null>;
  /** Each counted run's wall seconds, in turn order. */
  walls: number[];
  /** Each counted run's processor seconds, in turn order (empty without /usr/bin/time). */
  cpus: number[];
  /**
   * Over the runs: the medians of the seconds per stage (stagesS), of the preparation's, the checks' and
   * each route group's spans (longest group first); the most requests in flight, the longest chain.
   */
  timeline?: Omit<RunTimeline, 'stages'> & { stagesS: Record<string, number> };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** --with 'FLAGS': flags added to every run of the command (split on spaces). */
const WITH = arg('--with')?.split(' ').filter(Boolean) ?? [];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * Runs `npm run conformance -- ARGS` once, in its own reports folder; /usr/bin/time gives the peak memory
 * and the processor seconds of every process the command waited for (on two cores, CPU is wall).
 */
function runOnce(s: Scenario, extraEnv: Record<string, string> = {}): Promise<Sample> {
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), `vds-bench-${s.name}-`));
  // Not inside the reports folder: the run empties it first.
  const timeFile = `${reports}.time`;
  const timelineFile = `${reports}.timeline`;
  const own = s.command?.();
  const npm = own?.argv ?? ['npm', 'run', '--silent', 'conformance', '--', ...s.args, ...WITH];
  const useTime = fs.existsSync(TIME);
  const [cmd, ...args] = useTime ? [TIME, '-f', '%M %U %S', '-o', timeFile, ...npm] : npm;
  const env = { ...freshRunEnv(process.env), CI: '', VDS_REPORTS_DIR: reports, VDS_TIMELINE: timelineFile, ...s.env, ...extraEnv };
  const started = performance.now();
  const startedAt = performance.timeOrigin + started;
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: own?.cwd ?? ROOT, env, stdio: 'ignore' });
    child.on('close', (code) => {
      const ended = performance.now();
      const wallS = (ended - started) / 1000;
      const sample: Sample = { wallS, checks: 0, failed: 0, requests: 0, exit: code };
      const timeline = readTimeline(timelineFile, startedAt, performance.timeOrigin + ended);
      if (timeline) sample.timeline = timeline;
      if (useTime && fs.existsSync(timeFile)) {
        const [kb, user, system] = (fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number);
        if (Number.isFinite(kb)) sample.peakMemoryMb = round(kb / 1024, 0);
        if (Number.isFinite(user + system)) sample.cpuS = round(user + system);
      }
      const certificate = path.join(reports, REPORT_FILES.certificateJson);
      if (fs.existsSync(certificate)) {
        const c = JSON.parse(fs.readFileSync(certificate, 'utf8')) as Certificate;
        sample.checks = c.counts.checks.passed + c.counts.checks.failed;
        sample.failed = c.counts.checks.failed;
        sample.requests = Object.values(c.latency).reduce((n, l) => n + l.count, 0);
        // A run that failed checks where none should fail: its certificate is kept, to be read.
        if (sample.failed > 0 && !s.env.VDS_REFERENCE_FAULT) {
          const kept = path.join(path.dirname(OUT), `bench-${s.name}-failed-${Date.now()}.json`);
          fs.mkdirSync(path.dirname(kept), { recursive: true });
          fs.copyFileSync(certificate, kept);
          process.stdout.write(`(${sample.failed} failed: ${path.relative(ROOT, kept)}) `);
        }
      }
      fs.rmSync(reports, { recursive: true, force: true });
      fs.rmSync(timeFile, { force: true });
      fs.rmSync(timelineFile, { force: true });
      resolve(sample);
    });
  });
}

/** Runs every scenario in turn (A B C A B C ...), after `warmup` turns not counted: each one's samples. */
async function measureInTurn(scenarios: Scenario[], runs: number, warmup: number): Promise<Row[]> {
  const servers = new Map<Scenario, Awaited<ReturnType<NonNullable<Scenario['server']>>>>();
  const samples = new Map<Scenario, Sample[]>(scenarios.map((s) => [s, []]));
  try {
    for (const s of scenarios) {
      const server = await s.server?.();
      if (server) servers.set(s, server);
    }
    for (let turn = 0; turn < warmup + runs; turn++) {
      process.stdout.write(turn < warmup ? '  warm-up ' : `  turn ${turn - warmup + 1}/${runs} `);
      for (const s of scenarios) {
        const sample = await runOnce(s, servers.get(s)?.env ?? {});
        if (turn >= warmup) samples.get(s)!.push(sample);
        process.stdout.write(`${s.name} ${round(sample.wallS, 1)} s  `);
      }
      process.stdout.write('\n');
    }
  } finally {
    for (const server of servers.values()) await server.stop();
  }
  return scenarios.map((s) => row(s, samples.get(s)!));
}

function row(s: Scenario, samples: Sample[]): Row {
  const walls = samples.map((x) => x.wallS);
  const cpus = samples.flatMap((x) => (x.cpuS === undefined ? [] : [x.cpuS]));
  const last = samples[samples.length - 1];
  const mems = samples.flatMap((x) => (x.peakMemoryMb === undefined ? [] : [x.peakMemoryMb]));
  const timelines = samples.flatMap((x) => (x.timeline ? [x.timeline] : []));
  const labels = [...new Set(timelines.flatMap((t) => Object.keys(t.stages)))];
  return {
    scenario: s.name,
    what: s.what,
    goal: s.goal,
    runs: samples.length,
    wallS: { median: round(median(walls)), min: round(Math.min(...walls)), max: round(Math.max(...walls)) },
    checks: last.checks,
    failedChecks: last.failed,
    requests: last.requests,
    checksPerS: round(last.checks / median(walls), 0),
    ...(mems.length ? { peakMemoryMb: Math.max(...mems) } : {}),
    exitCodes: samples.map((x) => x.exit),
    walls,
    cpus,
    ...(timelines.length
      ? {
          timeline: {
            stagesS: Object.fromEntries(labels.map((l) => [l, round(median(timelines.flatMap((t) => (l in t.stages ? [t.stages[l]] : []))), 3)])),
            preparationS: round(median(timelines.map((t) => t.preparationS)), 3),
            checksS: round(median(timelines.map((t) => t.checksS)), 3),
            maxInFlight: Math.max(...timelines.map((t) => t.maxInFlight)),
            groupsS: Object.fromEntries(
              [...new Set(timelines.flatMap((t) => Object.keys(t.groupsS)))]
                .map((g) => [g, round(median(timelines.flatMap((t) => (g in t.groupsS ? [t.groupsS[g]] : []))), 3)] as const)
                .sort((a, b) => b[1] - a[1]),
            ),
            ...longestOf(timelines),
          },
        }
      : {}),
  };
}

/**
 * The round trips a run waits for one after the other, from a scenario whose server answers every
 * request L ms late against the same server at once: (wall at L - wall at 0) / L, and of them the
 * preparation's and the checks' (their spans' growth), the rest being the run's other stages (below
 * zero when the workers' start, which the run at once waits for, went beside the late run's preparation).
 */
function criticalPath(late: Row, atOnce: Row, latencyMs: number): CriticalPath | undefined {
  if (!late.timeline || !atOnce.timeline) return undefined;
  const per = (a: number, b: number) => round(((a - b) * 1000) / latencyMs, 1);
  const total = per(late.wallS.median, atOnce.wallS.median);
  const preparation = per(late.timeline.preparationS, atOnce.timeline.preparationS);
  const checks = per(late.timeline.checksS, atOnce.timeline.checksS);
  return { latencyMs, scenario: late.scenario, roundTrips: total, preparation, checks, other: round(total - preparation - checks, 1) };
}

interface CriticalPath {
  latencyMs: number;
  scenario: string;
  roundTrips: number;
  preparation: number;
  checks: number;
  other: number;
}

/**
 * The requests of one default run, replayed against the same server with a keep-alive client and no
 * assertions, `concurrency` at a time: what the server alone needs for the suite's traffic.
 */
async function replay(concurrency: number): Promise<{ requests: number; suiteS: number; replayS: number }> {
  const reference = await startReference();
  const record = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-bench-record-')), 'requests.jsonl');
  try {
    const scenario: Scenario = { name: 'recorded', what: '', env: { VDS_TARGET: reference.targetFile }, args: [] };
    const suite = await runOnce(scenario, { VDS_RECORD_REQUESTS: record });
    const requests = fs
      .readFileSync(record, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as RecordedRequest);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests.length) {
          const r = requests[next++];
          // Node's fetch keeps connections alive; redirects are not followed, as the suite does not.
          const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body, redirect: 'manual' });
          await res.arrayBuffer();
        }
      }),
    );
    const replayS = (performance.now() - started) / 1000;
    return { requests: requests.length, suiteS: suite.wallS, replayS };
  } finally {
    fs.rmSync(path.dirname(record), { recursive: true, force: true }); // it holds real tokens
    await reference.stop();
  }
}

function lastSelfTest(): { seconds?: number; date?: string } {
  const file = path.join(ROOT, 'reports', 'self', 'summary.json');
  if (!fs.existsSync(file)) return {};
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as { seconds?: number; finishedAt?: string; stages?: unknown };
  return s.stages === 'all' ? { seconds: s.seconds, date: s.finishedAt } : {};
}

async function main(): Promise<void> {
  const runs = Number(arg('--runs') ?? 5);
  const warmup = Number(arg('--warmup') ?? 1);
  const only = arg('--only')?.split(',');
  const chosen = SCENARIOS.filter((s) => !only || only.includes(s.name));
  console.log(`Benchmark: ${chosen.map((s) => s.name).join(', ')}; ${runs} runs each after ${warmup} warm-up; ${os.cpus().length} cores`);
  const rows = await measureInTurn(chosen, runs, warmup);
  for (const r of rows) {
    const baseline = chosen.find((s) => s.name === r.scenario)?.baseline ?? 'default';
    const base = rows.find((b) => b.scenario === baseline);
    // The median of the turns' ratios: each turn ran both on the same machine, in the same minute.
    if (base && r !== base) Object.assign(r, { ratioToDefault: round(median(r.walls.map((w, i) => w / base.walls[i]))), baseline });
  }
  const atOnce = rows.find((r) => r.scenario === 'default');
  const paths = atOnce
    ? (
        [
          ['remote-20', 20],
          ['remote', 40],
          ['remote-300', 300],
          ['network-300', 300],
        ] as const
      ).flatMap(([name, ms]) => {
        const late = rows.find((r) => r.scenario === name);
        const cp = late && criticalPath(late, atOnce, ms);
        return cp ? [cp] : [];
      })
    : [];
  const floor = rows.find((r) => r.scenario === 'floor');
  const fixed = rows.find((r) => r.scenario === 'one-check');
  const concurrency = 16;
  const raw = only && !only.includes('replay') ? undefined : await replay(concurrency);
  const self = lastSelfTest();

  const lines = [
    '| scenario | wall s (median) | min | max | CPU s (median) | x baseline | checks (failed) | requests | checks/s | peak MB | goal |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario}: ${r.what} | ${r.wallS.median} | ${r.wallS.min} | ${r.wallS.max} | ${r.cpus.length ? round(median(r.cpus)) : '-'} | ` +
        `${r.ratioToDefault === undefined ? '-' : `${r.ratioToDefault} (${r.baseline})`} | ` +
        `${r.checks} (${r.failedChecks}) | ${r.requests} | ${r.checksPerS} | ${r.peakMemoryMb ?? '-'} | ${r.goal ?? '-'} |`,
    ),
  ];
  const notes = [
    ...(raw
      ? [
          `raw replay: the ${raw.requests} requests of one run, ${concurrency} at a time with a keep-alive client: ${round(raw.replayS)} s; ` +
            `that run took ${round(raw.suiteS)} s, ${round(raw.suiteS / raw.replayS, 1)}x the replay`,
        ]
      : []),
    ...paths.map(
      (p) =>
        `critical path (${p.scenario}, ${p.latencyMs} ms a round trip): ${p.roundTrips} round trips one after the other ` +
        `(preparation ${p.preparation}, checks ${p.checks}, the rest ${p.other}` +
        // Below zero: the workers' start, paid at once but not late, went beside the preparation's round trips.
        (p.other < 0 ? ': the workers started beside the preparation' : '') +
        ')',
    ),
    // The issue's yardstick: each run against the floor's run of the same turn, the median of those ratios.
    ...(floor
      ? [atOnce, fixed].flatMap((r) =>
          r
            ? [
                `${r.scenario} is ${round(median(r.walls.map((w, i) => w / floor.walls[i])))}x a bare Playwright run of one trivial test` +
                  (r.cpus.length === floor.cpus.length && r.cpus.length ? ` (CPU ${round(median(r.cpus.map((c, i) => c / floor.cpus[i])))}x)` : '') +
                  " (median of the turns' ratios)",
              ]
            : [],
        )
      : []),
    ...(fixed
      ? [
          `fixed start-up cost of a run (one check): ${fixed.wallS.median} s` +
            (floor ? ` (${round(fixed.wallS.median - floor.wallS.median)} s more than a bare Playwright run)` : '') +
            (fixed.timeline
              ? `; by stage (median s): ${Object.entries(fixed.timeline.stagesS)
                  .map(([l, s]) => `${l} ${s}`)
                  .join('; ')}`
              : ''),
        ]
      : []),
    ...rows.flatMap((r) =>
      r.timeline
        ? [
            `${r.scenario}: preparation ${r.timeline.preparationS} s, checks ${r.timeline.checksS} s, at most ${r.timeline.maxInFlight} requests in flight; ` +
              `route groups (s, longest first) ${Object.entries(r.timeline.groupsS)
                .map(([g, t]) => `${g} ${t}`)
                .join(', ')}` +
              (r.timeline.longestChain
                ? `; the longest chain of one check's requests: ${r.timeline.longestChain.requests} (${r.timeline.longestChain.check})`
                : ''),
          ]
        : [],
    ),
    self.seconds ? `npm test (goal <= 600 s): ${round(self.seconds, 0)} s, last run ${self.date}` : 'npm test: no timing yet (run npm test)',
  ];
  console.log(`\n${lines.join('\n')}\n\n${notes.map((n) => `- ${n}`).join('\n')}`);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(
    OUT,
    `${JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, runs, warmup, rows, criticalPaths: paths, replay: raw, selfTest: self }, null, 2)}\n`,
  );
  console.log(`\nwrote ${path.relative(ROOT, OUT)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
