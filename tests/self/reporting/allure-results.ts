// Reads a run's Allure results (src/rendering/render-allure.ts) and holds them to its certificate:
// one result per check it selected, and the failed results exactly the certificate's failed checks (advisory
// requirements aside: they only warn), each failing check in the category of its likely cause.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from '@playwright/test';
import type { TestResult } from 'allure-js-commons';
import type { Certificate } from '../../../src/verdict/model';
import { NOT_SELECTED } from '../../../src/verdict/verdict';

export function readAllureResults(reportsDir: string): TestResult[] {
  const dir = path.join(reportsDir, 'allure-results');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('-result.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as TestResult);
}

/** The keys of the certificate's failed checks, advisory requirements aside. */
function failedChecks(c: Certificate): string[] {
  return c.requirements
    .filter((r) => !r.advisory)
    .flatMap((r) => r.failures.map((f) => f.check))
    .sort();
}

/** The quality gate's results in a single-file Allure report (its widget, base64 in index.html), over every environment. */
export function readQualityGate(reportsDir: string): Array<{ rule: string; success: boolean; actual: unknown; testResults?: string[] }> {
  const page = fs.readFileSync(path.join(reportsDir, 'allure-report', 'index.html'), 'utf8');
  const widget = /d\("widgets\/quality-gate\.json","([A-Za-z0-9+/=]*)"\)/.exec(page);
  if (!widget) return [];
  const byEnvironment = JSON.parse(Buffer.from(widget[1], 'base64').toString('utf8')) as Record<string, ReturnType<typeof readQualityGate>>;
  return Object.values(byEnvironment).flat();
}

/** The checks the run left out (--grep, a shard): no Allure result nor JUnit test case of their own. */
function notSelected(c: Certificate): number {
  return c.requirements.flatMap((r) => r.notRun.filter((n) => n.reason === NOT_SELECTED).flatMap((n) => n.checks)).length;
}

export function expectAllureMatchesCertificate(reportsDir: string, c: Certificate): void {
  const results = readAllureResults(reportsDir);
  expect(results, 'one Allure result per check the run selected').toHaveLength(c.counts.checks.total - notSelected(c));
  expect(new Set(results.map((r) => r.name)).size, 'each check once, by its key').toBe(results.length);
  const failed = results.filter((r) => r.status === 'failed');
  expect(failed.map((r) => r.name!).sort(), "the failed results are the certificate's failed checks").toEqual(failedChecks(c));
  expect(results.filter((r) => r.status === 'skipped')).toHaveLength(c.counts.checks.notRun - notSelected(c) + (c.counts.checks.notApplicable ?? 0));
  // Each check the triage explains is in its cause's category (the `cause` label categories match on).
  const causeOf = new Map(failed.map((r) => [r.name, r.labels.find((l) => l.name === 'cause')?.value]));
  for (const cause of c.triage?.causes ?? []) {
    const categories = new Set(cause.checks.map((k) => causeOf.get(k)));
    expect(categories.size, `the checks of cause ${cause.id} share one category`).toBe(1);
    expect([...categories][0], `cause ${cause.id}`).toBeTruthy();
  }
}
