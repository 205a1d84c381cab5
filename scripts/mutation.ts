// Suite power and precision, through the README's command (`npm run conformance`, the CLI: its exit
// status is what users act on): runs the conformance suite against the clean reference and every
// conforming variant of it (every check must pass and the command exit 0: a failure there is a false
// alarm), with every token minted through the sign-in page, twice in a row on one server that keeps
// its state, and once per injected fault: the command must exit 1 (the fault is "killed"), and for a
// fault that breaks a statement of the spec (reference-server/faults.ts `breaks: S-...`) the core
// class must FAIL. A fault that exits 0 ("survived"), or breaks the spec without failing core, fails
// the run. The "gate power" (faults the command fails, spec faults the core class fails) and the
// precision (conforming servers it passes) are printed and written for npm test's summary. Runs go
// two at a time, one Playwright worker each (2 cores).
//
//   npx tsx scripts/mutation.ts [--release | --precision | --full | --top-up [--by-check]] [--every-route] [--only a,b] [--jobs N] [--max-failures N] [--write-kills]
//
// The maintainers' release check (--release, the default): the proof npm test makes in-process
// (tests/self/power/), made again through the command once per fault, as users run it: a CLI, a
// runner, a worker and a reference process per fault (about 9 s each on the slower machine), so not
// part of npm test.
//
// By default each fault first runs only the checks of the requirements that caught it last time
// (tests/self/power/fault-kills.yaml; for a fault that breaks the spec, the core ones first), stopping at the
// first failing check (-x: under the default gate one failing requirement is enough for exit 1; a stop
// spares the checks that judge what the others received: CORE-ERROR-BODY); when they do not catch it (a new fault, a changed
// check), all of the checks run (for a spec fault: all the core checks first, --grep @core, then every
// check) (scripts/power-plan.ts faultGatePlan, npm test's plan too). --full runs the whole suite for every fault, up to
// --max-failures failing checks (0: no limit; default 40: Playwright starts a fresh worker after every failure, so
// a fault that fails hundreds of checks would cost minutes). --top-up proves the other direction,
// that every requirement can fail: each fault runs only the checks of the requirements no fault has
// caught yet (the set shrinks as the run goes), again while a run stopped at --max-failures (default
// 10) found new ones. With --by-check the top-up's unit is the check (a requirement on one route and
// scope) instead of the requirement (cap 100). --write-kills records the result in
// tests/self/power/fault-kills.yaml (rendered in docs/REQUIREMENTS.md): a full run over every fault rewrites
// it, any other run adds to it; a top-up records each fault as it finishes, so it can be resumed.
// Per-route faults (reference-server/faults.ts) run once per route in --full and --top-up runs and
// with --every-route; otherwise (the release gate) on their first route only.
// Writes reports/mutation/{results.json, summary.json, table.md}.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadCatalogue } from '../src/catalogue/catalogue';
import { SUITE_BROKE } from '../src/check-api/outcome';
import { killGroup } from '../src/util/process-group';
import { keysPattern, requirementsPattern } from '../src/catalogue/selection';
import type { Certificate } from '../src/verdict/model';
import { REPORT_FILES } from '../src/options/paths';
import { NOT_SELECTED } from '../src/verdict/verdict';
import { faultFamily, faultSpecs, parseFaultSpec } from '../reference-server/fault-specs';
import { conformingServers, faultGatePlan, faultTargets, faultVariant, isCaught, MAY_NOT_RUN } from './power-plan';
import { FAULTS } from '../reference-server/faults';
import { freshRunEnv, startReference, variantCredentialEnv, type ReferenceTarget } from './reference-process';
import { CONFORMANCE_COMMAND } from './command-line';
import { gatePowerLine, type GatePower } from './mutation-summary';
import { checksNeverCaught, type KillMatrix, neverCaught, readCheckKills, readKills, requirementKills, writeKills } from './kill-matrix';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'reports', 'mutation');
const RUN_TIMEOUT_MS = 6 * 60_000;

