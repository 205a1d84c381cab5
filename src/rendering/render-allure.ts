// Allure results with one result per check, as JUnit has one test case per check (render-junit.ts;
// a run that selected some checks lists those alone: src/verdict/verdict.ts reportedChecks):
// QA teams open the Allure report first, and its own tools (filters by severity or tag, a result's
// history and flakiness across runs, categories of failures, the search box) then see each check
// rather than the five route groups Playwright runs (src/engine/define-suite.ts: a Playwright test per
// group keeps a failing server's run short; see there).
//
// Written from the records the run already has, at its end, by the certificate's writer
// (certificate-files.ts: the certificate reporter, merge-reports, an in-process run), not by
// allure-playwright: that reporter writes one result per Playwright test, which would add the five
// group results to the count and crashes inside merge-reports. So a merged sharded run gets the
// whole run's results, and the results are exactly the certificate's checks.
//
// A result: named by the check key (historyId and testCaseId derived from it: stable across runs, so
// Allure's history follows a check), its outcome (passed; failed with expected vs actual; skipped
// for not run and not applicable, told apart by the message and the `outcome` label), its duration, the labels of
// allure-labels.ts, and as steps the requests it sent, each with its redacted curl line and the
// answer's status. An advisory requirement's failing check is passed, labelled advisory, its warning
// as the message: advisory requirements only warn (never a failure, as in the certificate).
// categories.json (Allure 2's format; allurerc.mjs turns it into Allure 3's rules) names one category
// per likely cause of the triage, matched on the results' `cause` label.
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';
import { Stage, Status, type StatusDetails, type StepResult, type TestResult } from 'allure-js-commons';
import type { Category } from 'allure-js-commons/sdk';
import { requestLine, type CheckRecord } from '../verdict/check-record';
import type { Certificate, Check, RequirementResult, TriageCauseId } from '../verdict/model';
import type { Redactor } from '../util/redact';
import { checkLabels, requirementLink } from './allure-labels';
import { failureLines } from './format';

/** The Allure category of each likely cause of the triage (src/verdict/triage.ts), in the triage's words. */
const CAUSE_CATEGORY: Record<TriageCauseId, string> = {
  'not-implemented': 'Routes not implemented (non-API 404s)',
  'no-answer': 'No answer on a route',
  'auth-refused': "The primary user's token refused",
  'scope-map': 'A scope map off on a route group',
  'error-body': "Errors not the spec's array (error body shape)",
  'date-shape': 'Dates in one wrong shape',
  'content-type': 'JSON labelled another content type',
};
/** Failing checks no likely cause explains. */
const OTHER_FAILURES = 'Failures no likely cause explains';

/** One Allure result per check; `records` give their requests (a check without a record has none). */
export function allureResults(certificate: Pick<Certificate, 'requirements' | 'run' | 'triage'>, checks: Check[], records: CheckRecord[] = []): TestResult[] {
  const byId = new Map(certificate.requirements.map((r) => [r.id, r]));
  const recordOf = new Map(records.map((r) => [r.key, r]));
  const causeOf = new Map((certificate.triage?.causes ?? []).flatMap((c) => c.checks.map((k) => [k, CAUSE_CATEGORY[c.id]] as const)));
  const start = Date.parse(certificate.run.date) || Date.now();
  return checks.flatMap((c) => {
    const r = byId.get(c.requirement);
    if (!r) return [];
    const stop = start + (c.durationMs ?? 0);
    const advisoryWarning = c.status === 'failed' && r.advisory;
    const cause = c.status === 'failed' && !r.advisory ? (causeOf.get(c.key) ?? OTHER_FAILURES) : undefined;
    const { status, statusDetails } = outcome(c, r, advisoryWarning, cause);
    const id = createHash('md5').update(c.key).digest('hex');
    const result: TestResult = {
      uuid: randomUUID(),
      name: c.key,
      fullName: c.key,
      historyId: id,
      testCaseId: id,
      titlePath: [r.class, c.group, r.id],
      status,
      statusDetails,
      stage: Stage.FINISHED,
      description: `${r.title}\n\ncite: ${r.cite}${r.advisory ? '\n\nAdvisory: a failure only warns, never counts.' : ''}`,
      labels: checkLabels(c, r, cause),
      links: [requirementLink(r)],
      parameters: [],
      attachments: [],
      steps: steps(recordOf.get(c.key)?.exchanges ?? [], c, start),
      start,
      stop,
    };
    return [result];
  });
}

