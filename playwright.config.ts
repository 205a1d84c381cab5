// The conformance run: `npm run conformance` (or `npx playwright test`).
// VDS_TARGET picks the target file (default: local = the embedded reference, started here).
import { execFileSync } from 'node:child_process';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { loadTargetFromEnv, TargetError, type Target } from './harness/target';
import { conformanceReporters, testOutputDir } from './reporters/config';
import { runMetadata } from './reporters/metadata';

/** A free local port for the embedded reference, chosen once: workers inherit it through the env. */
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

ensureReferencePort();
const t = target();
const base = new URL(t.baseUrl);
const isLocal = ['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname);

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
  workers: Number(process.env.VDS_WORKERS ?? 2),
  // A check makes a few requests; each is bounded by the target's requestTimeoutMs.
  timeout: Math.max(30_000, t.requestTimeoutMs * 8),
  reporter: reporters,
  globalSetup: './fixtures/global-setup.ts',
  // Traces and screenshots would carry tokens: the suite records its own redacted exchanges instead.
  use: { trace: 'off', screenshot: 'off', video: 'off' },
  webServer: t.startCommand
    ? {
        command: t.startCommand,
        ...(isLocal ? { port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)) } : { url: t.baseUrl }),
        reuseExistingServer: false,
        timeout: t.startTimeoutMs,
        stdout: 'ignore',
        stderr: 'pipe',
      }
    : undefined,
});
