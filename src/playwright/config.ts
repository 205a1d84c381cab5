// The reporters of a conformance run (playwright.config.ts) and of merge-reports (merge.config.ts).
//   console: progress counted in checks (progress.ts), then the certificate's verdict summary;
//   files:   Playwright's HTML report (never opened), the certificate (which also writes junit.xml
//            and allure-results/, one test case and one Allure result per check: render-junit.ts,
//            render-allure.ts in src/rendering);
//   sharded: a blob report per shard as well, for `npm run merge`;
//   VDS_REPORTS=certificate: the console and the certificate alone (the console says why a run broke:
//            without it, a server that could not start left only "see the error above").
// allure-playwright is not among them: it writes one Allure result per Playwright test, that is per
// route group (five results for 714 checks), and crashes inside merge-reports; the certificate's
// writer gives Allure one result per check instead, in a run and in a merge alike.
import path from 'node:path';
import type { ReporterDescription } from '@playwright/test';
import { REPORT_FILES, reportsDir } from '../options/paths';
import { runOptions } from '../options/options';

// Beside this file, as it runs: the sources (.ts) or their compiled form (.js, scripts/build.cjs).
const CERTIFICATE = path.join(__dirname, `certificate-reporter${path.extname(__filename)}`);
const PROGRESS = path.join(__dirname, `progress${path.extname(__filename)}`);

export function conformanceReporters(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): ReporterDescription[] {
  const dir = reportsDir(env);
  // VDS_REPORTS=certificate: no file but the certificate (the mutation runner reads nothing else).
  if (runOptions(env).certificateOnly) return [[PROGRESS], [CERTIFICATE]];
  const sharded = argv.some((a) => a === '--shard' || a.startsWith('--shard=')) || runOptions(env).blob;
  return [...fileReporters(env), ...(sharded ? [['blob', { outputDir: path.join(dir, REPORT_FILES.blob) }] as ReporterDescription] : [])];
}

/** The reporters merge-reports runs too (the certificate's writes the merged run's Allure results). */
export function fileReporters(env: NodeJS.ProcessEnv = process.env): ReporterDescription[] {
  const dir = reportsDir(env);
  return [[PROGRESS], ['html', { outputFolder: path.join(dir, REPORT_FILES.html), open: 'never' }], [CERTIFICATE]];
}

export function testOutputDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(reportsDir(env), REPORT_FILES.testResults);
}