interface Run {
  label: string;
  /** A target name of fixtures/targets, or the path of a target file. */
  target: string;
  fault?: string;
  /** A conforming variant of the reference (reference-server/variants.ts). */
  variant?: string;
  /** Requirements that may be reported as not run against this server (what it cannot show). */
  mayNotRun?: string[];
  /** Only the checks of these requirements (a targeted run); all checks when absent. */
  requirements?: string[];
  /** Only these checks, by title (a check-level top-up). */
  checks?: string[];
  /** Stop after this many failing checks. */
  maxFailures: number;
  /** A fault that breaks a statement of the spec: the core class must fail against it. */
  breaksSpec?: boolean;
  /** A --grep of its own (a fallback run of the gate: every core check, or every check); with neither it nor a selection above, every check. */
  grep?: string;
  /** The gate's runs to try in turn when the targeted one misses (scripts/power-plan.ts faultGatePlan). */
  fallbackGreps?: Array<string | undefined>;
  /** The target file's `data`, where the server's ids are not the seeded ones (power-plan.ts ConformingServer). */
  targetData?: Record<string, string | number>;
}

interface Outcome extends Run {
  ok: boolean;
  /** The exit status of the command (null when it was killed). */
  exitCode: number | null;
  /** The certificate's core verdict is FAIL. */
  coreFailed: boolean;
  failedRequirements: string[];
  failedChecks: string[];
  /** Checks not run, but for those of another environment than the target's. */
  notRun: Array<{ requirement: string; check: string; reason: string }>;
  /** Checks the suite broke under (src/check-api/outcome.ts SUITE_BROKE): where a server's odd answer met no assertion. */
  suiteBroke: string[];
  total: number;
  seconds: number;
  problem?: string;
}

/** The conforming servers of the plan, as runs of the command. */
function precisionRuns(eachVariantAlone: boolean): Run[] {
  return conformingServers(eachVariantAlone).map((c) => ({ ...c, maxFailures: 0 }));
}

/** A directory-safe label for a fault spec (`route-answers-500@GET /cars/:carId` -> `route-answers-500@GET_cars_carId`). */
function labelFor(spec: string): string {
  return spec.replace(/[\s/:]+/g, '_');
}

/** Round-robin over the families, keeping the registry's order within each. */
function interleaveByFamily(runs: Run[]): Run[] {
  const families = new Map<string, Run[]>();
  for (const r of runs) {
    const family = faultFamily(r.fault!);
    families.set(family, [...(families.get(family) ?? []), r]);
  }
  const out: Run[] = [];
  for (let i = 0; out.length < runs.length; i++) {
    for (const group of families.values()) if (group[i]) out.push(group[i]);
  }
  return out;
}

function runSuite(run: Run): Promise<Outcome> {
  if (run.target === 'local-ci') return runWithGivenTokens(run);
  const dir = path.join(OUT, 'runs', run.label);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const started = Date.now();
  // The run's settings as a user gives them: flags of the command; the reference's fault or variant
  // and the reports folder as the variables the README documents.
  const env: NodeJS.ProcessEnv = {
    // No suite setting of this process leaks into the run, but which browser to use.
    ...freshRunEnv(process.env),
    ...(process.env.VDS_BROWSER ? { VDS_BROWSER: process.env.VDS_BROWSER } : {}),
    VDS_WORKERS: '1',
    VDS_REPORTS_DIR: dir,
    // Only the certificate, and only failures carry their exchanges: nothing else is read here.
    VDS_ATTACH: 'failures',
    VDS_REPORTS: 'certificate',
    VDS_LATENCY_SAMPLING: 'off',
    CI: '',
  };
  if (run.fault) env.VDS_REFERENCE_FAULT = run.fault;
  if (run.variant) Object.assign(env, { VDS_REFERENCE_VARIANT: run.variant }, variantCredentialEnv(run.variant));
  return new Promise((resolve) => {
    // The README's command, straight from node (scripts/command-line.ts).
    const args = [...CONFORMANCE_COMMAND, '--target', run.target, `--output=${path.join(dir, 'test-results')}`];
    const grep = run.checks ? keysPattern(run.checks) : run.requirements ? requirementsPattern(run.requirements) : run.grep;
    if (grep) args.push('--grep', grep);
    if (run.fault && run.maxFailures > 0) args.push('--max-failures', String(run.maxFailures));
    // Its own process group: a run that overstays is stopped with its reference server and browser.
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr = (stderr + d).slice(-4000);
    });
    const timer = setTimeout(() => {
      killGroup(child);
    }, RUN_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(readOutcome(run, path.join(dir, REPORT_FILES.certificateJson), (Date.now() - started) / 1000, stderr, code));
    });
  });
}

