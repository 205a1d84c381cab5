// The conformance run: `npm run conformance` (or `npx playwright test`).
// VDS_TARGET picks the target file (default: local = the embedded reference, started here).
import { execFileSync } from 'node:child_process';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { loadCatalogue, planChecks } from './src/catalogue/catalogue';
import { selectChecks, selectionEnvFromArgv, selectionFromEnv, SelectionError } from './src/catalogue/selection';
import { configureHttp } from './src/transport/http-policy';
import { startTargetServerEarly } from './src/setup/start-command';
import { loadTargetFromEnv, TargetError, type Target } from './src/setup/target';
import { conformanceReporters, testOutputDir } from './src/reporters/config';
import { runMetadata } from './src/reporters/metadata';
import { optionProblems } from './src/options/report-options';

/**
 * A free local port for the embedded reference, chosen once: workers inherit it through the env.
 * `npm run conformance` chooses it before the runner starts (src/util/free-port.ts); a plain
 * `npx playwright test` asks a short-lived process, as a config is loaded synchronously.
 */
function ensureReferencePort(): void {
  if (process.env.VDS_REFERENCE_PORT) return;
  process.env.VDS_REFERENCE_PORT = execFileSync(process.execPath, [
    '-e',
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]).toString();
}

function target(): Target {
  try {
    return loadTargetFromEnv();
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    console.error(`\n${err.message}\n`);
    process.exit(2);
  }
}

/**
 * A conformance test is a route group and its checks are steps (src/engine/define-suite.ts):
 * Playwright's --grep and --max-failures act on tests, so they are handed to the checks as well.
 * Set here, in the runner, they reach the workers through the environment.
 */
function selectChecksFromArgv(argv: string[]): void {
  for (const [k, v] of Object.entries(selectionEnvFromArgv(argv))) process.env[k] ??= v;
  const i = argv.findIndex((a) => a === '--max-failures' || a.startsWith('--max-failures=') || a === '-x');
  if (i >= 0 && !process.env.VDS_MAX_FAILURES) {
    process.env.VDS_MAX_FAILURES = argv[i] === '-x' ? '1' : argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  }
  try {
    if (selectChecks(planChecks(loadCatalogue()), selectionFromEnv()).length === 0) {
      console.error(`\nThe selection (--grep ${process.env.VDS_GREP ?? ''}${process.env.VDS_GREP_INVERT ? ` --grep-invert ${process.env.VDS_GREP_INVERT}` : ''}) matches no check. ` +
        'A check is matched by its title and tags, e.g. "CORE-ERROR-BODY GET /users/me @CORE-ERROR-BODY @core @users @critical".\n');
      process.exit(2);
    }
  } catch (err) {
    if (!(err instanceof SelectionError)) throw err;
    console.error(`\n${err.message}\n`);
    process.exit(2);
  }
}

/** Report options given as variables, checked before anything runs (the command line checks its flags). */
function refuseBadOptions(): void {
  const problems = optionProblems();
  if (!problems.length) return;
  console.error(`\n${problems.join('\n')}\n`);
  process.exit(2);
}

/** This file is loaded by Playwright's runner and again by each worker. */
const inRunner = process.env.TEST_WORKER_INDEX === undefined;

ensureReferencePort();
const t = target();
if (inRunner) {
  refuseBadOptions();
  // A CI job's timeout or cancel sends SIGTERM, which would end the runner before its reports: it
  // stops the run as Ctrl-C does instead (Playwright's SIGINT handling), so the certificate is
  // written, with what ran and why the rest did not. A second SIGTERM ends it at once.
  process.once('SIGTERM', () => process.emit('SIGINT'));
}
// The target file's operator controls (headers, rate limit, proxy, CA), in this process: the runner
// (global setup) and each worker load this file.
configureHttp(t);
// In the runner, first of all: the target's server boots while the selection is checked and
// Playwright loads the tests; global setup waits for it (src/setup/start-command.ts). A run refused
// below stops it as it exits.
if (inRunner && !process.argv.includes('--list')) startTargetServerEarly(t, __dirname);
// The selection reaches the workers through the environment, checked once, in the runner.
if (inRunner) selectChecksFromArgv(process.argv);

// Reports go to VDS_REPORTS_DIR (default reports/); the certificate reporter prints the verdict and
// decides the exit status. The metadata carries the target into blob reports (merge-reports).
const reporters: ReporterDescription[] = conformanceReporters();

export default defineConfig({
  testDir: './tests/conformance',
  testMatch: '**/*.spec.ts',
  outputDir: testOutputDir(),
  metadata: runMetadata(t),
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // One worker by default: its checks already run concurrently (as many as the target's round trip
  // calls for), and on two cores a second worker measured slower (its start-up competes with the
  // server and the browser). --workers N (or VDS_WORKERS) runs route groups side by side.
  workers: Number(process.env.VDS_WORKERS ?? 1),
  // A test is a route group; each of its checks has its own time limit (src/engine/run-check.ts).
  timeout: 0,
  reporter: reporters,
  // Global setup also starts the target's startCommand, and stops it at the end (src/setup/start-command.ts).
  globalSetup: './fixtures/global-setup.ts',
  // Traces and screenshots would carry tokens: the suite records its own redacted exchanges instead.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
