// Every failure can be reproduced in one paste: the failing check's curl line, run in a shell with
// the run's token in $VDS_TOKEN_FULL, gets the failing answer again; its rerun command runs just that
// check and fails the same way. Against a reference fault, through the wrapper, as a user runs it.
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { freshRunEnv } from '../../../scripts/reference-process';
import { newReportsDir, readJson, ROOT, runCommand, startReference } from '../reporting/real-run';

const CHECK = 'RESP-STATUS GET /cars/{carId}/status';

test("a failing check's curl line and rerun command reproduce the failure", async () => {
  test.setTimeout(300_000);
  const reference = await startReference({ fault: 'route-answers-500@GET /cars/:carId/status' });
  try {
    const run = await runCommand(['conformance', '--grep', `^${CHECK.replace(/[{}]/g, '\\$&')} @`], { target: reference.targetFile });
    expect(run.code, run.output.slice(-2000)).toBe(1); // a profile failure fails the default gate (core and profile)
    const failure = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'))
      .requirements.flatMap((r) => r.failures)
      .find((f) => f.check === CHECK)!;
    expect(failure.actual).toBe('status 500');
    expect(failure.curl).toContain('"Authorization: Bearer $VDS_TOKEN_FULL"');
    expect(run.output).toContain(failure.curl!); // shown in the console too

    // The token a user would export: one of the primary user's, every scope.
    const minted = await fetch(`${reference.control}/tokens/mint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: 'vds-conformance', username: 'alice@reference.test' }),
    });
    const token = ((await minted.json()) as { access_token: string }).access_token;
    const answer = execFileSync('bash', ['-c', failure.curl!], { env: { ...process.env, VDS_TOKEN_FULL: token }, encoding: 'utf8' });
    expect(answer.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 500/);

    expect(failure.rerun).toMatch(/^npm run conformance -- --target '.+' --grep '/);
    const reportsDir = newReportsDir();
    const again = spawnSync('bash', ['-c', failure.rerun!], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...freshRunEnv(process.env), VDS_REPORTS_DIR: reportsDir },
    });
    expect(again.status, `${again.stdout}${again.stderr}`.slice(-2000)).toBe(1); // the same profile failure
    const rerun = readJson<Certificate>(path.join(reportsDir, 'conformance.json'));
    expect(rerun.counts.checks.failed).toBe(1);
    expect(rerun.counts.checks.passed).toBe(0);
  } finally {
    await reference.stop();
  }
});
