// Turns the catalogue into the Playwright test of one route group. Each check (a requirement on one
// route and scope, or once) is a step of that test, titled by its check key; the checks run
// concurrently (they are I/O-bound: concurrency follows the target's latency, see run-context.ts),
// and beside them the checks that write, one after another, in catalogue order.
//
// Why one test per group rather than per check: Playwright discards its worker process after every
// failed test, so against a server that fails hundreds of checks a test per check costs a worker
// restart each (measured: about 0.6 s a failing test on two cores). With one test per group a run
// costs about the same whatever the number of failures, and every failing check still appears as a
// failed step (HTML), in the test's error, and in the certificate, JUnit and Allure (one result per
// check, src/rendering/render-allure.ts), one entry each.
import type { TestInfo } from '@playwright/test';
import { loadCatalogue, planChecks, type Group, type PlannedCheck } from '../catalogue/catalogue';
import { runOptions } from '../options/options';
import { secretRefs } from '../setup/secret-refs';
import { interruption, onInterruption } from '../setup/interruption';
import { selectChecks, withFeeders } from '../catalogue/selection';
import { CHECKS_ATTACHMENT, GROUP_ANNOTATION, type CheckRecord } from '../verdict/check-record';
import { failureLines } from '../rendering/format';
import { test } from '../../fixtures/suite-fixtures';
import type { CheckInputs } from './run-check';
import { stage } from '../transport/timeline';

/**
 * The engine and every check procedure. Playwright's runner loads the spec files only to list the route
 * groups' tests, and would load them all for nothing; a worker loads them with its spec file, while the
 * run's preparation may still go on, so that they are ready before its first check.
 */
const engine = (() => {
  let loaded: (typeof import('./run-check') & typeof import('./schedule') & typeof import('./errors-seen')) | undefined;
  return () =>
    (loaded ??= {
      /* eslint-disable typescript/no-require-imports -- loaded only where the checks run */
      ...(require('./run-check') as typeof import('./run-check')),
      ...(require('./schedule') as typeof import('./schedule')),
      ...(require('./errors-seen') as typeof import('./errors-seen')),
      /* eslint-enable typescript/no-require-imports */
    });
})();
// A worker (TEST_WORKER_INDEX set), not the runner.
if (process.env.TEST_WORKER_INDEX !== undefined) engine();

export function defineGroupSuite(group: Group): void {
  const planned = planChecks(loadCatalogue()).filter((p) => p.group === group);
  const selected = selectChecks(planned);
  if (selected.length === 0) return; // nothing of this group selected: no test, so no empty result
  // The checks that provoke the errors a selected check judges run too, unreported (selection.ts).
  const { checks: scheduled, feeders } = withFeeders(planned, selected);
  // The test's tags: its group and classes. A check's own tags (requirement id, severity) select it
  // through the checks' selection (src/catalogue/selection.ts), not Playwright's.
  const tags = [...new Set([`@${group}`, ...selected.map((p) => `@${p.requirement.class}`)])];
  const annotation = [{ type: GROUP_ANNOTATION, description: group }];
  test(group, { tag: tags, annotation }, async ({ target, run, catalogue, browserSession }, testInfo) => {
    testInfo.setTimeout(0); // every check has its own time limit (run-check.ts)
    const { earlyExchanges, releaseAfterWrites, runCheck, startEarly, runScheduled, ErrorsSeen } = engine();
    // The preparation failed (the certificate says why: the run did not complete), or the run was interrupted before it ended.
    if ('stopped' in run) {
      testInfo.skip(true, run.stopped);
      return;
    }
    const inputs: CheckInputs = { target, run, catalogue, browserSession, secretRefs: secretRefs(target, run), errorsSeen: new ErrorsSeen(catalogue) };
    // Every step is located at this test: without a location, Playwright captures and source-maps a
    // stack for each of the hundreds of steps.
    const location = { file: testInfo.file, line: testInfo.line, column: testInfo.column };
    const records: CheckRecord[] = [];
    const inFlight = new Set<PlannedCheck>();
    // Interrupted (Ctrl-C, a CI job's SIGTERM), Playwright ends this test before its last line: the
    // records so far are attached at once, with the checks in flight as not run, so that the
    // certificate keeps what the run saw.
    let attached = false;
    const attachOnce = (list: CheckRecord[]) => {
      if (attached) return Promise.resolve();
      attached = true;
      return attachRecords(testInfo, list);
    };
    const stopWatching = onInterruption((signal) => {
      void attachOnce([...records, ...[...inFlight].map((p) => interrupted(p, signal))]).catch(() => undefined);
    });
    const check = async (p: PlannedCheck) => {
      // --max-failures stops new checks, but for those that judge what the others already received
      // (CORE-ERROR-BODY): a failure they would see is not lost to a stop.
      if ((failureBudget.spent() && !p.requirement.judgesErrorsSeen) || interruption()) {
        // An early part it started (run-check.ts startEarly) sent requests: they are the stopped check's.
        if (!feeders.has(p)) records.push({ ...stopped(p), exchanges: await earlyExchanges(p, inputs) });
        return;
      }
      // A feeder's answers reach the errors seen (run-check.ts); its outcome was not asked for.
      if (feeders.has(p)) {
        await runCheck(p, inputs);
        return;
      }
      let record: CheckRecord | undefined;
      inFlight.add(p);
      await test
        .step(
          p.key,
          async (step) => {
            record = await runCheck(p, inputs);
            // A failed step shows expected vs actual in the HTML report; it is not the test's end.
            if (record.status === 'failed') throw Object.assign(new Error(stepMessage(p, record)), { stack: stepMessage(p, record), isCheckFailure: true });
            if (record.status === 'not-run') step.skip(true, `not run: ${record.reason}`);
            if (record.status === 'not-applicable') step.skip(true, `not applicable: ${record.reason}`);
          },
          { location },
        )
        .catch((err: { isCheckFailure?: boolean }) => {
          if (!err.isCheckFailure) throw err;
          failureBudget.spend();
        });
      inFlight.delete(p);
      records.push(record!);
    };
    // The reads concurrently, the writes as one lane beside them (schedule.ts).
    stage(`group ${group} start`);
    startEarly(scheduled, inputs);
    await runScheduled(scheduled, run.concurrency, check, releaseAfterWrites(inputs), run.data);
    stage(`group ${group} end`);
    stopWatching();
    await attachOnce(records);
    verdict(testInfo, records);
  });
}

