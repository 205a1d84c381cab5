// Against a server that misbehaves in every way (tests/self/hostile/hostile-server.ts): every
// affected check fails with a clear reason, the run ends in bounded time, the runner never crashes
// (no check breaks on the suite), and the certificate is still written.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { keysPattern } from '../../../src/catalogue/selection';
import type { Certificate, CheckFailure } from '../../../src/verdict/model';
import { startHostileServer } from '../hostile/hostile-server';
import { runSuite, writeTargetFile } from './run-suite';

test.setTimeout(240_000);

test('a hostile server: clear failures, bounded time, no crash, a certificate', async () => {
  const server = await startHostileServer();
  try {
    const target = writeTargetFile(
      [
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
      ].join('\n'),
    );
    // One check per misbehaviour, with the reason it must give.
    const silent = /no complete answer within 1000 ms|got no answer/;
    const expected: Record<string, RegExp> = {
      'RESP-CONTRACT GET /users/me': /the body is not JSON/,
      'CORE-CAR-RECORD GET /users/me/cars': /the body is not JSON/,
      'RESP-CONTRACT GET /users/{userId}': /expected .*object/,
      'CORE-CAR-RECORD GET /users/{userId}/cars': /the body is empty/,
      'RESP-CONTRACT GET /cars/{carId}': /larger than/,
      'RESP-STATUS GET /cars/{carId}/status': silent,
      'RESP-STATUS GET /cars/{carId}/locations': /reset|closed the connection|no HTTP answer|got no answer/,
      'RESP-STATUS GET /cars/{carId}/locations.geojson': silent,
      'RESP-STATUS GET /cars/{carId}/signals': /status 302/,
    };
    // A JSON list labelled text/plain: neither document states a record's content type, so the
    // advisory requirement warns, never fails.
    const warned = 'RESP-CONTENT-TYPE GET /cars/{carId}/trips';
    const run = await runSuite({ target, timeoutMs: 180_000, env: { VDS_GREP: keysPattern([...Object.keys(expected), warned]) } });
    expect(run.timedOut, 'the run must end by itself').toBe(false);
    expect(run.code, run.output.slice(-2000)).toBe(1);

    const file = path.join(run.reportsDir, 'conformance.json');
    expect(fs.existsSync(file), 'the certificate is written').toBe(true);
    const certificate = JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate;
    expect(certificate.verdict.core).toBe('FAIL');
    const failures = new Map<string, CheckFailure>(certificate.requirements.flatMap((r) => r.failures.map((f) => [f.check, f] as const)));
    for (const [check, reason] of Object.entries(expected)) {
      const f = failures.get(check);
      expect(f, `${check} failed`).toBeTruthy();
      expect(`${f!.expected} / ${f!.actual}`, check).toMatch(reason);
    }
    const advisory = certificate.requirements.find((r) => r.id === 'RESP-CONTENT-TYPE')!;
    expect(advisory.failures).toEqual([]);
    expect(JSON.stringify(advisory.warnings)).toMatch(/advisory, not a failure.*content-type text\/plain/);

    // Every odd answer meets an assertion (a failure with expected vs actual): no check breaks on it.
    const broke = certificate.requirements.flatMap((r) =>
      r.notRun.filter((n) => /the suite broke/.test(n.reason)).map((n) => `${n.checks.join(', ')}: ${n.reason}`),
    );
    expect(broke).toEqual([]);
    expect(certificate.counts.checks.notRunBySuite).toBe(0);
    expect(certificate.run.errors).toEqual([]);
  } finally {
    await server.close();
  }
});