/**
 * A clean run: the command exits 0, nothing failed, and nothing was left unrun but what does not apply
 * to the target's environment and what the server cannot show (mayNotRun).
 */
function isClean(o: Outcome): boolean {
  return o.ok && o.exitCode === 0 && o.failedChecks.length === 0 && unexpectedNotRun(o).length === 0;
}

/** A fault is killed when the command exits 1 on a failing check, and for a fault that breaks the spec, the core class fails. */
function isKilled(o: Outcome): boolean {
  return isCaught({ exitCode: o.exitCode, failedChecks: o.failedChecks.length, coreFailed: o.coreFailed }, !!o.breaksSpec);
}

function unexpectedNotRun(o: Outcome): Outcome['notRun'] {
  return o.notRun.filter((n) => !o.mayNotRun?.includes(n.requirement));
}

/**
 * A server whose data has other ids than the seeded ones (variants.ts targetData): started here, its
 * target file saying them under `data`, as a vendor's does; the command then runs against that file.
 */
async function runWithTargetData(run: Run): Promise<Outcome> {
  const reference = await startReference({ target: run.target as ReferenceTarget, variant: run.variant, data: run.targetData });
  try {
    return await runSuite({ ...run, target: reference.targetFile, variant: undefined });
  } finally {
    await reference.stop();
  }
}

/**
 * A CI gate's target (power-plan.ts `local-ci`): the reference started here, with the fault or the variant,
 * its target file giving long-lived tokens beside the OAuth credentials; the command then runs against it.
 */
async function runWithGivenTokens(run: Run): Promise<Outcome> {
  const reference = await startReference({ fault: run.fault, variant: run.variant, givenTokens: true });
  try {
    // Its fault stays named (the run stops after maxFailures failing checks): the target file starts no server, the one started here has it.
    const out = await runSuite({ ...run, target: reference.targetFile, variant: undefined });
    return { ...out, target: run.target, variant: run.variant };
  } finally {
    await reference.stop();
  }
}

/**
 * A server that keeps its state between runs: the reference started once, the suite run twice
 * against it without a reset before either run (control.reset: false).
 */
async function runPersistentTwice(run: Run): Promise<Outcome> {
  const reference = await startReference({ variant: run.variant, reset: false });
  try {
    const once = { ...run, target: reference.targetFile, variant: undefined };
    const first = await runSuite({ ...once, label: `${run.label}-1`, mayNotRun: undefined });
    const second = await runSuite({ ...once, label: `${run.label}-2`, mayNotRun: MAY_NOT_RUN['persistent-second-run'] });
    return {
      ...second,
      label: run.label,
      ok: first.ok && second.ok,
      exitCode: first.exitCode === 0 ? second.exitCode : first.exitCode,
      failedChecks: [...first.failedChecks.map((c) => `run 1: ${c}`), ...second.failedChecks.map((c) => `run 2: ${c}`)],
      failedRequirements: [...new Set([...first.failedRequirements, ...second.failedRequirements])],
      // The first run may leave nothing unrun (its entries never match the second run's allowance).
      notRun: [...unexpectedNotRun(first).map((n) => ({ ...n, requirement: `run 1: ${n.requirement}` })), ...second.notRun],
      seconds: first.seconds + second.seconds,
      problem: first.problem ?? second.problem,
    };
  } finally {
    await reference.stop();
  }
}

/** An outcome with nothing seen yet: no failure, no check counted. */
function blankOutcome(run: Run, o: Pick<Outcome, 'ok' | 'exitCode' | 'seconds'>): Outcome {
  return { ...run, ...o, coreFailed: false, failedRequirements: [], failedChecks: [], notRun: [], suiteBroke: [], total: 0 };
}

