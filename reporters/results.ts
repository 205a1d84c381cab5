// Turns one Playwright test and its result into the check result the certificate is built from,
// using only what define-suite.ts records: the annotations (requirement, group, not-run, warning)
// and the attachments (`failure` with expected vs actual, `exchanges` with each request's latency).
// It works on plain shapes, so it reads results the same way in a run and in merge-reports.
import fs from 'node:fs';
import type { CheckFailure, CheckResult, LatencySample } from './model';

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

/** Why a test that has no result did not run, when the caller knows better (e.g. the run was stopped). */
export const NEVER_STARTED = 'the run stopped before this check started';

/** undefined for a test that is not a conformance check (no `requirement` annotation). */
export function checkResultOf(test: TestLike, neverStarted = NEVER_STARTED): CheckResult | undefined {
  const result = test.results[test.results.length - 1];
  const annotations = unique([...test.annotations, ...(result?.annotations ?? [])]);
  const first = (type: string) => annotations.find((a) => a.type === type)?.description;
  const requirement = first('requirement');
  if (!requirement) return undefined;
  const base = {
    key: test.title,
    requirement,
    group: first('group') ?? '',
    warnings: annotations.filter((a) => a.type === 'warning').map((a) => a.description ?? ''),
    latencies: result ? latencies(result.attachments) : [],
  };
  if (!result) return { ...base, status: 'not-run', reason: neverStarted };
  switch (result.status) {
    case 'passed':
      return { ...base, status: 'passed' };
    case 'skipped':
      return { ...base, status: 'not-run', reason: first('not-run') ?? skipReason(first('skip')) };
    case 'interrupted':
      return { ...base, status: 'not-run', reason: 'the run was interrupted before this check finished' };
    case 'failed':
    case 'timedOut':
      return { ...base, status: 'failed', failure: failureOf(test.title, result) };
  }
}

function skipReason(description: string | undefined): string {
  return description?.replace(/^not run:\s*/, '') || 'skipped without a reason';
}

/** Expected vs actual from the `failure` attachment; else from the error (a timeout, a suite defect). */
function failureOf(check: string, result: ResultLike): CheckFailure {
  const details = readJson(result.attachments.find((a) => a.name === 'failure')) as
    | { expected?: string; actual?: string; pointer?: string; exchange?: ExchangeLike }
    | undefined;
  if (details?.expected !== undefined && details.actual !== undefined) {
    const e = details.exchange;
    return {
      check,
      expected: details.expected,
      actual: details.actual,
      ...(details.pointer !== undefined ? { pointer: details.pointer || '(the whole body)' } : {}),
      ...(e ? { request: `${e.method} ${e.url}${e.status !== undefined ? ` -> ${e.status}` : ''}${e.error ? ` (${e.error})` : ''}` } : {}),
      ...(e?.bodyExcerpt ? { body: excerpt(e.bodyExcerpt) } : {}),
    };
  }
  const message = firstLines(result.errors.map((e) => e.message ?? e.value ?? '').join('\n'));
  return result.status === 'timedOut'
    ? { check, expected: 'the check finishes within the test timeout', actual: message || 'the test timed out' }
    : { check, expected: 'the check runs to completion', actual: `the check itself failed (a defect of the suite or of its inputs): ${message}` };
}

interface ExchangeLike {
  method: string;
  url: string;
  route?: string;
  status?: number;
  durationMs?: number;
  error?: string;
  bodyExcerpt?: string;
}

function latencies(attachments: AttachmentLike[]): LatencySample[] {
  const exchanges = readJson(attachments.find((a) => a.name === 'exchanges'));
  if (!Array.isArray(exchanges)) return [];
  return (exchanges as ExchangeLike[])
    .filter((e) => typeof e?.durationMs === 'number')
    .map((e) => ({ route: e.route ?? `${e.method} (not attributed to a route)`, ms: e.durationMs as number, ...(e.error ? { error: true } : {}) }));
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

function unique<T extends { type: string; description?: string }>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((a) => {
    const k = `${a.type}\u0000${a.description ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** The first lines of an error message, without colours: enough to say what went wrong. */
function firstLines(text: string, max = 6): string {
  return text.replace(ANSI, '').split('\n').map((l) => l.trimEnd()).filter(Boolean).slice(0, max).join('\n');
}

function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length} chars)` : flat;
}
