// `vds-conformance report` (npm run report): the Allure report of the last run in the reports folder,
// built offline from its allure-results/ (one result per check: src/rendering/render-allure.ts) as one
// file that opens from disk, configured by the suite's allurerc.mjs (categories, history, layout), with
// the run's verdict as its quality gate: the run's own gate (conformance.json), worded as the console,
// the certificate and JUnit word it (its headline), and the checks that failed it (those failed; in a
// certification, or with --require-complete, those not run too). The verdict is the suite's: Allure
// is told it, not asked to compute it (its own rules count failed tests, and a certification fails on
// checks not run). `allure generate` writes no quality gate (only `allure run` does, around a test
// command), so the report is built here through Allure's own library, as its run command builds one:
// the results read, the gate's result handed over, the report written. Nothing of the run is changed
// but allure-report/.
import fs from 'node:fs';
import path from 'node:path';
import { reportsDir, REPORT_FILES, ROOT } from '../options/paths';
import { EXIT } from '../verdict/exit-codes';
import type { Certificate } from '../verdict/model';
import { headlineLine } from '../rendering/format';
import { UsageError } from './args';

/** The quality gate's rule, as Allure names it in the report. */
const RULE = 'conformance/verdict';

/** @public src/cli/main.ts requires it for `report`. Builds reports/allure-report/index.html; exit 0 once it is written (the run's own exit status said its verdict). */
export async function report(invokedAs: string): Promise<number> {
  const dir = reportsDir();
  const results = path.join(dir, REPORT_FILES.allureResults);
  const npm = invokedAs.startsWith('npm');
  if (!fs.existsSync(results) || !fs.readdirSync(results).some((f) => f.endsWith('-result.json'))) {
    throw new UsageError(
      `no Allure results in ${results}: run the suite first (${npm ? 'npm run conformance --' : invokedAs} --target ...), then ${npm ? 'npm run report' : `${invokedAs} report`}`,
    );
  }
  const certificate = readCertificate(path.join(dir, REPORT_FILES.certificateJson));
  // allurerc.mjs reads the reports folder from the environment, as `allure generate` would run it.
  process.env.VDS_REPORTS_DIR = dir;
  // Allure's library is ES modules only: imported, not required.
  const { AllureReport, readConfig } = await import('@allurereport/core');
  const allure = new AllureReport(await readConfig(ROOT, path.join(ROOT, 'allurerc.mjs')));
  await allure.start();
  await allure.readDirectory(results);
  const gate = certificate?.gate;
  if (gate) {
    const everyOne = certificate.headline?.verdict === 'FAIL' && !certificate.requirements.some((r) => r.status === 'failed' && !r.advisory);
    const counted = new Set(everyOne ? ['failed', 'not run'] : ['failed']);
    const offending = (await allure.store.allTestResults({ includeRetries: false }))
      .filter((tr) => counted.has(tr.labels.find((l) => l.name === 'outcome')?.value ?? ''))
      .map((tr) => tr.id);
    const actual = `${headlineLine(certificate) ?? gate.status} (exit status ${gate.exitCode}: ${gate.rule})`;
    allure.realtimeDispatcher.sendQualityGateResults([
      {
        rule: RULE,
        success: gate.status === 'passed',
        expected: 'exit status 0',
        actual,
        message: `The run's verdict: ${actual}`,
        testResults: gate.status === 'passed' ? [] : offending,
      },
    ]);
    allure.realtimeDispatcher.sendGlobalExitCode({ original: gate.exitCode, actual: gate.exitCode });
  }
  await allure.done();
  const page = path.join(dir, REPORT_FILES.allureReport, 'index.html');
  if (!fs.existsSync(page)) {
    console.error(`The Allure report was not written (${page} is missing): see the messages above.`);
    return EXIT.broken;
  }
  console.log(`Allure report: ${shown(page)}${certificate ? `\n  quality gate (the run's verdict): ${headlineLine(certificate) ?? gate?.status}` : ''}`);
  return EXIT.passed;
}

function readCertificate(file: string): Certificate | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate;
  } catch {
    return undefined;
  }
}

function shown(file: string): string {
  const r = path.relative(process.cwd(), file);
  return r && !r.startsWith('..') ? r : file;
}