/** What a run showed, read from its certificate (src/verdict/model.ts): the one result format of a run. */
function readOutcome(run: Run, certificateFile: string, seconds: number, stderr: string, exitCode: number | null): Outcome {
  const outcome = blankOutcome(run, { ok: false, exitCode, seconds });
  if (!fs.existsSync(certificateFile)) {
    outcome.problem = `no certificate (the run crashed): ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
    return outcome;
  }
  const certificate = JSON.parse(fs.readFileSync(certificateFile, 'utf8')) as Certificate;
  outcome.coreFailed = certificate.verdict.core === 'FAIL';
  for (const r of certificate.requirements) {
    if (r.failures.length) outcome.failedRequirements.push(r.id);
    outcome.failedChecks.push(...r.failures.map((f) => f.check));
    for (const n of r.notRun) {
      if (n.reason === NOT_SELECTED || !r.applicable) continue;
      outcome.notRun.push(...n.checks.map((check) => ({ requirement: r.id, check, reason: n.reason })));
      if (n.reason.startsWith(SUITE_BROKE)) outcome.suiteBroke.push(...n.checks);
    }
    outcome.total += r.checks.total - (r.notRun.find((n) => n.reason === NOT_SELECTED)?.checks.length ?? 0);
  }
  outcome.failedRequirements.sort();
  const errors = certificate.run.errors.map((e) => e.split('\n')[0]);
  if (errors.length) outcome.problem = errors.join(' | ');
  outcome.ok = outcome.total > 0 && !outcome.problem;
  return outcome;
}

async function pool<T, R>(items: T[], jobs: number, work: (item: T) => Promise<R>, done: (r: R) => void): Promise<R[]> {
  const results: R[] = [];
  const queue = [...items];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        const r = await work(item);
        results.push(r);
        done(r);
      }
    }),
  );
  return results;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

interface Options {
  only?: string[];
  jobs: number;
  full: boolean;
  topUp: boolean;
  /** The top-up's unit is the check (a requirement on one route and scope), not the requirement. */
  byCheck: boolean;
  maxFailures: number;
  /** Per-route faults on every route (full and top-up runs); otherwise on their first route only. */
  everyRoute: boolean;
  /** Only the conforming servers: no fault. */
  precisionOnly: boolean;
  writeKills: boolean;
}

function readOptions(): Options {
  const has = (flag: string) => process.argv.includes(flag);
  const topUp = has('--top-up');
  const byCheck = topUp && has('--by-check');
  const full = has('--full');
  return {
    only: arg('--only')?.split(','),
    jobs: Number(arg('--jobs') ?? 2),
    full,
    topUp,
    byCheck,
    maxFailures: Number(arg('--max-failures') ?? (byCheck ? 100 : topUp ? 10 : 40)),
    everyRoute: full || topUp || has('--every-route'),
    precisionOnly: has('--precision'),
    writeKills: has('--write-kills'),
  };
}

interface Plan {
  cleanRuns: Run[];
  faultRuns: Run[];
  /** Top-up: the requirements (or checks) no fault has caught yet; shrinks as the run goes. */
  uncaught: Set<string>;
  initiallyUncaught: string[];
}

/** Which servers to run the suite against, in which order, and what each run selects. */
function plan(o: Options): Plan {
  const specs = faultSpecs({ firstRouteOnly: !o.everyRoute }).filter(
    (spec) => !o.precisionOnly && (!o.only || o.only.includes(spec) || o.only.includes(parseFaultSpec(spec).name)),
  );
  const catalogue = loadCatalogue();
  // What each fault made fail, check-level runs included: where a targeted run starts.
  const targets: KillMatrix = requirementKills(catalogue) ?? {};
  // Precision runs only in the release gate: a full or top-up run measures power.
  const cleanRuns: Run[] = o.full || o.topUp || o.only ? precisionRuns(false).slice(0, 2) : precisionRuns(o.precisionOnly);
  // A fault of the tokens a server issues runs on each of its targets: a CI gate's too (power-plan.ts faultTargets).
  const runs: Run[] = specs
    .flatMap((spec) => faultTargets(spec).map((target, i) => ({ spec, target, i })))
    .map(({ spec, target, i }) => {
      const gating = !o.full && !o.topUp;
      // The same plan as npm test's proof: the requirements that caught it before, then the fallbacks.
      const gate = faultGatePlan(spec, catalogue, targets);
      return {
        label: labelFor(spec) + (i === 0 ? '' : `+${target}`),
        target,
        fault: spec,
        // A fault that lives in a variant: the reference runs with it (VDS_REFERENCE_VARIANT).
        variant: faultVariant(spec),
        breaksSpec: gating && gate.breaksSpec,
        requirements: gating ? gate.first : undefined,
        ...(gating ? { fallbackGreps: gate.fallbackGreps } : {}),
        maxFailures: o.full || o.topUp ? o.maxFailures : 1,
      };
    });
  // A top-up spreads each family's plain faults over the run (two faults of one family at once would
  // fail the same checks twice before either could record them), then runs the per-route faults in
  // registry order, narrowest first.
  const perRoute = (r: Run) => parseFaultSpec(r.fault!).route !== undefined;
  const faultRuns = o.topUp ? [...interleaveByFamily(runs.filter((r) => !perRoute(r))), ...runs.filter(perRoute)] : runs;
  const uncaught = new Set(o.byCheck ? checksNeverCaught(catalogue, readCheckKills() ?? {}) : neverCaught(catalogue, targets));
  return { cleanRuns, faultRuns, uncaught, initiallyUncaught: [...uncaught] };
}

/** Runs every planned run, `jobs` at a time, printing each outcome as it comes. */
async function execute(p: Plan, o: Options): Promise<Outcome[]> {
  console.log(
    `Suite power: ${p.cleanRuns.length} runs against conforming servers and ${p.faultRuns.length} faults, ${o.jobs} at a time` +
      (o.full
        ? ', every check against every fault'
        : o.topUp
          ? `, each fault against the ${o.byCheck ? 'checks' : 'requirements'} no fault has caught yet`
          : ', each fault first against the requirements that caught it last time'),
  );
  let finished = 0;
  const progress = (out: Outcome) => {
    finished += 1;
    const verdict = !out.fault
      ? isClean(out)
        ? 'passes'
        : 'FALSE ALARM'
      : o.topUp || o.full
        ? out.failedChecks.length
          ? 'killed'
          : o.topUp
            ? 'no new'
            : 'SURVIVED'
        : isKilled(out)
          ? 'killed'
          : out.requirements
            ? 'missed'
            : 'SURVIVED';
    const scope = out.requirements
      ? ` (checks of ${out.requirements.length > 4 ? `${out.requirements.length} requirements` : out.requirements.join(', ')})`
      : out.checks
        ? ` (${out.checks.length} checks)`
        : '';
    const caught =
      !o.topUp || !out.failedChecks.length
        ? ''
        : o.byCheck
          ? ` caught ${out.failedChecks.length} checks of ${out.failedRequirements.join(', ')}`
          : ` caught ${out.failedRequirements.join(', ')}`;
    const exit =
      out.exitCode === null ? ' (killed: overran)' : ` exit ${out.exitCode}${out.breaksSpec ? `, core ${out.coreFailed ? 'FAIL' : 'not FAIL'}` : ''}`;
    // Under a fault, a check the suite broke under is a place where an odd answer met no assertion:
    // it is not run there (never a kill), and its procedure should fail with expected vs actual.
    const broke =
      out.fault && out.suiteBroke.length ? ` (the suite broke under ${out.suiteBroke.length} checks: ${out.suiteBroke.slice(0, 3).join('; ')})` : '';
    console.log(`  [${finished}] ${out.label.padEnd(40)} ${verdict.padEnd(9)} ${out.seconds.toFixed(1)}s${exit}${scope}${caught}${broke} ${out.problem ?? ''}`);
  };

  // A targeted run that misses its fault runs again with every core check, then every check (for a
  // fault that breaks the spec), or every check: only that says "survived".
  const runTargeted = async (run: Run): Promise<Outcome> => {
    const attempts: Run[] = [
      ...(run.requirements ? [run] : []),
      ...(run.fallbackGreps ?? [undefined]).map((grep) => ({ ...run, requirements: undefined, grep })),
    ];
    let out: Outcome | undefined;
    for (const attempt of attempts) {
      if (out) progress(out);
      out = await runSuite(attempt);
      if (isKilled(out)) break;
    }
    return out!;
  };
  // Top-up: the requirements (or checks) still uncaught; again while a capped run found some.
  const runTopUp = async (run: Run): Promise<Outcome> => {
    const merged = blankOutcome(run, { ok: true, exitCode: 0, seconds: 0 });
    for (;;) {
      const remaining = [...p.uncaught];
      if (!remaining.length) break;
      const out = await runSuite(o.byCheck ? { ...run, checks: remaining } : { ...run, requirements: remaining });
      for (const id of o.byCheck ? out.failedChecks : out.failedRequirements) p.uncaught.delete(id);
      Object.assign(merged, {
        ok: merged.ok && out.ok,
        total: merged.total + out.total,
        seconds: merged.seconds + out.seconds,
        problem: out.problem ?? merged.problem,
        // The exit status shown is the worst of the rounds (a round that caught something exits 1).
        exitCode: merged.exitCode !== 0 ? merged.exitCode : out.exitCode,
        coreFailed: merged.coreFailed || out.coreFailed,
      });
      merged.failedRequirements.push(...out.failedRequirements);
      merged.failedChecks.push(...out.failedChecks);
      merged.suiteBroke.push(...out.suiteBroke);
      if (o.byCheck) merged.checks = remaining;
      else merged.requirements = remaining;
      if (out.failedChecks.length < run.maxFailures) break;
    }
    return merged;
  };
  // A top-up records each fault's finds as it finishes: a run stopped halfway loses nothing, and
  // running it again resumes with the checks still uncaught.
  const recordTopUp = (out: Outcome) => {
    if (!o.writeKills || !out.fault || !out.failedChecks.length) return;
    if (o.byCheck) writeKills(updatedKills(readCheckKills() ?? {}, [out], 'append', 'checks'), 'checks');
    else writeKills(updatedKills(readKills() ?? {}, [out], 'append'));
  };
  const work = (r: Run) =>
    r.target === 'persistent' ? runPersistentTwice(r) : r.targetData ? runWithTargetData(r) : !r.fault ? runSuite(r) : o.topUp ? runTopUp(r) : runTargeted(r);
  return pool([...p.cleanRuns, ...p.faultRuns], o.jobs, work, (out) => {
    progress(out);
    if (o.topUp) recordTopUp(out);
  });
}

/** The table, the false alarms and survivors, the counts npm test reads, and the kill matrix if asked. */
function summarize(p: Plan, o: Options, outcomes: Outcome[], seconds: number): { passed: number; failed: number; gatePower?: GatePower } {
  const clean = outcomes.filter((out) => !out.fault);
  const mutants = p.faultRuns.map((r) => outcomes.find((out) => out.label === r.label)!);
  const gating = !o.full && !o.topUp;
  const lines: string[] = ['| fault | family | breaks | verdict | exit | requirements that caught it |', '|---|---|---|---|---|---|'];
  for (const m of mutants) {
    const verdict = gating ? (isKilled(m) ? 'killed' : 'SURVIVED') : m.failedChecks.length ? 'killed' : o.topUp ? '-' : 'SURVIVED';
    const breaks = FAULTS.find((f) => f.name === parseFaultSpec(m.fault!).name)?.breaks ?? '';
    lines.push(
      `| ${m.fault} | ${faultFamily(m.fault!)} | ${breaks} | ${verdict} | ${m.exitCode ?? '-'} | ${m.failedRequirements.join(', ') || (m.problem ?? '-')} |`,
    );
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
      console.log(`${c.label}: the suite does not pass a conforming server: ${c.problem ?? ''}`);
      for (const f of c.failedChecks.slice(0, 20)) console.log(`  failed: ${f}`);
      for (const n of unexpectedNotRun(c).slice(0, 20)) console.log(`  not run: ${n.check}: ${n.reason}`);
    }
  }
  if (o.topUp) {
    // Here each requirement (or check) is the unit: caught by some fault, or still never caught.
    const stillUncaught = [...p.uncaught];
    passed += p.initiallyUncaught.length - stillUncaught.length;
    failed += stillUncaught.length;
    console.log(
      `${o.byCheck ? 'Checks' : 'Requirements'} caught: ${p.initiallyUncaught.length - stillUncaught.length}/${p.initiallyUncaught.length} of those no fault had caught` +
        `${stillUncaught.length ? `; still never caught:\n  ${stillUncaught.join('\n  ')}\n` : ''}. ${seconds.toFixed(0)} s in all.`,
    );
  } else {
    const survivors = mutants.filter((m) => (gating ? !isKilled(m) : m.failedChecks.length === 0));
    passed += mutants.length - survivors.length;
    failed += survivors.length;
    const why = (m: Outcome) =>
      m.exitCode !== 1 ? `exit ${m.exitCode ?? 'none'}` : m.breaksSpec && !m.coreFailed ? 'breaks the spec, core not FAIL' : 'no failing check';
    console.log(
      `Faults killed: ${mutants.length - survivors.length}/${mutants.length}` +
        `${survivors.length ? `; survived: ${survivors.map((s) => `${s.fault} (${why(s)})`).join(', ')}` : ''}. ${seconds.toFixed(0)} s in all.`,
    );
  }
  let gatePower: GatePower | undefined;
  if (gating) {
    const spec = mutants.filter((m) => m.breaksSpec);
    gatePower = {
      faultsFailed: mutants.filter((m) => m.exitCode === 1 && m.failedChecks.length > 0).length,
      faults: mutants.length,
      specFaultsFailCore: spec.filter((m) => m.coreFailed).length,
      specFaults: spec.length,
      conformingPassed: clean.filter(isClean).length,
      conforming: clean.length,
    };
    console.log(gatePowerLine(gatePower));
  }
  fs.writeFileSync(path.join(OUT, 'results.json'), JSON.stringify({ seconds, clean, mutants }, null, 2));
  if (o.writeKills) {
    if (o.topUp) console.log('recorded in tests/self/power/fault-kills.yaml as each fault finished; run `npm run requirements` to render it');
    else if (o.full) {
      writeKills(updatedKills(readKills() ?? {}, mutants, o.only ? 'first' : 'fresh'));
      console.log('wrote tests/self/power/fault-kills.yaml; run `npm run requirements` to render it');
    } else {
      // The release gate's runs stop at the first failing check: what they caught goes first, before
      // what the matrix knew (nothing is dropped), so that a fault missed by its targeted run and
      // caught by the run of every (core) check is targeted right the next time.
      writeKills(
        updatedKills(
          readKills() ?? {},
          mutants.filter((m) => m.failedRequirements.length),
          'first',
        ),
      );
      console.log("updated tests/self/power/fault-kills.yaml (what each fault's run caught first); run `npm run requirements` to render it");
    }
  }
  return { passed, failed, gatePower };
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  const options = readOptions();
  const started = Date.now();
  const p = plan(options);
  const outcomes = await execute(p, options);
  const { passed, failed, gatePower } = summarize(p, options, outcomes, (Date.now() - started) / 1000);
  fs.writeFileSync(path.join(OUT, 'summary.json'), JSON.stringify({ passed, failed, skipped: 0, ...(gatePower ? { gatePower } : {}) }));
  process.exitCode = failed > 0 ? 1 : 0;
}

/**
 * A full run over every fault starts the matrix afresh. Any other run adds to it: a full run of some
 * faults puts what it found first (targeted runs use the first few) and keeps what earlier runs
 * found after it; a top-up appends.
 */
function updatedKills(known: KillMatrix, mutants: Outcome[], mode: 'fresh' | 'first' | 'append', unit: 'requirements' | 'checks' = 'requirements'): KillMatrix {
  const matrix: KillMatrix = mode === 'fresh' ? {} : { ...known };
  const union = (a: string[], b: string[]) => [...a, ...b.filter((id) => !a.includes(id))];
  for (const m of mutants) {
    const before = matrix[m.fault!] ?? [];
    const found = unit === 'checks' ? m.failedChecks : m.failedRequirements;
    matrix[m.fault!] = mode === 'append' ? union(before, found) : union(found, before);
  }
  return matrix;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