function outcome(c: Check, r: RequirementResult, advisoryWarning: boolean, cause: string | undefined): { status: Status; statusDetails: StatusDetails } {
  const f = c.failure;
  if (advisoryWarning) {
    return {
      status: Status.PASSED,
      statusDetails: { message: `advisory (a warning, never a failure): expected: ${f?.expected ?? ''}; actual: ${f?.actual ?? ''}` },
    };
  }
  if (c.status === 'failed') {
    return {
      status: Status.FAILED,
      statusDetails: {
        message: f ? `expected: ${f.expected}; actual: ${f.actual}` : 'failed',
        trace: [`[${r.id}] ${r.title}`, `cite:     ${r.cite}`, ...(f ? failureLines(f) : []), ...(cause ? [`category: ${cause}`] : [])].join('\n'),
      },
    };
  }
  // Both skipped in Allure's statuses, told apart by their message and their `outcome` label (allure-labels.ts).
  if (c.status === 'not-run') return { status: Status.SKIPPED, statusDetails: { message: `Not run: ${c.reason ?? ''}` } };
  if (c.status === 'not-applicable') return { status: Status.SKIPPED, statusDetails: { message: `Not applicable (never counts): ${c.reason ?? ''}` } };
  return { status: Status.PASSED, statusDetails: c.warnings.length ? { message: c.warnings.map((w) => `warning: ${w}`).join('\n') } : {} };
}

/** The requests of a check, one step each: its request line and answer status, its curl line as a parameter. */
function steps(exchanges: CheckRecord['exchanges'], c: Check, start: number): StepResult[] {
  let at = start;
  return exchanges.map((e) => {
    const line = requestLine(e);
    const failing = c.status === 'failed' && c.failure?.request === line;
    const step: StepResult = {
      name: line,
      status: failing ? Status.FAILED : e.status === undefined ? Status.BROKEN : Status.PASSED,
      statusDetails: e.error ? { message: e.error } : {},
      stage: Stage.FINISHED,
      parameters: [
        { name: 'status', value: e.status === undefined ? `no answer${e.error ? ` (${e.error})` : ''}` : String(e.status) },
        ...(e.credential ? [{ name: 'credential', value: e.credential }] : []),
        ...(e.curl ? [{ name: 'curl', value: e.curl }] : []),
      ],
      attachments: [],
      steps: [],
      start: at,
      stop: at + Math.round(e.durationMs ?? 0),
    };
    at = step.stop!;
    return step;
  });
}

/** The categories of the report: one per likely cause the triage names, then the failures none explains. */
function allureCategories(): Category[] {
  return [...Object.values(CAUSE_CATEGORY), OTHER_FAILURES].map((name) => ({ name, matchedStatuses: [Status.FAILED] }));
}

/**
 * Writes the results into `dir` (emptied first: results of an earlier run would show as retries),
 * redacted as every other report, with categories.json. Each result is one JSON file as Allure's
 * FileSystemWriter names them (`<uuid>-result.json`), stringified and redacted once: a run writes
 * hundreds, at the end of the run.
 */
export function writeAllureResults(dir: string, results: TestResult[], redactor: Redactor): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const result of results) fs.writeFileSync(path.join(dir, `${result.uuid}-result.json`), redactor.redact(JSON.stringify(result)));
  fs.writeFileSync(path.join(dir, 'categories.json'), JSON.stringify(allureCategories()));
}
