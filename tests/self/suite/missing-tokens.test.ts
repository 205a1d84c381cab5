// A target with only a `full` token: the checks that need other tokens are reported as not run,
// naming the target-file keys that would make them run, never as passed (issue "auth", done when).
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../../reporters/model';
import { Harness } from '../reference/helpers';
import { runSuite, writeTargetFile } from './run-suite';

/** A check's status and, when it did not run, why: read from the certificate, as a user reads it. */
function outcomes(file: string): Map<string, { status: string; reason?: string }> {
  const found = new Map<string, { status: string; reason?: string }>();
  for (const r of (JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate).requirements) {
    for (const n of r.notRun) for (const check of n.checks) found.set(check, { status: 'not-run', reason: n.reason });
    for (const f of r.failures) found.set(f.check, { status: 'failed' });
  }
  return found;
}

test('only tokens.full: scope, cross-user, expired and revoked checks are not run, naming the missing keys', async () => {
  const h = await Harness.start({ now: Date.now() });
  try {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    const target = writeTargetFile(`name: only-full\nbaseUrl: http://127.0.0.1:${port}/v3\nenv: cloud\ntokens:\n  full: ${await h.token()}\n`);
    const run = await runSuite({
      target,
      env: { VDS_GREP: '^(SCOPE-MISSING|SCOPE-NOT-NEEDED|SCOPE-NONE|ERR-CAR-FORBIDDEN|AUTH-EXPIRED|AUTH-REVOKED|RESP-STATUS) GET /cars/\\{carId\\}/status' },
    });
    expect(run.code, run.output).toBe(0);
    const checks = outcomes(path.join(run.reportsDir, 'conformance.json'));
    const notRun = (key: string) => {
      const c = checks.get(key);
      expect(c, `${key} in ${[...checks.keys()].join(', ')}`).toBeTruthy();
      expect(c!.status).toBe('not-run');
      return c!.reason ?? '';
    };
    expect(notRun('SCOPE-MISSING GET /cars/{carId}/status [status_read]')).toContain('tokens.withoutScope.status_read');
    expect(notRun('SCOPE-NOT-NEEDED GET /cars/{carId}/status')).toContain('tokens.withoutScope');
    expect(notRun('SCOPE-NONE GET /cars/{carId}/status')).toContain('tokens.noScopes');
    const crossUser = notRun('ERR-CAR-FORBIDDEN GET /cars/{carId}/status');
    expect(crossUser).toContain('data.otherCarId');
    expect(crossUser).toContain('tokens.otherUser');
    expect(notRun('AUTH-EXPIRED GET /cars/{carId}/status')).toContain('tokens.expired');
    expect(notRun('AUTH-REVOKED GET /cars/{carId}/status')).toContain('tokens.revoked');
    // ... while what the full token allows does run.
    expect(checks.has('RESP-STATUS GET /cars/{carId}/status'), 'neither failed nor not run: passed').toBe(false);
    const certificate = JSON.parse(fs.readFileSync(path.join(run.reportsDir, 'conformance.json'), 'utf8')) as Certificate;
    expect(certificate.requirements.find((r) => r.id === 'RESP-STATUS')!.checks.passed).toBe(1);
  } finally {
    await h.close();
  }
});
