// A target with only a `full` token: the checks that need other tokens are reported as not run,
// naming the target-file keys that would make them run, never as passed (issue "auth", done when).
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { loadTarget } from '../../../src/setup/target';
import type { Certificate } from '../../../src/verdict/model';
import { runInProcess } from '../../../src/engine/in-process';
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

/**
 * The token endpoint's checks of another application's credentials need a second registered
 * application (oauth.restrictedClientId, restrictedClientSecret): without one, with the first one
 * again, or with credentials the endpoint refuses, they are not run, naming the keys; never passed,
 * never failed. Run in-process (the checks and their records are what is tested, not the command).
 */
test('codes and refresh tokens of another application: no second application, or one the endpoint refuses, is not run naming the keys', async () => {
  const h = await Harness.start({ now: Date.now() });
  try {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    const base = [
      'name: second-app',
      `baseUrl: http://127.0.0.1:${port}/v3`,
      'env: cloud',
      `control:\n  url: http://127.0.0.1:${port}/_control`,
      'oauth:',
      '  clientId: vds-conformance',
      '  clientSecret: reference-client-secret',
      '  redirectUri: http://localhost:9/vds/callback',
      '  username: alice@reference.test',
      '  password: alice-password',
    ].join('\n');
    const cases: Array<{ extra: string; reason: RegExp }> = [
      { extra: '', reason: /needs a second registered application: oauth\.restrictedClientId, oauth\.restrictedClientSecret in / },
      {
        extra: '  restrictedClientId: vds-conformance\n  restrictedClientSecret: reference-client-secret',
        reason: /oauth\.restrictedClientId is oauth\.clientId/,
      },
      {
        extra: '  restrictedClientId: vds-limited\n  restrictedClientSecret: not-its-secret',
        reason: /refuses oauth\.restrictedClientId and oauth\.restrictedClientSecret .* as client credentials/,
      },
    ];
    for (const { extra, reason } of cases) {
      const run = await runInProcess({ target: loadTarget(writeTargetFile(`${base}\n${extra}\n`)), selection: { grep: /^TOKEN-(CODE|REFRESH)-OTHER-APP / } });
      for (const key of ['TOKEN-CODE-OTHER-APP', 'TOKEN-REFRESH-OTHER-APP']) {
        const record = run.records.find((r) => r.key === key);
        expect(record?.status, `${key} with ${extra || 'no second application'}: ${record?.failure?.expected ?? record?.reason}`).toBe('not-run');
        expect(record!.reason).toMatch(reason);
        expect(record!.reason).not.toContain('not-its-secret');
      }
    }
  } finally {
    await h.close();
  }
});
