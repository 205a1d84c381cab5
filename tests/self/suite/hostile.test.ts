// Against a server that misbehaves in every way (tests/self/hostile/hostile-server.ts): every
// affected check fails with a clear reason, the run ends in bounded time, the runner never crashes
// (no check dies of a suite defect), and the certificate is still written.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Certificate, CheckFailure } from '../../../reporters/model';
import { startHostileServer } from '../hostile/hostile-server';
import { runSuite, writeTargetFile } from './run-suite';

test.setTimeout(240_000);

test('a hostile server: clear failures, bounded time, no crash, a certificate', async () => {
  const server = await startHostileServer();
  try {
    const target = writeTargetFile([
      'name: hostile',
      `baseUrl: ${server.url}`,
      'env: cloud',
      'requestTimeoutMs: 1000',
      'tokens:',
      '  full: hostile-test-token-0001',
      'data:',
      '  userId: 101',
      '  carId: 5001',
      '  tripId: 5f1c2a3b4c5d6e7f8a9b0c1d',
    ].join('\n'));
    // The response checks of every route: each route misbehaves, so almost all of them fail, and
    // Playwright starts a fresh worker after each failure; the rest of the suite adds time, not proof.
    const run = await runSuite({ target, timeoutMs: 180_000, args: ['--grep', '^(RESP-STATUS|RESP-CONTENT-TYPE|RESP-CONTRACT|CORE-CAR-RECORD|CORE-ERROR-BODY) '] });
    expect(run.timedOut, 'the run must end by itself').toBe(false);
    expect(run.code, run.output.slice(-2000)).toBe(1);

    const file = path.join(run.reportsDir, 'conformance.json');
    expect(fs.existsSync(file), 'the certificate is written').toBe(true);
    const certificate = JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate;
    expect(certificate.verdict.core).toBe('FAIL');
    const failures = new Map<string, CheckFailure>(certificate.requirements.flatMap((r) => r.failures.map((f) => [f.check, f] as const)));
    const reason = (check: string) => {
      const f = failures.get(check);
      expect(f, `${check} failed`).toBeTruthy();
      return `${f!.expected} / ${f!.actual}`;
    };
    expect(reason('RESP-CONTRACT GET /users/me')).toContain('the body is not JSON');
    expect(reason('CORE-CAR-RECORD GET /users/me/cars')).toContain('the body is not JSON');
    expect(reason('RESP-CONTRACT GET /users/{userId}')).toMatch(/expected .*object/);
    expect(reason('CORE-CAR-RECORD GET /users/{userId}/cars')).toContain('the body is empty');
    expect(reason('RESP-CONTRACT GET /cars/{carId}')).toContain('larger than');
    // A route that stops answering costs a few timeouts, then fails fast (harness/api.ts).
    const silent = /no complete answer within 1000 ms|got no answer/;
    expect(reason('RESP-STATUS GET /cars/{carId}/status')).toMatch(silent);
    expect(reason('RESP-STATUS GET /cars/{carId}/locations')).toMatch(/reset|closed the connection|no HTTP answer|got no answer/);
    expect(reason('RESP-STATUS GET /cars/{carId}/locations.geojson')).toMatch(silent);
    expect(reason('RESP-STATUS GET /cars/{carId}/signals')).toContain('status 302');
    expect(reason('RESP-CONTENT-TYPE GET /cars/{carId}/trips')).toContain('content-type text/plain');

    // Every failure is a conformance failure with expected vs actual, never a crash of a check.
    const crashed = [...failures.values()].filter((f) => f.actual.startsWith('the check itself failed'));
    expect(crashed.map((f) => `${f.check}: ${f.actual}`)).toEqual([]);
    expect(certificate.run.errors).toEqual([]);
  } finally {
    await server.close();
  }
});
