// Suite power: runs the conformance suite against the clean reference (every check must pass) and
// once per injected fault (at least one check must fail: the fault is "killed"). A fault no check
// catches ("survived") fails the run. Runs go two at a time, one Playwright worker each (2 cores).
//
//   npx tsx scripts/mutation.ts [--full] [--only a,b] [--jobs N] [--max-failures N] [--write-kills]
//
// By default each fault first runs only the checks of the requirements that caught it last time
// (contracts/fault-kills.yaml), stopping at the first failing check; when they do not catch it (a new
// fault, a changed check), the whole suite runs. --full runs the whole suite for every fault, up to
// --max-failures failing checks (default 40: Playwright starts a fresh worker after every failure, so
// a fault that fails hundreds of checks would cost minutes), and with --write-kills records which
// requirements caught which fault in contracts/fault-kills.yaml (rendered in docs/REQUIREMENTS.md).
// Writes reports/mutation/{results.json, summary.json, table.md}.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { FAULTS } from '../reference-server/faults';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'reports', 'mutation');
const KILLS_FILE = path.join(ROOT, 'contracts', 'fault-kills.yaml');
const RUN_TIMEOUT_MS = 6 * 60_000;

interface Run {
  label: string;
  target: 'local' | 'local-sandbox';
  fault?: string;
  /** Only the checks of these requirements (a targeted run); all checks when absent. */
  requirements?: string[];
  /** Stop after this many failing checks. */
  maxFailures: number;
}

interface Outcome extends Run {
  ok: boolean;
  failedRequirements: string[];
  failedChecks: string[];
  notRun: string[];
  total: number;
  seconds: number;
  problem?: string;
}

interface JsonTest { status: string; annotations: Array<{ type: string; description?: string }>; results: Array<{ status: string }> }
interface JsonSpec { title: string; tests: JsonTest[] }
interface JsonSuite { specs?: JsonSpec[]; suites?: JsonSuite[] }

function* specsOf(suite: JsonSuite): Generator<JsonSpec> {
  for (const s of suite.specs ?? []) yield s;
  for (const child of suite.suites ?? []) yield* specsOf(child);
}

/** Sandbox faults only show on a sandbox target; every other fault on the cloud-mode reference. */
function targetFor(fault: { family: string }): Run['target'] {
  return fault.family === 'sandbox' ? 'local-sandbox' : 'local';
}

/** A --grep that selects the checks of the given requirement ids (titles start with the id). */
function grepFor(ids: string[]): string {
  return `(?<![\\w-])(${ids.map((id) => id.replace(/[-]/g, '\\-')).join('|')})(?![\\w-])`;
}

function runSuite(run: Run): Promise<Outcome> {
  const dir = path.join(OUT, 'runs', run.label);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const jsonFile = path.join(dir, 'results.json');
  const started = Date.now();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    VDS_TARGET: run.target,
    VDS_WORKERS: '1',
    VDS_REPORTS_DIR: dir,
    // Only failures carry their exchanges here: attachments cost ~20 ms a check on these machines.
    VDS_ATTACH: 'failures',
    PLAYWRIGHT_JSON_OUTPUT_FILE: jsonFile,
    CI: '',
  };
  delete env.VDS_REFERENCE_PORT; // each run picks its own free port
  if (run.fault) env.VDS_REFERENCE_FAULT = run.fault;
  else delete env.VDS_REFERENCE_FAULT;
  return new Promise((resolve) => {
    const args = ['playwright', 'test', '--reporter=json', `--output=${path.join(dir, 'test-results')}`];
    if (run.requirements) args.push('--grep', grepFor(run.requirements));
    if (run.fault) args.push(`--max-failures=${run.maxFailures}`);
    // Its own process group: a run that overstays is stopped with its reference server and browser.
    const child = spawn('npx', args, {
      cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
    const timer = setTimeout(() => {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    }, RUN_TIMEOUT_MS);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(readOutcome(run, jsonFile, (Date.now() - started) / 1000, stderr));
    });
  });
}

/**
 * A clean run: nothing failed, and nothing was left unrun but what does not apply to the target's
 * environment (and, on a sandbox, what needs the tokens a sandbox does not have).
 */
function isClean(o: Outcome): boolean {
  return o.ok && o.failedChecks.length === 0 && (o.target === 'local-sandbox' || o.notRun.length === 0);
}

