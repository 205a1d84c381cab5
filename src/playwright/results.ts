// Reads the check results out of the run's Playwright tests. A conformance test is one route group;
// it records each of its checks in its `checks` attachment (src/verdict/check-record.ts) and names its
// group in a `group` annotation. Works on plain shapes, so it reads results the same way in a run
// and in merge-reports (where attachments are files).
import fs from 'node:fs';
import { CHECKS_ATTACHMENT, GROUP_ANNOTATION, resultOf, type CheckRecord } from '../verdict/check-record';
import type { CheckResult } from '../verdict/model';

export interface AttachmentLike {
  name: string;
  contentType: string;
  body?: Buffer;
  path?: string;
}

export interface ResultLike {
  status: 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted';
  annotations?: Array<{ type: string; description?: string }>;
  attachments: AttachmentLike[];
  errors: Array<{ message?: string; value?: string }>;
}

export interface TestLike {
  title: string;
  annotations: Array<{ type: string; description?: string }>;
  results: ResultLike[];
}

/** The route group a conformance test runs; undefined for any other test. */
export function groupOf(test: TestLike): string | undefined {
  return test.annotations.find((a) => a.type === GROUP_ANNOTATION)?.description;
}

/**
 * The checks a test recorded (its last attempt). A test that ended without its record (a crash, a
 * timeout, an interruption) yields none: its checks count as not run, with the reason the caller
 * gives for checks without a result, and the test's error is kept in `problem`, but when the run
 * itself stopped (`runStopped`: interrupted, or --max-failures reached) and the test was cut off by
 * that stop: the run's reason is the one its checks are not run for, said once.
 */
export function checkResultsOf(test: TestLike, runStopped = false): { results: CheckResult[]; problem?: string } {
  const result = test.results[test.results.length - 1];
  if (!result) return { results: [] };
  const records = checkRecordsOf(test);
  if (records.length) return { results: records.map(resultOf) };
  if (result.status === 'passed' || result.status === 'skipped' || (runStopped && result.status === 'interrupted')) return { results: [] };
  const message = firstLines(result.errors.map((e) => e.message ?? e.value ?? '').join('\n'));
  return { results: [], problem: `${test.title}: ${result.status === 'interrupted' ? 'interrupted' : message || result.status}` };
}

/** The records of a test's last attempt (none when it ended without them). */
export function checkRecordsOf(test: TestLike): CheckRecord[] {
  const result = test.results[test.results.length - 1];
  const records = result ? readJson(result.attachments.find((a) => a.name === CHECKS_ATTACHMENT)) : undefined;
  return Array.isArray(records) ? (records as CheckRecord[]) : [];
}

/** An attachment's JSON: inline in a run, a file once merge-reports has unpacked the blob. */
function readJson(a: AttachmentLike | undefined): unknown {
  if (!a) return undefined;
  try {
    const text = a.body ? a.body.toString('utf8') : a.path && fs.existsSync(a.path) ? fs.readFileSync(a.path, 'utf8') : undefined;
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** ANSI colour codes (Playwright's messages carry them). */
// eslint-disable-next-line no-control-regex -- the escape character is what an ANSI code starts with
export const ANSI = /\u001b\[[0-9;]*m/g;

/** The first lines of an error message, without colours: enough to say what went wrong. */
function firstLines(text: string, max = 6): string {
  return text
    .replace(ANSI, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter(Boolean)
    .slice(0, max)
    .join('\n');
}
