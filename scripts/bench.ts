// `npm run bench`: how long the suite takes, measured as its users run it, on this machine.
//
//   npm run bench [-- --runs N] [--warmup N] [--only default,failing,...]
//
// Each scenario is the whole command (`npm run conformance`, server start, tokens, browser checks and
// reports included), timed over several runs after a warm-up; the table gives median, min and max
// wall seconds, and for the others the ratio of medians to the default run:
//   default    the embedded reference, as `npm run conformance` runs it (goal: <= 5 s)
//   failing    the reference with fault error-body-object-not-array: most checks fail (goal: <= 2x)
//   remote     the reference answering every request 40 ms late, like a distant server (goal: <= 3x)
//   one-check  a single check: the fixed cost of a run (runner, server, tokens, reports)
//   idle-drops the reference closing kept-alive connections idle for 100 ms, unannounced (variant
//              idle-connection-close): requests sent again on fresh connections (goal: <= 1x default)
//   signin     every token minted through the sign-in page in Chromium (target local-signin)
//   unlabelled-form  the same with a sign-in form without labels (variant signin-form-unlabelled):
//              the form read from its layout (goal: <= 1x signin)
//   https-by-name  the reference over its own TLS with a private authority (caFile), reached by this
//              machine's name, as a vendor's deployment is (the default run's cost there)
// A scenario's ratio is to its baseline: the default run, or the one it names.
// Then the suite's own overhead apart from the server's speed: the requests of one run, recorded
// (VDS_RECORD_REQUESTS) and replayed with a plain keep-alive client, no assertions, as many at once
// as the suite runs checks. Writes reports/bench.json. npm test (goal: <= 10 min) is too long to
// repeat here: the table shows its last duration, from reports/self/summary.json.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordedRequest } from '../src/transport/api';
import type { Certificate } from '../src/verdict/model';
import { REPORT_FILES } from '../src/options/paths';
import { machineName, makeAuthority } from './deployment';
import { startReference, freshRunEnv } from './reference-process';

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
  { name: 'remote', what: 'every answer 40 ms late', env: { VDS_REFERENCE_LATENCY_MS: '40' }, args: [], goal: '<= 3x default' },
  { name: 'one-check', what: 'one check: the fixed cost of a run', env: {}, args: ['--grep', '^AUTH-MISSING GET /users/me @'] },
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

interface Sample {
  wallS: number;
  peakMemoryMb?: number;
  checks: number;
  failed: number;
  requests: number;
  exit: number | null;
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
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/** Runs `npm run conformance -- ARGS` once, in its own reports folder; /usr/bin/time gives the peak memory. */
function runOnce(s: Scenario, extraEnv: Record<string, string> = {}): Promise<Sample> {
  const reports = fs.mkdtempSync(path.join(os.tmpdir(), `vds-bench-${s.name}-`));
  // Not inside the reports folder: the run empties it first.
  const timeFile = `${reports}.time`;
  const npm = ['npm', 'run', '--silent', 'conformance', '--', ...s.args];
  const useTime = fs.existsSync(TIME);
  const [cmd, ...args] = useTime ? [TIME, '-f', '%M', '-o', timeFile, ...npm] : npm;
  const env = { ...freshRunEnv(process.env), CI: '', VDS_REPORTS_DIR: reports, ...s.env, ...extraEnv };
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: 'ignore' });
    child.on('close', (code) => {
      const wallS = (performance.now() - started) / 1000;
      const sample: Sample = { wallS, checks: 0, failed: 0, requests: 0, exit: code };
      if (useTime && fs.existsSync(timeFile)) {
        const kb = Number(fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop());
        if (Number.isFinite(kb)) sample.peakMemoryMb = round(kb / 1024, 0);
      }
      const certificate = path.join(reports, REPORT_FILES.certificateJson);
      if (fs.existsSync(certificate)) {
        const c = JSON.parse(fs.readFileSync(certificate, 'utf8')) as Certificate;
        sample.checks = c.counts.checks.passed + c.counts.checks.failed;
        sample.failed = c.counts.checks.failed;
        sample.requests = Object.values(c.latency).reduce((n, l) => n + l.count, 0);
      }
      fs.rmSync(reports, { recursive: true, force: true });
      fs.rmSync(timeFile, { force: true });
      resolve(sample);
    });
  });
}

async function measure(s: Scenario, runs: number, warmup: number): Promise<Row> {
  const server = await s.server?.();
  const env = server?.env ?? {};
  const samples: Sample[] = [];
  try {
    for (let i = 0; i < warmup; i++) await runOnce(s, env);
    for (let i = 0; i < runs; i++) {
      samples.push(await runOnce(s, env));
      process.stdout.write('.');
    }
  } finally {
    await server?.stop();
  }
  const walls = samples.map((x) => x.wallS);
  const last = samples[samples.length - 1];
  const mems = samples.flatMap((x) => (x.peakMemoryMb === undefined ? [] : [x.peakMemoryMb]));
  return {
    scenario: s.name,
    what: s.what,
    goal: s.goal,
    runs,
    wallS: { median: round(median(walls)), min: round(Math.min(...walls)), max: round(Math.max(...walls)) },
    checks: last.checks,
    failedChecks: last.failed,
    requests: last.requests,
    checksPerS: round(last.checks / median(walls), 0),
    ...(mems.length ? { peakMemoryMb: Math.max(...mems) } : {}),
    exitCodes: samples.map((x) => x.exit),
  };
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
  const rows: Row[] = [];
  for (const s of chosen) {
    process.stdout.write(`  ${s.name} `);
    rows.push(await measure(s, runs, warmup));
    process.stdout.write('\n');
  }
  for (const r of rows) {
    const baseline = chosen.find((s) => s.name === r.scenario)?.baseline ?? 'default';
    const base = rows.find((b) => b.scenario === baseline);
    if (base && r !== base) Object.assign(r, { ratioToDefault: round(r.wallS.median / base.wallS.median), baseline });
  }
  const fixed = rows.find((r) => r.scenario === 'one-check');
  const concurrency = 16;
  const raw = only && !only.includes('replay') ? undefined : await replay(concurrency);
  const self = lastSelfTest();

  const lines = [
    '| scenario | wall s (median) | min | max | x baseline | checks (failed) | requests | checks/s | peak MB | goal |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario}: ${r.what} | ${r.wallS.median} | ${r.wallS.min} | ${r.wallS.max} | ${r.ratioToDefault === undefined ? '-' : `${r.ratioToDefault} (${r.baseline})`} | ` +
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
    ...(fixed ? [`fixed start-up cost of a run (one check): ${fixed.wallS.median} s`] : []),
    self.seconds ? `npm test (goal <= 600 s): ${round(self.seconds, 0)} s, last run ${self.date}` : 'npm test: no timing yet (run npm test)',
  ];
  console.log(`\n${lines.join('\n')}\n\n${notes.map((n) => `- ${n}`).join('\n')}`);
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(
    OUT,
    `${JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, runs, warmup, rows, replay: raw, selfTest: self }, null, 2)}\n`,
  );
  console.log(`\nwrote ${path.relative(ROOT, OUT)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
