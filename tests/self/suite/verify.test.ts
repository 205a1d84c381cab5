// `vds-conformance verify ARCHIVE` (src/cli/verify.ts, src/setup/replay.ts): a certification archive of the
// embedded reference is replayed offline (the reference stopped) and reproduces every verdict a
// replay can re-derive (the browser's checks are verified from the record only), the passed and the
// failed alike (a fault is injected: a few checks fail); an edited exchange makes its check's verdict
// differ, a removed one leaves a request without recorded answer, an archive of another suite version
// is refused (exit 2), and so is anything that is not an archive. The archive holds no secret.
// One certification is shared by the tests of the describe block (its beforeAll: a whole run, the
// costliest part); the tamper cases replay only their checks (--grep). That a clean run has no triage
// is command.test.ts's (every conforming server through the command).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { expect, test } from '@playwright/test';
import { parseArgs, UsageError } from '../../../src/cli/args';
import { VERIFICATION_FILE, VERIFY_DIR, type Verification } from '../../../src/cli/verify';
import { chooseBrowser } from '../../../src/setup/browser';
import type { ReplayContextFile } from '../../../src/setup/replay';
import type { RecordedCheck } from '../../../src/verdict/check-record';
import { keysPattern } from '../../../src/catalogue/selection';
import { EXIT } from '../../../src/verdict/exit-codes';
import type { Certificate } from '../../../src/verdict/model';
import { readJson, runCommand, startReference } from '../reporting/real-run';
import { Scanner } from '../reporting/scan';

const certify = (target: string) => runCommand(['conformance', '--certify'], { target, timeoutMs: 600_000 });
/** verify through the installed command's entry point (bin/vds-conformance.js), as a reviewer runs it. */
const verifyBin = (archive: string, extra: string[] = []) => runCommand(['vds-conformance', 'verify', archive, ...extra], { timeoutMs: 300_000 });
/** verify through npm run conformance -- --verify. */
const verifyCli = (archive: string, extra: string[] = []) => runCommand(['conformance', '--verify', archive, ...extra], { timeoutMs: 300_000 });
const verificationOf = (reportsDir: string) => readJson<Verification>(path.join(reportsDir, VERIFY_DIR, VERIFICATION_FILE));

function archiveIn(dir: string): string {
  const f = fs.readdirSync(dir).find((n) => /^certification-.*\.tar\.gz$/.test(n));
  if (!f) throw new Error(`no certification archive in ${dir}: ${fs.readdirSync(dir).join(', ')}`);
  return path.join(dir, f);
}

function extracted(archive: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-archive-'));
  tar.extract({ file: archive, cwd: out, sync: true });
  return out;
}

/** The archive again, after `edit` changed its extracted files. */
function edited(archive: string, edit: (dir: string) => void): string {
  const dir = extracted(archive);
  edit(dir);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-edited-')), path.basename(archive));
  tar.create({ gzip: true, file, cwd: dir, sync: true, portable: true }, fs.readdirSync(dir));
  return file;
}

function editJson<T>(file: string, edit: (value: T) => void): void {
  const value = readJson<T>(file);
  edit(value);
  fs.writeFileSync(file, JSON.stringify(value));
}

test('--verify takes its run from the archive: other run options are refused; verify ARCHIVE is the same', () => {
  expect(parseArgs(['--verify', 'a.tar.gz', '--grep', '@core']).verify).toMatch(/a\.tar\.gz$/);
  for (const other of [['--certify'], ['--target', 'local'], ['--baseline', 'package.json'], ['--gate', 'core'], ['--monitor']]) {
    expect(() => parseArgs(['--verify', 'a.tar.gz', ...other]), other.join(' ')).toThrow(UsageError);
  }
});

test('verify refuses what is not a certification archive: exit 2, one paragraph, no stack', async () => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-bad-'));
  const text = path.join(dir, 'notes.tar.gz');
  fs.writeFileSync(text, 'not an archive');
  const partial = path.join(dir, 'partial.tar.gz');
  fs.writeFileSync(path.join(dir, 'conformance.json'), '{}');
  tar.create({ gzip: true, file: partial, cwd: dir, sync: true }, ['conformance.json']);
  for (const [archive, why] of [
    [path.join(dir, 'missing.tar.gz'), /does not exist/],
    [text, /not a \.tar\.gz archive/],
    [partial, /lacks exchanges\.json, replay\.json/],
  ] as const) {
    const run = await verifyCli(archive);
    expect(run.code, run.output).toBe(EXIT.usage);
    expect(run.output).toMatch(why);
    expect(run.output).toContain('Nothing was replayed');
    expect(run.output).not.toMatch(/\n\s+at /);
  }
});

