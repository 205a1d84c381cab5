// The reporters of a conformance run (playwright.config.ts) and of merge-reports (merge.config.ts).
//   console: progress counted in checks (progress.ts), then the certificate's verdict summary;
//   files:   Playwright's HTML report (never opened), Allure results, the certificate (which also
//            writes junit.xml, one test case per check: src/rendering/render-junit.ts);
//   sharded: a blob report per shard as well, for `npm run merge`;
//   VDS_REPORTS=certificate: the certificate alone.
import path from 'node:path';
import type { ReporterDescription } from '@playwright/test';
import { REPORT_FILES, reportsDir } from '../options/paths';
import { runOptions } from '../options/options';

const CERTIFICATE = path.join(__dirname, 'certificate-reporter.ts');
const PROGRESS = path.join(__dirname, 'progress.ts');

export function conformanceReporters(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv): ReporterDescription[] {
  const dir = reportsDir(env);
  // VDS_REPORTS=certificate: the certificate alone (the mutation runner reads nothing else).
  if (runOptions(env).certificateOnly) return [[CERTIFICATE]];
  const sharded = argv.some((a) => a === '--shard' || a.startsWith('--shard=')) || runOptions(env).blob;
  return [
    ...fileReporters(env),
    ['allure-playwright', { resultsDir: path.join(dir, REPORT_FILES.allureResults), detail: false }],
    ...(sharded ? [['blob', { outputDir: path.join(dir, REPORT_FILES.blob) }] as ReporterDescription] : []),
  ];
}

/**
 * The reporters merge-reports can run too. allure-playwright is not among them: it crashes inside
 * merge-reports, so each shard writes its own Allure results (see reports/README.md).
 */
export function fileReporters(env: NodeJS.ProcessEnv = process.env): ReporterDescription[] {
  const dir = reportsDir(env);
  return [[PROGRESS], ['html', { outputFolder: path.join(dir, REPORT_FILES.html), open: 'never' }], [CERTIFICATE]];
}

export function testOutputDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(reportsDir(env), REPORT_FILES.testResults);
}
