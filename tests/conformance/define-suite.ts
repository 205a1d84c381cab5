// Turns the catalogue into Playwright tests for one route group: one test per requirement and route
// (and scope), titled by the requirement id, annotated with its class, routes and citation.
// The test body runs the requirement's check procedure and translates its outcome:
//   passes -> passed; NotRun -> skipped with the reason (never counted as passed);
//   ConformanceFailure -> failed with expected vs actual; every request is attached, redacted.
import type { TestInfo } from '@playwright/test';
import * as allure from 'allure-js-commons';
import { ApiClient, NoAnswerError } from '../../harness/api';
import { loadCatalogue, planChecks, type Group, type PlannedCheck } from '../../harness/catalogue';
import { CheckContext } from '../../harness/check-context';
import { redactorFor } from '../../harness/run-context';
import { ConformanceFailure, formatFailure, NotRun, type FailureDetails } from '../../harness/verdict';
import { allureLabels } from '../../reporters/allure-labels';
import { test } from '../../fixtures/conformance';
import { CHECKS } from './checks';

/** Checks that write run one after another, in catalogue order, in one worker: they share state. */
function writes(p: PlannedCheck): boolean {
  return p.requirement.per === 'once' && p.requirement.routes.some((r) => r.startsWith('POST /users') || r.startsWith('POST /devices'));
}

export function defineGroupSuite(group: Group): void {
  const planned = planChecks(loadCatalogue()).filter((p) => p.group === group);
  for (const p of planned.filter((x) => !writes(x))) defineCheck(p);
  const stateful = planned.filter(writes);
  if (stateful.length) {
    test.describe('writes', () => {
      test.describe.configure({ mode: 'default' });
      for (const p of stateful) defineCheck(p);
    });
  }
}

function defineCheck(p: PlannedCheck): void {
  const r = p.requirement;
  const procedure = CHECKS[r.check];
  if (!procedure) throw new Error(`requirements.yaml: ${r.id} uses check "${r.check}", which tests/conformance/checks/index.ts does not define`);
  const annotation = [
    { type: 'requirement', description: r.id },
    { type: 'class', description: r.class },
    { type: 'group', description: p.group },
    { type: 'routes', description: (p.route ? [p.route.route] : r.routes).join(' | ') },
    { type: 'cite', description: r.cite },
    { type: 'severity', description: r.severity },
    { type: 'title', description: r.title },
    ...(p.scope ? [{ type: 'scope', description: p.scope }] : []),
  ];
  test(p.key, { tag: [`@${r.class}`, `@${p.group}`], annotation }, async ({ target, run, catalogue }, testInfo) => {
    await allure.labels(...allureLabels(r, p.group));
    if (!r.env.includes(target.env)) {
      notRun(testInfo, `applies to ${r.env.join(' and ')} targets; this target is ${target.env}`);
    }
    const redactor = redactorFor(run);
    const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, redactor);
    const ctx = new CheckContext(target, run, catalogue, api, redactor, r, p.route, p.scope);
    let outcome: unknown;
    try {
      await procedure(ctx);
    } catch (err) {
      outcome = err;
    }
    // An advisory requirement states an inference neither document makes (profile, rule 3): what
    // would be its failure is reported as a warning, never as a failure.
    if (r.advisory && outcome instanceof ConformanceFailure) {
      ctx.warn(`advisory, not a failure: ${formatFailure(outcome.details).split('\n').slice(0, 2).join('; ')}`);
      outcome = undefined;
    }
    for (const w of ctx.warnings) testInfo.annotations.push({ type: 'warning', description: redactor.redact(w) });
    // Every check's requests, for the reports; mutation runs keep only the failures' (VDS_ATTACH=failures):
    // an attachment costs ~20 ms a check on these machines.
    if (process.env.VDS_ATTACH !== 'failures' || (outcome !== undefined && !(outcome instanceof NotRun))) {
      await testInfo.attach('exchanges', {
        body: JSON.stringify(api.exchanges.map((e) => redactor.redactValue(e)), null, 2),
        contentType: 'application/json',
      });
    }
    if (outcome === undefined) return;
    if (outcome instanceof NotRun) notRun(testInfo, redactor.redact(outcome.reason));
    const details: FailureDetails | undefined = outcome instanceof ConformanceFailure
      ? outcome.details
      : outcome instanceof NoAnswerError
        ? { expected: `an HTTP answer within ${target.requestTimeoutMs} ms`, actual: outcome.message, exchange: outcome.exchange }
        : undefined;
    if (!details) throw scrub(outcome, redactor.redact.bind(redactor)); // a defect of the suite itself
    await testInfo.attach('failure', { body: redactor.redact(JSON.stringify(details)), contentType: 'application/json' });
    const error = new Error(redactor.redact(`[${r.id}] ${r.title}\n  cite: ${r.cite}\n${formatFailure(details)}`));
    error.stack = error.message; // expected vs actual is the whole story; the suite's stack is not
    throw error;
  });
}

function notRun(testInfo: TestInfo, reason: string): never {
  testInfo.annotations.push({ type: 'not-run', description: reason });
  testInfo.skip(true, `not run: ${reason}`);
  throw new Error('unreachable');
}

function scrub(err: unknown, redact: (s: string) => string): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  e.message = redact(e.message);
  if (e.stack) e.stack = redact(e.stack);
  return e;
}