/** VDS_MAX_FAILURES (the wrapper's --max-failures and -x): no new check starts once a worker has seen that many fail. */
const failureBudget = (() => {
  const max = runOptions().maxFailures;
  let failed = 0;
  return {
    spend: () => {
      failed += 1;
    },
    spent: () => max > 0 && failed >= max,
  };
})();

/** A check that never ran, and why. */
function notRunRecord(p: PlannedCheck, reason: string): CheckRecord {
  return { key: p.key, requirement: p.requirement.id, group: p.group, status: 'not-run', warnings: [], exchanges: [], reason };
}

function stopped(p: PlannedCheck): CheckRecord {
  const signal = interruption();
  return notRunRecord(
    p,
    signal
      ? `the run was interrupted (${signal}) before this check ran`
      : `the run stopped after ${runOptions().maxFailures} failing check(s) (--max-failures) before this check ran`,
  );
}

function interrupted(p: PlannedCheck, signal: NodeJS.Signals): CheckRecord {
  return notRunRecord(p, `the run was interrupted (${signal}) while this check ran: its outcome says nothing about the server`);
}

function stepMessage(p: PlannedCheck, r: CheckRecord): string {
  return [`[${p.requirement.id}] ${p.requirement.title}`, `  cite: ${p.requirement.cite}`, ...failureLines(r.failure!)].join('\n');
}

/** One attachment with every check's record: the certificate reads it. */
async function attachRecords(testInfo: TestInfo, records: CheckRecord[]): Promise<void> {
  // A certification keeps every check's exchanges whatever VDS_ATTACH says: its archive is replayed from them.
  const keepAll = !runOptions().attachFailuresOnly || runOptions().certify;
  const attached = records.map((r) => (keepAll || r.status === 'failed' ? r : { ...r, exchanges: [] }));
  await testInfo.attach(CHECKS_ATTACHMENT, { body: JSON.stringify(attached), contentType: 'application/json' });
}

/** The test's verdict: failed when any check failed (its error lists each one), skipped when none ran, else passed. */
function verdict(testInfo: TestInfo, records: CheckRecord[]): void {
  const failed = records.filter((r) => r.status === 'failed');
  if (failed.length) {
    const lines = failed.map((r) =>
      [
        `  ${r.key}`,
        ...failureLines(r.failure!)
          .slice(0, 4)
          .map((l) => `    ${l}`),
      ].join('\n'),
    );
    const error = new Error(`${failed.length} of ${records.length} checks failed:\n${lines.join('\n')}`);
    error.stack = error.message; // expected vs actual is the whole story; the suite's stack is not
    throw error;
  }
  if (records.every((r) => r.status === 'not-run' || r.status === 'not-applicable')) {
    const reasons = [...new Set(records.map((r) => r.reason))];
    testInfo.skip(true, `not run: ${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? '; ...' : ''}`);
  }
}
