// Reading one Playwright test into a check result: the annotations and attachments define-suite.ts
// records, inline (a run) or as files (merge-reports).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { latencyByRoute, percentile } from '../../../reporters/latency';
import { checkResultOf, type AttachmentLike, type ResultLike, type TestLike } from '../../../reporters/results';

const annotations = [
  { type: 'requirement', description: 'ERR-CAR-NOT-FOUND' },
  { type: 'class', description: 'profile' },
  { type: 'group', description: 'cars' },
];

function json(name: string, value: unknown): AttachmentLike {
  return { name, contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) };
}

function testOf(result: Partial<ResultLike> | undefined, extra: TestLike['annotations'] = []): TestLike {
  return {
    title: 'ERR-CAR-NOT-FOUND GET /cars/{carId}',
    annotations: [...annotations, ...extra],
    results: result ? [{ status: 'passed', attachments: [], errors: [], ...result }] : [],
  };
}

const exchange = { method: 'GET', url: 'http://h/v3/cars/999999', route: 'GET /cars/{carId}', status: 500, durationMs: 12, bodyExcerpt: '{"oops":true}' };

test('a passed test is a passed check, with its warnings and request latencies', () => {
  const r = checkResultOf(testOf({ status: 'passed', attachments: [json('exchanges', [exchange, { ...exchange, durationMs: 30, error: 'timeout' }])] }, [
    { type: 'warning', description: 'dates not in order' },
  ]))!;
  expect(r).toMatchObject({ key: 'ERR-CAR-NOT-FOUND GET /cars/{carId}', requirement: 'ERR-CAR-NOT-FOUND', group: 'cars', status: 'passed' });
  expect(r.warnings).toEqual(['dates not in order']);
  expect(r.latencies).toEqual([{ route: 'GET /cars/{carId}', ms: 12 }, { route: 'GET /cars/{carId}', ms: 30, error: true }]);
});

test('a failed test carries expected vs actual, the pointer and the request from its failure attachment', () => {
  const failure = { expected: 'status 404', actual: 'status 500', pointer: '', exchange };
  const r = checkResultOf(testOf({ status: 'failed', attachments: [json('failure', failure)], errors: [{ message: 'Error: [ERR] ...' }] }))!;
  expect(r.status).toBe('failed');
  expect(r.failure).toEqual({
    check: 'ERR-CAR-NOT-FOUND GET /cars/{carId}',
    expected: 'status 404',
    actual: 'status 500',
    pointer: '(the whole body)',
    request: 'GET http://h/v3/cars/999999 -> 500',
    body: '{"oops":true}',
  });
});

test('attachments stored as files (merge-reports) are read too', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-att-')), 'failure.json');
  fs.writeFileSync(file, JSON.stringify({ expected: 'e', actual: 'a' }));
  const r = checkResultOf(testOf({ status: 'failed', attachments: [{ name: 'failure', contentType: 'application/json', path: file }] }))!;
  expect(r.failure).toMatchObject({ expected: 'e', actual: 'a' });
});

test('a failure without details (a timeout, a defect of the suite) still says what happened, without colours', () => {
  const timedOut = checkResultOf(testOf({ status: 'timedOut', errors: [{ message: '\u001b[31mTest timeout of 80000ms exceeded.\u001b[39m' }] }))!;
  expect(timedOut.status).toBe('failed');
  expect(timedOut.failure).toMatchObject({ expected: 'the check finishes within the test timeout', actual: 'Test timeout of 80000ms exceeded.' });
  const defect = checkResultOf(testOf({ status: 'failed', errors: [{ message: 'TypeError: x is undefined\n    at foo' }] }))!;
  expect(defect.failure!.actual).toContain('the check itself failed');
  expect(defect.failure!.actual).toContain('TypeError: x is undefined');
});

test('a skipped test is not run, with the reason from its not-run annotation, else from the skip', () => {
  const reason = 'needs the token withoutScope.cars_read';
  expect(checkResultOf(testOf({ status: 'skipped' }, [{ type: 'not-run', description: reason }, { type: 'skip', description: `not run: ${reason}` }]))).toMatchObject({
    status: 'not-run', reason,
  });
  expect(checkResultOf(testOf({ status: 'skipped' }, [{ type: 'skip', description: 'not run: no browser' }]))!.reason).toBe('no browser');
});

test('an interrupted test and a test that never started are not run', () => {
  expect(checkResultOf(testOf({ status: 'interrupted' }))!.status).toBe('not-run');
  expect(checkResultOf(testOf(undefined), 'the run stopped before this check ran: boom')).toMatchObject({
    status: 'not-run', reason: 'the run stopped before this check ran: boom',
  });
});

test('a test that is not a conformance check (no requirement annotation) is ignored', () => {
  expect(checkResultOf({ title: 'x', annotations: [], results: [] })).toBeUndefined();
});

test('latency: nearest-rank p50/p95 and max per route, errors counted', () => {
  expect(percentile([], 95)).toBe(0);
  const ms = Array.from({ length: 20 }, (_, i) => i + 1); // 1..20
  expect(percentile(ms, 50)).toBe(10);
  expect(percentile(ms, 95)).toBe(19);
  const stats = latencyByRoute([...ms.map((m) => ({ route: 'GET /a', ms: m })), { route: 'GET /b', ms: 7, error: true }]);
  expect(stats['GET /a']).toEqual({ count: 20, errors: 0, p50: 10, p95: 19, max: 20 });
  expect(stats['GET /b']).toEqual({ count: 1, errors: 1, p50: 7, p95: 7, max: 7 });
});
