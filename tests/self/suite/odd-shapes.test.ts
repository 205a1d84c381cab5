// Against servers whose every answer is JSON of the wrong shape (tests/self/hostile/odd-shapes-server.ts):
// the whole suite runs, the checks fail with expected vs actual, and none breaks on the suite (a
// procedure reading a member of null is the suite's defect; the odd answer is the server's). In-process
// (src/engine/in-process.ts: the command's preparation, checks and judgement).
import { expect, test } from '@playwright/test';
import { SCOPES } from '../../../src/setup/target';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import { ODD_SHAPES, startOddShapesServer } from '../hostile/odd-shapes-server';
import { writeTargetFile } from './run-suite';

test.setTimeout(240_000);

function targetFor(url: string): string {
  return writeTargetFile(
    [
      'name: odd-shapes',
      `baseUrl: ${url}`,
      'env: cloud',
      'allowWrites: true',
      'requestTimeoutMs: 2000',
      'tokens:',
      ...['full', 'otherUser', 'noScopes', 'expired', 'revoked'].map((k) => `  ${k}: odd-shapes-${k}-token`),
      '  withoutScope:',
      ...SCOPES.map((s) => `    ${s}: odd-shapes-without-${s}`),
      'oauth:',
      '  clientId: odd-client',
      '  clientSecret: odd-secret',
      '  redirectUri: http://localhost:9/odd/callback',
      '  username: odd@example.test',
      '  password: odd-password',
      'data:',
      ...[
        'userId: "101"',
        'otherUserId: "102"',
        'carId: "5001"',
        'otherCarId: "5004"',
        'tripId: "t1"',
        'otherTripId: "t2"',
        'freeDeviceId: D1',
        'devicePin: "1234"',
        'deviceForCarId: D2',
        'deviceCarId: "5003"',
        'lockableDeviceId: D3',
        'lockableDevicePin: "4321"',
      ].map((l) => `  ${l}`),
    ].join('\n'),
  );
}

for (const [name, body] of Object.entries(ODD_SHAPES)) {
  test(`every answer is ${name}: failures with expected vs actual, no check breaks on the suite`, async () => {
    const server = await startOddShapesServer(body);
    try {
      const run = await runInProcess({ target: loadTarget(targetFor(server.url)) });
      const c = run.certificate;
      expect(c.run.errors, run.console).toEqual([]);
      const broke = c.requirements.flatMap((r) =>
        r.notRun.filter((n) => /the suite broke/.test(n.reason)).map((n) => `${r.id} (${n.checks.length}): ${n.reason}`),
      );
      expect(broke).toEqual([]);
      expect(c.counts.checks.notRunBySuite).toBe(0);
      expect(c.counts.checks.failed).toBeGreaterThan(100);
    } finally {
      await server.close();
    }
  });
}
