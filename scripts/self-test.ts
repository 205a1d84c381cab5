// `npm test`: the project's own tests, stage by stage, then one plain line "N passed, N failed"
// summing everything that ran (CI reads that line; it is also written to reports/self/summary.txt).
//   1. typecheck            tsc --noEmit
//      import rules         dependency-cruiser (.dependency-cruiser.cjs from src/layers.yaml): no circle, each folder
//                            imports only what src/layers.yaml allows, the suite and the reference never import each other
//      lint                 oxlint (.oxlintrc.json): ESLint's and typescript-eslint's correctness and suspicious rules, natively (the
//                            project's TypeScript 7 is outside typescript-eslint's supported range)
//      format               Prettier (.prettierrc.json): the code as Prettier writes it (`npm run format` mends it)
//      dead code            knip (knip.json): no unused file, dependency or export
//   2. unit and integration  Playwright Test over tests/self, project unit (contracts, harness, reference, reporters,
//                            the command line, hostile servers, the gate's properties)
//   3. suite power          project power, tests/self/power: every reference fault caught and every conforming server
//                            passed, in-process, and a sample of both through the README's command (the per-fault
//                            release check through the command is `npx tsx scripts/mutation.ts --release`, for
//                            maintainers: docs/CONTRIBUTING.md)
// Stages 2 and 3 are one Playwright run of both projects (tests/self/self-test.config.ts), each read apart.
// The stages of 1 run one after another beside that run (their output held and printed after it): on
// two cores they fill what the Playwright run leaves idle, instead of adding their 20 s before it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { powerLines, readOutcomes } from '../tests/self/power/outcome';

const ROOT = path.resolve(__dirname, '..');
const SELF_DIR = path.join(ROOT, 'reports', 'self');

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  note?: string;
  /** What the stage printed, held while the Playwright run prints (a static stage). */
  output?: string;
}
interface Stage {
  name: string;
  /** The words README.md and docs/CONTRIBUTING.md name it by (a test holds them to it). */
  doc: string;
  /** The Playwright project of tests/self/self-test.config.ts this stage reads. */
  project?: string;
  run: (projects: string[]) => Promise<Counts>;
}

/** Runs a command; its output goes to the terminal, or (`hold`) is returned to be printed later. */
function sh(command: string, args: string[], hold = false): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d));
    child.stderr?.on('data', (d: Buffer) => (output += d));
    child.on('error', (err) => resolve({ code: 1, output: `${output}${err.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const RESULTS = path.join(SELF_DIR, 'results.json');

/** The run of the self-tests (tests/self/self-test.config.ts), shared by the two stages it serves. */
let testsRun: { code: Promise<number>; projects: string[] } | undefined;

/** One Playwright run for the projects asked (unit, power): both cores busy to the end. */
function runTests(projects: string[]): Promise<number> {
  if (testsRun && projects.every((p) => testsRun!.projects.includes(p))) return testsRun.code;
  fs.rmSync(RESULTS, { force: true });
  const code = sh(npx, ['playwright', 'test', '-c', 'tests/self/self-test.config.ts', ...projects.flatMap((p) => ['--project', p])]).then((r) => r.code);
  testsRun = { code, projects };
  return code;
}

/** The static stages run one after another: each is one npm script's exit status (package.json holds the command, once). */
let staticChain: Promise<unknown> = Promise.resolve();

function script(name: string): Promise<Counts> {
  const result = staticChain.then(() => sh(npm, ['run', '--silent', name], true));
  staticChain = result;
  return result.then(({ code, output }) => ({ passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0, output }));
}

export const stages: Stage[] = [
  { name: 'typecheck', doc: 'typecheck', run: () => script('typecheck') },
  { name: 'import rules', doc: 'import rules', run: () => script('lint:imports') },
  { name: 'lint', doc: 'lint (oxlint', run: () => script('lint') },
  { name: 'format', doc: 'format (Prettier', run: () => script('format:check') },
  { name: 'dead code', doc: 'dead code (knip', run: () => script('knip') },
  {
    name: 'unit and integration tests',
    doc: 'unit and integration tests',
    project: 'unit',
    run: async (projects) => playwrightCounts(RESULTS, await runTests(projects), 'unit'),
  },
  {
    name: 'suite power (faults caught, conforming servers passed)',
    doc: 'precision and power',
    project: 'power',
    run: async (projects) => {
      const counts = playwrightCounts(RESULTS, await runTests(projects), 'power');
      return { ...counts, note: powerLines(readOutcomes(RESULTS)).join('\n  ') };
    },
  },
];

/** Counts of one project from Playwright's JSON reporter; a run that wrote none counts as one failure. */
function playwrightCounts(file: string, exitCode: number, project: string): Counts {
  if (!fs.existsSync(file)) return { passed: 0, failed: 1, skipped: 0 };
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as { suites?: JsonSuite[]; errors?: unknown[] };
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const walk = (s: JsonSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.projectName !== project) continue;
        if (t.status === 'expected' || t.status === 'flaky') counts.passed += 1;
        else if (t.status === 'skipped') counts.skipped += 1;
        else counts.failed += 1;
      }
    }
    for (const child of s.suites ?? []) walk(child);
  };
  for (const s of report.suites ?? []) walk(s);
  // No test of the project found, or the run broke outside any test (a crash, a config error).
  if (counts.passed + counts.failed + counts.skipped === 0 || (exitCode !== 0 && counts.failed === 0 && (report.errors ?? []).length)) counts.failed += 1;
  return counts;
}

interface JsonSuite {
  specs?: Array<{ tests?: Array<{ projectName?: string; status?: 'expected' | 'unexpected' | 'flaky' | 'skipped' }> }>;
  suites?: JsonSuite[];
}

async function main(): Promise<void> {
  const started = Date.now();
  fs.mkdirSync(SELF_DIR, { recursive: true });
  const only = process.argv.slice(2);
  const total: Counts = { passed: 0, failed: 0, skipped: 0 };
  const lines: string[] = [];
  const chosen = stages.filter((stage) => !only.length || only.some((o) => stage.name.startsWith(o)));
  const projects = chosen.flatMap((s) => (s.project ? [s.project] : []));
  // Every stage starts now: the static ones in their chain, the tests in their Playwright run (which
  // prints as it goes); the static stages' output follows it.
  const tests = chosen.filter((stage) => stage.project).map((stage) => stage.name);
  if (tests.length) console.log(`\n=== ${tests.join(', ')} ===`);
  const results = await Promise.all(chosen.map((stage) => stage.run(projects)));
  for (const [i, stage] of chosen.entries()) {
    const c = results[i];
    if (!stage.project) console.log(`\n=== ${stage.name} ===${c.output?.trim() ? `\n${c.output.trimEnd()}` : ''}`);
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
    lines.push(`${stage.name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`);
    if (c.note) lines.push(`  ${c.note}`);
  }
  const summary = `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`;
  fs.writeFileSync(path.join(SELF_DIR, 'summary.txt'), `${summary}\n`);
  // For the benchmark's table (npm run bench), which cannot afford to run npm test itself.
  const seconds = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(
    path.join(SELF_DIR, 'summary.json'),
    `${JSON.stringify({ ...total, stages: only.length ? only : 'all', seconds, finishedAt: new Date().toISOString() })}\n`,
  );
  console.log(`\n${lines.join('\n')}\n${summary}`);
  process.exitCode = total.failed > 0 ? 1 : 0;
}

if (require.main === module) void main();