/** The fault the archive is made against: it fails QUERY-RANGE-DEFAULT and the profile's other checks of the default range (checks that read the clock), no core one. */
const FAULT = 'default-begin-paris-time';

test.describe('a certification archive of the embedded reference, with a fault', () => {
  test.describe.configure({ mode: 'serial' });
  let archive: string;
  let minted: string[];
  let made: Awaited<ReturnType<typeof certify>>;

  test.beforeAll(async () => {
    test.setTimeout(600_000);
    const reference = await startReference({ fault: FAULT });
    try {
      const run = await certify(reference.targetFile);
      made = run;
      expect(run.code, run.output.slice(-3000)).toBe(EXIT.failed);
      archive = archiveIn(run.reportsDir);
      minted = ((await (await fetch(`${reference.control}/issued`)).json()) as { secrets: string[] }).secrets;
    } finally {
      await reference.stop(); // from here on, offline: nothing answers at the archive's address
    }
  });

  test("--certify writes one archive: the certificate in its three forms and every check's exchanges, passed and failed", () => {
    // A cloud reference with every token is certifiable: core PASS (with a browser for the sign-in
    // page), profile FAIL for the fault's requirements.
    const c0 = readJson<Certificate>(path.join(made.reportsDir, 'conformance.json'));
    const failed = c0.requirements.filter((r) => r.failures.length);
    expect(
      failed.map((r) => r.id),
      made.output.slice(-3000),
    ).toContain('QUERY-RANGE-DEFAULT');
    expect(failed.filter((r) => r.class === 'core').map((r) => r.id)).toEqual([]);
    if (chooseBrowser().executablePath) expect(c0.verdict).toEqual({ core: 'PASS', profile: 'FAIL' });
    expect(path.basename(archive)).toMatch(/^certification-local-\d{4}-\d{2}-\d{2}\.tar\.gz$/);
    const out = extracted(archive);
    const c = readJson<Certificate>(path.join(out, 'conformance.json'));
    expect(c.certification?.suite.version).toBeTruthy();
    expect(c.certification?.suite.commit).toMatch(/^[0-9a-f]{40}$|unknown/);
    expect(c.certification?.suite.contentSha256).toMatch(/^[0-9a-f]{64}$/);
    const exchanges = readJson<Array<{ key: string; exchanges: unknown[] }>>(path.join(out, 'exchanges.json'));
    expect(exchanges.length).toBe(c.counts.checks.total); // every check of the run, passed, failed or not run
    expect(exchanges.filter((e) => e.exchanges.length > 0).length).toBeGreaterThan(400);
  });

  test('verify reproduces every replayable verdict, the failed ones too, offline; the browser checks are verified from the record only', async () => {
    test.setTimeout(300_000);
    const run = await verifyBin(archive);
    expect(run.code, run.output.slice(-4000)).toBe(EXIT.passed);
    const v = verificationOf(run.reportsDir);
    const c = readJson<Certificate>(path.join(extracted(archive), 'conformance.json'));
    expect(v.differ).toEqual([]);
    expect(v.noRecordedAnswer).toEqual([]);
    expect(v.replayed).toBe(c.counts.checks.total);
    expect(v.reproduced + v.recordOnly.length).toBe(v.replayed);
    // A browser drove the sign-in page when the archive was made: those checks cannot be replayed.
    if (chooseBrowser().executablePath) expect(v.recordOnly.map((r) => r.check)).toEqual(expect.arrayContaining(['SIGNIN-PAGE']));
    expect(v.reproduced).toBeGreaterThan(600);
    // The failing checks are replayed and fail again (the same verdict, the same reasons).
    const failing = c.requirements.flatMap((r) => r.failures.map((f) => f.check));
    expect(failing.length).toBeGreaterThan(0);
    expect(v.recordOnly.map((r) => r.check).filter((k) => failing.includes(k))).toEqual([]);
    expect(v.suite).toMatchObject({ sameContent: true });
    expect(run.output).toMatch(/\d+ of \d+ checks reproduced/);
    expect(run.output).toContain('verified from the record only');
    // One exit status: verify's, restating the certificate's verdict (its headline) and that the replay reproduced it.
    const headline = `${c.headline!.verdict}: ${c.headline!.reason}`;
    expect(c.headline!.verdict).toBe('FAIL');
    expect(run.output.split('\n').filter((l) => /Exit status/.test(l))).toEqual([
      `  Exit status 0: reproduced: the archive's exchanges give the certificate's verdict (${headline}), every replayable check as it states`,
    ]);
  });

  test('the archive records what a replay needs and no secret', () => {
    const dir = extracted(archive);
    expect(fs.readdirSync(dir).sort()).toEqual(['conformance.html', 'conformance.json', 'conformance.md', 'exchanges.json', 'replay.json']);
    const context = readJson<ReplayContextFile>(path.join(dir, 'replay.json'));
    expect(context.run.tokenKeys).toEqual(expect.arrayContaining(['full', 'otherUser', 'noScopes', 'withoutScope.cars_read']));
    expect(context.target.oauth?.clientSecret).toBe('replay-secret-oauth.clientSecret');
    expect(context.run.data.carId).toBeTruthy();
    const checks = readJson<RecordedCheck[]>(path.join(dir, 'exchanges.json'));
    const answered = checks.flatMap((c) => c.exchanges).filter((e) => e.status !== undefined);
    expect(
      answered.every((e) => typeof e.body === 'string'),
      'every answer recorded whole',
    ).toBe(true);
    expect(checks.flatMap((c) => c.exchanges).filter((e) => e.credential).length).toBeGreaterThan(400);

    const clients: Array<[string, string]> = [
      ['vds-conformance', 'reference-client-secret'],
      ['vds-limited', 'limited-client-secret'],
    ];
    const basic = clients.map(([id, secret]) => Buffer.from(`${id}:${secret}`).toString('base64'));
    const secrets = [...minted, ...clients.map(([, s]) => s), ...basic, 'alice-password', 'bob-password'].filter((s) => s.length >= 6);
    expect(minted.length).toBeGreaterThan(5);
    const scanner = new Scanner(secrets, ['CORE-CAR-RECORD', 'replay-secret-oauth.clientSecret']);
    scanner.scanTree(dir);
    expect(scanner.result.hits.map((h) => `${h.where}: ${h.context}`)).toEqual([]);
    expect(scanner.result.markers['CORE-CAR-RECORD'].length).toBeGreaterThan(0);
    expect(scanner.result.markers['replay-secret-oauth.clientSecret'].length).toBeGreaterThan(0);
  });

  test('an edited answer makes its check differ, a removed one leaves a request without recorded answer (verify --grep)', async () => {
    test.setTimeout(300_000);
    const editedCheck = 'RESP-STATUS GET /users/me';
    const removedCheck = 'CORE-ROUTE-ANSWERS GET /users/me/cars';
    const tampered = edited(archive, (dir) =>
      editJson<RecordedCheck[]>(path.join(dir, 'exchanges.json'), (checks) => {
        const answer = checks.find((c) => c.key === editedCheck)!.exchanges[0];
        expect(answer.status).toBe(200);
        answer.status = 500;
        checks.find((c) => c.key === removedCheck)!.exchanges.pop();
      }),
    );
    const run = await verifyCli(tampered, ['--grep', keysPattern([editedCheck, removedCheck])]);
    expect(run.code, run.output.slice(-4000)).toBe(EXIT.failed);
    const v = verificationOf(run.reportsDir);
    expect(v.replayed).toBe(2);
    expect(v.differ).toEqual([expect.objectContaining({ check: editedCheck, certificate: 'passed', replay: 'failed' })]);
    expect(v.noRecordedAnswer).toEqual([
      expect.objectContaining({ check: removedCheck, requests: [expect.stringMatching(/^GET \S+\/v3\/users\/me\/cars \(credential full\)$/)] }),
    ]);
    expect(run.output).toContain(`${editedCheck}: certificate passed, replay failed`);
    expect(run.output).toContain('has no recorded answer for (an edited or incomplete archive)');
  });

  test('an archive made by another suite version is refused, naming both versions (exit 2)', async () => {
    test.setTimeout(120_000);
    const other = edited(archive, (dir) =>
      editJson<Certificate>(path.join(dir, 'conformance.json'), (c) => {
        c.certification!.suite.version = '0.0.9';
      }),
    );
    const run = await verifyBin(other);
    expect(run.code, run.output).toBe(EXIT.usage);
    const installed = readJson<{ version: string }>(path.join(__dirname, '../../../package.json')).version;
    expect(run.output).toContain(`made by vds-conformance 0.0.9; the installed suite is ${installed}`);
    expect(run.output).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(run.reportsDir, VERIFY_DIR, VERIFICATION_FILE))).toBe(false);
  });
});
