// A machine without any browser: the default run still checks everything but the sign-in page and
// the sign-in through a second application (tokens and codes come from the embedded reference's
// control API), says so on its first line,
// and reports those checks as not run with how to get a browser, never as passed.
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { readJson, runCommand } from '../support/child-run';

test('without a browser, only the sign-in page checks are not run, and the first line says so', async () => {
  test.setTimeout(240_000);
  const run = await runCommand(['conformance'], { target: 'local', env: { VDS_BROWSER: 'none' }, timeoutMs: 200_000 });
  expect(run.code, run.output.slice(-3000)).toBe(0);
  expect(run.output.trim().split('\n')[0]).toMatch(/^No browser: the checks of the sign-in page will not run/);
  const c = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'));
  expect(c.counts.checks.failed).toBe(0);
  const notRun = c.requirements.filter((r) => r.applicable && r.status === 'not-run');
  expect(notRun.map((r) => r.id).sort()).toEqual([
    'CORE-AUTH-SIGNIN-COOKIE',
    'CORE-DEVICE-SCOPE-RESTRICTED',
    'CORE-SIGNIN-OTHER-PASSWORD',
    'SIGNIN-CODE-STATE',
    'SIGNIN-FORM-REDIRECT',
    'SIGNIN-NOT-FRAMED',
    'SIGNIN-PAGE',
    'SIGNIN-PASSWORD-NEAR-MISS',
    'SIGNIN-PASSWORD-NOT-IN-URL',
    'SIGNIN-REDIRECT-EXACT',
    'SIGNIN-SCOPE-SUBSET',
    'SIGNIN-STATE-ESCAPED',
  ]);
  for (const r of notRun) expect(r.notRun[0].reason, r.id).toMatch(/needs a browser for the sign-in page: VDS_BROWSER=none/);
  // The token endpoint's checks ran: codes came from the control API.
  expect(c.requirements.find((r) => r.id === 'TOKEN-CODE-GRANT')!.status).toBe('passed');
  expect(c.counts.checks.passed).toBeGreaterThan(500);
});
