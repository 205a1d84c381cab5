// The conformance run: `npm run conformance` (or `npx playwright test`). VDS_TARGET picks the target
// file (default: local = the embedded reference). What the runner does before the tests load (a free
// port for the reference, bad input refused, the target's server started, the selection handed to the
// checks) is src/playwright/runner.ts; a worker loading this file only reads. The command runs this
// file compiled (dist/playwright.config.js, scripts/build.cjs) with the compiled tests beside it.
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { runOptions } from './src/options/options';
import { conformanceReporters, testOutputDir } from './src/playwright/config';
import { runMetadata } from './src/playwright/metadata';
import { inRunner, prepareRunner, runTarget } from './src/playwright/runner';
import { SUITE_ROOT } from './src/util/suite-info';

const target = inRunner() ? prepareRunner(SUITE_ROOT) : runTarget();
/** `.ts` from the sources, `.js` compiled. */
const ext = path.extname(__filename);

export default defineConfig({
  testDir: './tests/conformance',
  testMatch: `**/*.spec${ext}`,
  outputDir: testOutputDir(),
  // The target's facts, carried into blob reports (merge-reports).
  metadata: runMetadata(target),
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // One worker by default: its checks already run concurrently (as many as the target's round trip
  // calls for), and on two cores a second worker measured slower (its start-up competes with the
  // server and the browser). --workers N (or VDS_WORKERS) runs route groups side by side.
  workers: runOptions().workers,
  // A test is a route group; each of its checks has its own time limit (src/engine/run-check.ts).
  timeout: 0,
  // Reports go to VDS_REPORTS_DIR (default reports/); the certificate reporter prints the verdict and
  // decides the exit status.
  reporter: conformanceReporters(),
  // Global setup prepares the run (tokens, discovery) and waits for the target's server, stopped at the end.
  globalSetup: `./fixtures/global-setup${ext}`,
  // The compiled suite is plain JavaScript: Playwright's transform (Babel, per file, per process) has
  // nothing to do in it.
  build: { external: ext === '.js' ? [`${__dirname}/**`] : [] },
  // Traces and screenshots would carry tokens: the suite records its own redacted exchanges instead.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
