// Where a conformance run writes its reports. VDS_REPORTS_DIR moves the whole folder, so that runs
// in parallel (the self-tests) do not overwrite each other; the default is reports/ at the repo root.
import path from 'node:path';
import { runOptions } from './options';
import { SUITE_ROOT } from '../util/suite-info';

/** The suite's own folder (package.json, contracts/, docs/), whether the sources or dist/ run. */
export const ROOT = SUITE_ROOT;

export function reportsDir(env: NodeJS.ProcessEnv = process.env): string {
  return runOptions(env).reportsDir ?? path.join(ROOT, 'reports');
}

/** Every file and folder of a run, relative to the reports folder (documented in reports/README.md). */
export const REPORT_FILES = {
  certificateJson: 'conformance.json',
  certificateMd: 'conformance.md',
  certificateHtml: 'conformance.html',
  changes: 'changes.md',
  trendHtml: 'trend.html',
  trendMd: 'trend.md',
  exchanges: 'exchanges.json',
  replay: 'replay.json',
  junit: 'junit.xml',
  html: 'html',
  allureResults: 'allure-results',
  allureReport: 'allure-report',
  /** With --history DIR: where `npm run report` keeps Allure's history (allurerc.mjs reads it). */
  allureHistory: 'allure-history.json',
  testResults: 'test-results',
  blob: 'blob',
} as const;

/** Allure's own history file (`npm run report` appends each report to it), in the --history folder. */
export const ALLURE_HISTORY_FILE = 'allure-history.jsonl';

/** The default baseline file, at the repo root. */
export const DEFAULT_BASELINE = path.join(ROOT, 'conformance-baseline.yaml');
