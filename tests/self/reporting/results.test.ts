// Reading a conformance test (one route group) into check results: the `checks` attachment that
// define-suite.ts records, inline (a run) or as a file (merge-reports).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { CHECKS_ATTACHMENT, failureOf, type CheckRecord } from '../../../src/verdict/check-record';
import { latencyByRoute, percentile } from '../../../src/verdict/latency';
import { checkResultsOf, groupOf, type AttachmentLike, type ResultLike, type TestLike } from '../../../src/playwright/results';

function json(name: string, value: unknown): AttachmentLike {
  return { name, contentType: 'application/json', body: Buffer.from(JSON.stringify(value)) };
}

function testOf(result: Partial<ResultLike> | undefined): TestLike {
  return {
    title: 'cars',
    annotations: [{ type: 'group', description: 'cars' }],
    results: result ? [{ status: 'passed', attachments: [], errors: [], ...result }] : [],
  };
}

const exchange = {
  method: 'GET',
  url: 'http://h/v3/cars/999999',
  route: 'GET /cars/{carId}',
  status: 500,
  durationMs: 12,
  bodyExcerpt: '{"oops":true}',
  requestHeaders: {},
};
const base = { requirement: 'ERR-CAR-NOT-FOUND', group: 'cars', warnings: [] as string[] };
const records: CheckRecord[] = [
  {
    ...base,
    key: 'ERR-CAR-NOT-FOUND GET /cars/{carId}',
    status: 'passed',
    warnings: ['labelled text/plain'],
    exchanges: [exchange, { ...exchange, durationMs: 30, error: 'timeout' }],
  },
  {
    ...base,
    key: 'ERR-CAR-NOT-FOUND GET /cars/{carId}/status',
    status: 'failed',
    exchanges: [exchange],
    failure: failureOf('ERR-CAR-NOT-FOUND GET /cars/{carId}/status', { expected: '404 with an error array', actual: 'status 500', pointer: '', exchange }),
  },
  { ...base, key: 'ERR-CAR-NOT-FOUND GET /cars/{carId}/trips', status: 'not-run', reason: 'needs data.carId', exchanges: [] },
];

test('each record of the checks attachment is a check result: status, warnings, latencies, expected vs actual', () => {
  const { results, problem } = checkResultsOf(testOf({ status: 'failed', attachments: [json(CHECKS_ATTACHMENT, records)] }));
  expect(problem).toBeUndefined();
  expect(results.map((r) => r.status)).toEqual(['passed', 'failed', 'not-run']);
  expect(results[0]).toMatchObject({
    warnings: ['labelled text/plain'],
    latencies: [
      { route: 'GET /cars/{carId}', ms: 12 },
      { route: 'GET /cars/{carId}', ms: 30, error: true },
    ],
  });
  expect(results[1].failure).toEqual({
    check: 'ERR-CAR-NOT-FOUND GET /cars/{carId}/status',
    expected: '404 with an error array',
    actual: 'status 500',
    pointer: '(the whole body)',
    request: 'GET http://h/v3/cars/999999 -> 500',
    body: '{"oops":true}',
  });
  expect(results[2].reason).toBe('needs data.carId');
  expect(groupOf(testOf(undefined))).toBe('cars');
});

test('an attachment stored as a file (merge-reports) is read too', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-att-')), 'checks.json');
  fs.writeFileSync(file, JSON.stringify(records));
  const { results } = checkResultsOf(testOf({ status: 'failed', attachments: [{ name: CHECKS_ATTACHMENT, contentType: 'application/json', path: file }] }));
  expect(results).toHaveLength(3);
});

test('a test that ended without its record yields no result, and its error, without colours, as the problem', () => {
  const crashed = checkResultsOf(testOf({ status: 'failed', errors: [{ message: '\u001b[31mTypeError: x is undefined\u001b[39m\n    at foo' }] }));
  expect(crashed.results).toEqual([]);
  expect(crashed.problem).toBe('cars: TypeError: x is undefined\n    at foo');
  expect(checkResultsOf(testOf({ status: 'interrupted' })).problem).toBe('cars: interrupted');
  // Cut off by the run's own stop (Ctrl-C, or --max-failures reached in another worker): not a problem of its own.
  expect(checkResultsOf(testOf({ status: 'interrupted' }), true)).toEqual({ results: [] });
  expect(checkResultsOf(testOf({ status: 'failed', errors: [{ message: 'TypeError: x' }] }), true).problem).toMatch(/TypeError/);
  expect(checkResultsOf(testOf(undefined))).toEqual({ results: [] });
  expect(checkResultsOf(testOf({ status: 'skipped' }))).toEqual({ results: [] });
});

test('a test that is not a conformance test (no group annotation) has no group', () => {
  expect(groupOf({ title: 'x', annotations: [], results: [] })).toBeUndefined();
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