function readOutcome(run: Run, jsonFile: string, seconds: number, stderr: string): Outcome {
  const outcome: Outcome = { ...run, ok: false, failedRequirements: [], failedChecks: [], notRun: [], total: 0, seconds };
  if (!fs.existsSync(jsonFile)) {
    outcome.problem = `no results (the run crashed): ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
    return outcome;
  }
  const report = JSON.parse(fs.readFileSync(jsonFile, 'utf8')) as { suites: JsonSuite[]; errors?: Array<{ message?: string }> };
  const failed = new Set<string>();
  for (const suite of report.suites) {
    for (const spec of specsOf(suite)) {
      for (const t of spec.tests) {
        outcome.total += 1;
        const requirement = t.annotations.find((a) => a.type === 'requirement')?.description ?? spec.title;
        if (t.status === 'unexpected') {
          failed.add(requirement);
          outcome.failedChecks.push(spec.title);
        } else if (t.status === 'skipped') {
          const reason = t.annotations.find((a) => a.type === 'not-run')?.description ?? 'skipped';
          if (!reason.startsWith('applies to ')) outcome.notRun.push(`${spec.title}: ${reason}`);
        }
      }
    }
  }
  outcome.failedRequirements = [...failed].sort();
  // Stopping at --max-failures is asked for, not a problem of the run.
  const errors = (report.errors ?? []).map((e) => e.message?.split('\n')[0] ?? '').filter((m) => !/stopped early after \d+ maximum allowed failures/.test(m));
  if (errors.length) outcome.problem = errors.join(' | ');
  outcome.ok = outcome.total > 0 && !outcome.problem;
  return outcome;
}

async function pool<T, R>(items: T[], jobs: number, work: (item: T) => Promise<R>, done: (r: R) => void): Promise<R[]> {
  const results: R[] = [];
  const queue = [...items];
  await Promise.all(Array.from({ length: jobs }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      const r = await work(item);
      results.push(r);
      done(r);
    }
  }));
  return results;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const only = arg('--only')?.split(',');
  const jobs = Number(arg('--jobs') ?? 2);
  const faults = FAULTS.filter((f) => !only || only.includes(f.name));
  const cleanRuns: Run[] = [
    { label: 'clean-local', target: 'local', maxFailures: 0 },
    { label: 'clean-local-sandbox', target: 'local-sandbox', maxFailures: 0 },
  ];
  const maxFailures = Number(arg('--max-failures') ?? 40);
  const full = process.argv.includes('--full');
  const known = full ? {} : readKills();
  const faultRuns: Run[] = faults.map((f) => ({
    label: f.name,
    target: targetFor(f),
    fault: f.name,
    requirements: known[f.name]?.length ? known[f.name].slice(0, 3) : undefined,
    maxFailures: full ? maxFailures : 1,
  }));
  const started = Date.now();
  console.log(`Suite power: ${cleanRuns.length} clean runs and ${faultRuns.length} faults, ${jobs} at a time` +
    (full ? ', every check against every fault' : ', each fault first against the requirements that caught it last time'));

  let finished = 0;
  const progress = (o: Outcome) => {
    finished += 1;
    const verdict = !o.fault ? (isClean(o) ? 'clean' : 'NOT CLEAN') : o.failedChecks.length ? 'killed' : o.requirements ? 'missed' : 'SURVIVED';
    const scope = o.requirements ? ` (checks of ${o.requirements.join(', ')})` : '';
    console.log(`  [${finished}] ${o.label.padEnd(40)} ${verdict.padEnd(9)} ${o.seconds.toFixed(1)}s${scope} ${o.problem ?? ''}`);
  };
  // A targeted run that misses its fault runs again with every check: only that says "survived".
  const runFault = async (run: Run): Promise<Outcome> => {
    const first = await runSuite(run);
    if (!run.requirements || first.failedChecks.length > 0) return first;
    progress(first);
    return runSuite({ ...run, requirements: undefined });
  };
  const outcomes = await pool([...cleanRuns, ...faultRuns], jobs, (r) => (r.fault ? runFault(r) : runSuite(r)), progress);
  const clean = outcomes.filter((o) => !o.fault);
  const mutants = faultRuns.map((r) => outcomes.find((o) => o.label === r.label)!);

  const lines: string[] = ['| fault | family | verdict | requirements that caught it |', '|---|---|---|---|'];
  for (const m of mutants) {
    const family = FAULTS.find((f) => f.name === m.fault)!.family;
    const verdict = m.failedChecks.length ? 'killed' : 'SURVIVED';
    lines.push(`| ${m.fault} | ${family} | ${verdict} | ${m.failedRequirements.join(', ') || (m.problem ?? '-')} |`);
  }
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  fs.writeFileSync(path.join(OUT, 'table.md'), `${table}\n`);

  let passed = 0;
  let failed = 0;
  for (const c of clean) {
    if (isClean(c)) passed += 1;
    else {
      failed += 1;
      console.log(`Clean run on ${c.target} is not clean: ${c.problem ?? ''}`);
      for (const f of c.failedChecks.slice(0, 20)) console.log(`  failed: ${f}`);
      for (const n of c.notRun.slice(0, 20)) console.log(`  not run: ${n}`);
    }
  }
  const survivors = mutants.filter((m) => m.failedChecks.length === 0);
  passed += mutants.length - survivors.length;
  failed += survivors.length;
  const seconds = (Date.now() - started) / 1000;
  console.log(`Faults killed: ${mutants.length - survivors.length}/${mutants.length}` +
    `${survivors.length ? `; survived: ${survivors.map((s) => s.fault).join(', ')}` : ''}. ${seconds.toFixed(0)} s in all.`);

  fs.writeFileSync(path.join(OUT, 'results.json'), JSON.stringify({ seconds, clean, mutants }, null, 2));
  fs.writeFileSync(path.join(OUT, 'summary.json'), JSON.stringify({ passed, failed, skipped: 0 }));
  if (process.argv.includes('--write-kills')) {
    if (full && !only) writeKills(mutants);
    else console.log('--write-kills needs --full over every fault: the matrix was not written');
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

function killMatrix(mutants: Outcome[]): Record<string, string[]> {
  return Object.fromEntries(mutants.map((m) => [m.fault!, m.failedRequirements]).sort(([a], [b]) => String(a).localeCompare(String(b))));
}

function writeKills(mutants: Outcome[]): void {
  const header = '# Which requirements caught which reference fault, from the last full mutation run.\n' +
    '# Generated by `npx tsx scripts/mutation.ts --write-kills`; rendered in docs/REQUIREMENTS.md.\n';
  fs.writeFileSync(KILLS_FILE, header + YAML.stringify({ faults: killMatrix(mutants) }));
  console.log(`wrote ${path.relative(ROOT, KILLS_FILE)}`);
}

/** fault -> requirements that caught it in the last full run (empty when there was none). */
function readKills(): Record<string, string[]> {
  if (!fs.existsSync(KILLS_FILE)) return {};
  return (YAML.parse(fs.readFileSync(KILLS_FILE, 'utf8'))?.faults ?? {}) as Record<string, string[]>;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
