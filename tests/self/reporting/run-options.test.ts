// The command line a CI user relies on: distinct exit statuses, --require-complete, --compare and
// --last-failed right after a run in the same reports folder (nothing the user passed is deleted),
// and --certify of a tokenless sandbox (its archive, of the reference in cloud mode, is verify.test.ts's).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parseArgs, UsageError } from '../../../src/cli/args';
import { EXIT } from '../../../src/verdict/exit-codes';
import type { Certificate } from '../../../src/verdict/model';
import { newReportsDir, readJson, runCommand, startReference } from './real-run';

const cli = (args: string[], options: Parameters<typeof runCommand>[1] = {}) => runCommand(['conformance', ...args], { timeoutMs: 300_000, ...options });
const certificateIn = (dir: string) => readJson<Certificate>(path.join(dir, 'conformance.json'));

test('exit status: 3 when the target does not answer, 1 for --require-complete on an INCOMPLETE run', async () => {
  test.setTimeout(300_000);
  const unreachable = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'down.yaml');
  fs.writeFileSync(unreachable, 'name: down\nbaseUrl: http://127.0.0.1:9/v3\nenv: cloud\nrequestTimeoutMs: 2000\n');
  const down = await cli([], { target: unreachable });
  expect(down.code, down.output.slice(-2000)).toBe(EXIT.broken);
  expect(down.output).toMatch(/does not answer/);

  // INCOMPLETE passes by default (gate-properties.test.ts proves it for every outcome); --require-complete fails it.
  const required = await cli(['--grep', '@CORE-CAR-RECORD', '--require-complete'], { target: 'local' });
  expect(required.code, required.output.slice(-2000)).toBe(EXIT.failed);
  expect(certificateIn(required.reportsDir).gate).toMatchObject({ status: 'failed', rule: 'completeness', exitCode: EXIT.failed });
});

test('--compare reports/conformance.json and --last-failed work right after a run; the previous certificate is kept', async () => {
  test.setTimeout(300_000);
  const reference = await startReference({ fault: 'car-date-zulu' });
  const dir = newReportsDir();
  try {
    const options = { target: reference.targetFile, reportsDir: dir };
    const first = await cli(['--grep', '@(CORE-CAR-RECORD|ERR-CAR-NOT-FOUND)\\b'], options);
    expect(first.code, first.output.slice(-2000)).toBe(EXIT.failed);
    const failed = certificateIn(dir).requirements.flatMap((r) => r.failures.map((f) => f.check));
    expect(failed.length).toBeGreaterThan(0);

    const compared = await cli(['--grep', '@(CORE-CAR-RECORD|ERR-CAR-NOT-FOUND)\\b', '--compare', path.join(dir, 'conformance.json')], options);
    expect(compared.output).not.toMatch(/file not found/);
    expect(certificateIn(dir).comparison?.previous.path).toBeTruthy();
    expect(fs.existsSync(path.join(dir, 'changes.md'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'previous', 'conformance.json'))).toBe(true);

    const again = await cli(['--last-failed'], options);
    const rerun = certificateIn(dir);
    expect(again.code, again.output.slice(-2000)).toBe(EXIT.failed);
    expect(rerun.counts.checks.failed).toBe(failed.length);
    expect(rerun.counts.checks.passed).toBe(0);

    const last = await cli(['--grep', '@CORE-CAR-RECORD', '--compare', 'last'], options);
    expect(last.output).toMatch(/nothing got worse|newly/i);
    expect(certificateIn(dir).comparison).toBeTruthy();
  } finally {
    await reference.stop();
  }
  const none = await cli(['--last-failed'], { target: 'local', reportsDir: newReportsDir() });
  expect(none.code).toBe(EXIT.usage);
  expect(none.output).toMatch(/--last-failed: no previous run/);
});

test('report options set as variables are checked before anything runs: exit 2, naming the variable', async () => {
  test.setTimeout(120_000);
  const dir = newReportsDir();
  const missing = path.join(dir, 'no-such-certificate.json');
  const run = await cli(['--grep', '@CORE-CAR-RECORD'], { target: 'local', reportsDir: dir, env: { VDS_COMPARE: missing, VDS_LATENCY_RATIO: 'fast' } });
  expect(run.code, run.output.slice(-2000)).toBe(EXIT.usage);
  expect(run.output).toContain(`VDS_COMPARE (--compare): file not found: ${missing}`);
  expect(run.output).toMatch(/VDS_LATENCY_RATIO: .*got "fast"/);
  expect(run.output).not.toMatch(/checks\b.*passed/); // nothing ran
  expect(fs.existsSync(path.join(dir, 'conformance.json'))).toBe(false);
});

test('a sandbox without tokens is certifiable: what needs a token is not applicable, never not run, and every class PASSes', async () => {
  test.setTimeout(300_000);
  const run = await cli(['--certify', '--target', 'local-sandbox']);
  expect(run.code, run.output.slice(-3000)).toBe(EXIT.passed);
  const c = certificateIn(run.reportsDir);
  expect(c.verdict).toEqual({ core: 'PASS', profile: 'PASS' });
  expect(c.counts.checks.notRun).toBe(0);
  expect(c.counts.checks.notApplicable).toBeGreaterThan(100);
  // Only the sandbox's own requirements and those of its open routes count; the others are listed as not applicable.
  const core = c.requirements.filter((r) => r.class === 'core' && r.applicable);
  expect(core.map((r) => r.id)).toEqual(expect.arrayContaining(['CORE-SANDBOX-OPEN', 'CORE-ROUTE-ANSWERS', 'CORE-CAR-RECORD', 'CORE-ERROR-BODY']));
  expect(c.requirements.find((r) => r.id === 'CORE-AUTH-REQUIRED')!.applicable).toBe(false);
});

test('--certify refuses what narrows the run', () => {
  for (const narrowing of [['--grep', 'x'], ['--shard', '1/2'], ['--baseline', 'package.json'], ['--last-failed'], ['users.spec.ts'], ['-x']]) {
    expect(() => parseArgs(['--certify', ...narrowing]), narrowing.join(' ')).toThrow(UsageError);
  }
  expect(parseArgs(['--certify', '--target', 'local']).env.VDS_CERTIFY).toBe('1');
});

test('--max-failures 1 with the route groups side by side: what Playwright cut off in the other worker is not run, never the suite broken; the verdict stands (exit 1)', async () => {
  test.setTimeout(300_000);
  const reference = await startReference({ fault: 'error-body-object-not-array' });
  try {
    const run = await cli(['--max-failures', '1'], { target: reference.targetFile, env: { VDS_WORKERS: '2' } });
    const c = certificateIn(run.reportsDir);
    expect(run.code, run.output.slice(-2000)).toBe(EXIT.failed);
    expect(c.run.errors, run.output.slice(-2000)).toEqual([]);
    expect(c.counts.checks.failed).toBeGreaterThan(0);
    const reasons = c.requirements.flatMap((r) => r.notRun.map((n) => n.reason));
    expect(reasons.some((r) => /--max-failures/.test(r))).toBe(true);
    // The sign-in checks in flight in the other worker see its browser closed: the stop's, not a defect of the suite.
    expect(c.counts.checks.notRunBySuite ?? 0, reasons.filter((r) => /suite broke/.test(r)).join('\n')).toBe(0);
  } finally {
    await reference.stop();
  }
});
