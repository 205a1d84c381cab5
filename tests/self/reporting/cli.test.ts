// The command-line wrapper (scripts/conformance.ts): its flags, its refusals (one line, exit 2), and
// the gates it wires end to end: core verdict, --update-baseline, --baseline, --compare, --monitor.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { loadTargetFromEnv } from '../../../src/setup/run-target';
import type { Certificate } from '../../../src/verdict/model';
import { parseArgs, UsageError } from '../../../src/cli/args';
import { clearReports } from '../../../src/cli/reports-folder';
import { readJson, runCommand, startReference } from './real-run';

test('own flags become environment; everything else goes to playwright test intact', () => {
  const inv = parseArgs([
    '--target',
    'sandbox',
    '--monitor',
    '--grep',
    '@core',
    '-G',
    '@minor',
    '--workers=4',
    '--shard',
    '1/3',
    'users.spec.ts',
    '--update-baseline',
  ]);
  expect(inv.env).toMatchObject({ VDS_TARGET: 'sandbox', VDS_MONITOR: '1', VDS_GREP: '@core', VDS_GREP_INVERT: '@minor' });
  expect(inv.env.VDS_UPDATE_BASELINE).toMatch(/conformance-baseline\.yaml$/);
  expect(inv.playwrightArgs).toEqual(['--workers=4', '--shard', '1/3', 'users.spec.ts']);
  expect(parseArgs(['--update-baseline', 'known.yml']).env.VDS_UPDATE_BASELINE).toBe(path.resolve('known.yml'));
  expect(parseArgs(['--update-baseline', 'users.spec.ts']).playwrightArgs).toEqual(['users.spec.ts']);
  expect(parseArgs(['--grep=--a-pattern-that-looks-like-a-flag']).env.VDS_GREP).toBe('--a-pattern-that-looks-like-a-flag');
  expect(parseArgs(['-h']).help).toBe(true);
  expect(parseArgs(['--reporter', 'list']).notes.join()).toContain('--add-reporter');
});

test('bad flags are refused with one clear message', () => {
  const refused = (args: string[]) => {
    try {
      parseArgs(args);
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      return (err as Error).message;
    }
    return 'accepted';
  };
  expect(refused(['--target', 'nosuch'])).toMatch(/unknown target "nosuch": use one of .*local/);
  expect(refused(['--basline', 'x.yaml'])).toMatch(/^unknown option --basline \(did you mean --baseline\?\): .* Nothing was run; see --help$/);
  expect(refused(['--traget', 'local'])).toMatch(/^unknown option --traget \(did you mean --target\?\): /);
  // Neither the suite's nor one of playwright test's it knows: refused, never handed to the runner.
  expect(refused(['--frobnicate', 'on', '--workers', '2'])).toBe(
    "unknown option --frobnicate: neither an option of this suite nor one of playwright test's it passes on. Nothing was run; see --help",
  );
  expect(parseArgs(['--workers', '2', '--retries=1']).playwrightArgs).toEqual(['--workers', '2', '--retries=1']);
  // A word is a subcommand (first) or a route group; anything else is refused.
  expect(refused(['reprot'])).toMatch(/^unknown subcommand reprot \(did you mean report\?\): the subcommands are init, verify, report, merge, registry, help/);
  expect(refused(['--target', 'local', 'report'])).toMatch(
    /^unknown argument report: neither a subcommand \(init, verify, report, merge, registry, help, first\) nor a route group/,
  );
  expect(refused(['test'])).toMatch(/^unknown subcommand test: /);
  expect(parseArgs(['users']).playwrightArgs).toEqual(['users.spec.ts']);
  expect(parseArgs(['tests/conformance/devices.spec.ts', '--workers', '1']).playwrightArgs).toEqual(['devices.spec.ts', '--workers', '1']);
  expect(parseArgs(['report']).report).toBe(true);
  expect(refused(['report', 'now'])).toMatch(/^report takes no arguments/);
  expect(parseArgs(['init']).init).toBe('my-target.yaml');
  expect(parseArgs(['init', 'staging.yaml']).init).toBe('staging.yaml');
  expect(parseArgs(['help']).help).toBe(true);
  expect(parseArgs(['verify', 'package.json']).verify).toBe(path.resolve('package.json'));
  expect(refused(['verify'])).toMatch(/^verify needs the archive/);
  expect(refused(['--compare'])).toBe('--compare needs a value (see --help)');
  expect(refused(['--grep', '(unclosed'])).toMatch(/^--grep: not a regular expression/);
  expect(refused(['--compare', '/nonexistent/previous.json'])).toMatch(/file not found/);
  expect(refused(['--baseline', '/nonexistent/b.yaml'])).toMatch(/baseline file not found/);
  expect(refused(['--latency-ratio', '1.2'])).toBe('--latency-ratio only applies with --compare PATH');
  const previous = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-cli-')), 'x.json');
  fs.writeFileSync(previous, '{}');
  expect(refused(['--compare', previous])).toMatch(/not a conformance.json/);
  expect(refused(['--merge', previous])).toMatch(/is not a folder of blob reports/);
  expect(refused(['--merge', path.dirname(previous), '--grep', 'x'])).toMatch(/--merge takes no run options/);
  expect(parseArgs(['--merge', path.dirname(previous)]).merge).toBe(path.dirname(previous));
  expect(refused(['--latency-floor-ms', '50'])).toBe('--latency-floor-ms only applies with --compare PATH');
  expect(refused(['--compare', 'last', '--latency-floor-ms', 'soon'])).toMatch(/^--latency-floor-ms must be a number of milliseconds, 0 or more .*got "soon"/);
  expect(refused(['--compare', 'last', '--latency-ratio', '0.5'])).toMatch(/^--latency-ratio must be a number of at least 1/);
  expect(parseArgs(['--compare', 'last', '--latency-floor-ms', '250', '--latency-ratio', '2']).env).toMatchObject({
    VDS_LATENCY_FLOOR_MS: '250',
    VDS_LATENCY_RATIO: '2',
  });
  // --history: a folder, created at the end of the run when it does not exist yet; with --merge too.
  const nights = path.join(path.dirname(previous), 'nights');
  expect(parseArgs(['--history', nights]).env.VDS_HISTORY).toBe(nights);
  expect(parseArgs(['--merge', path.dirname(previous), '--history', nights]).env.VDS_HISTORY).toBe(nights);
  expect(refused(['--history', path.join(nights, 'a', 'b')])).toBe(
    `--history: ${path.join(nights, 'a', 'b')} is not a folder, nor one that can be made: its parent ${path.join(nights, 'a')} does not exist`,
  );
  expect(refused(['--history', previous])).toBe(`--history: ${previous} is a file, not a folder: give a folder for the nights`);
});

test('the wrapper exits 2 with one line on a bad flag, and prints its help', async () => {
  const bad = await runCommand(['conformance', '--target', 'nosuch'], { timeoutMs: 60_000 });
  expect(bad.code).toBe(2);
  expect(bad.output.trim().split('\n')).toEqual([expect.stringMatching(/^conformance: unknown target "nosuch"/)]);
  const ratio = await runCommand(['conformance', '--compare', 'package.json', '--latency-ratio', 'fast'], { timeoutMs: 60_000 });
  expect(ratio.code).toBe(2);
  const help = await runCommand(['conformance', '--help'], { timeoutMs: 60_000 });
  expect(help.code).toBe(0);
  expect(help.output).toContain('--update-baseline [PATH]');
});

test('--history inside the reports folder is refused (every run empties it): exit 2, one line', async () => {
  const reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
  const inside = await runCommand(['conformance', '--history', path.join(reportsDir, 'nights')], { reportsDir, timeoutMs: 60_000 });
  expect(inside.code).toBe(2);
  expect(inside.output).toMatch(/^conformance: --history: .*nights is inside the reports folder .*, which every run empties/m);
});

test('a reports folder that is a file is refused before anything runs: exit 2, one line naming it and the fix', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-')), 'not-a-folder');
  fs.writeFileSync(file, 'mine\n');
  const run = await runCommand(['conformance'], { reportsDir: file, timeoutMs: 60_000 });
  expect(run.code).toBe(2);
  expect(run.output.trim().split('\n')).toEqual([
    `conformance: the reports folder ${file} is a file, not a folder: set VDS_REPORTS_DIR to a folder of yours (it is made if missing), or unset it for reports/`,
  ]);
  expect(fs.readFileSync(file, 'utf8')).toBe('mine\n'); // nothing lost
});

test("clearing the reports folder keeps README.md and the self-tests' folders", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-clear-'));
  for (const d of ['allure-results', 'html', 'self']) fs.mkdirSync(path.join(dir, d));
  for (const f of ['README.md', 'conformance.json', 'allure-results/old.json']) fs.writeFileSync(path.join(dir, f), 'x');
  clearReports(dir);
  expect(fs.readdirSync(dir).sort()).toEqual(['README.md', 'self']);
});

test('--monitor makes any target read-only', () => {
  expect(loadTargetFromEnv({ VDS_TARGET: 'local' }).allowWrites).toBe(true);
  expect(loadTargetFromEnv({ VDS_TARGET: 'local', VDS_MONITOR: '1' }).allowWrites).toBe(false);
});

test('gates end to end: a failing requirement exits 1; a baseline of it exits 0; fixed entries and changes are listed', async () => {
  test.setTimeout(600_000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-gates-'));
  const baseline = path.join(work, 'known.yaml');
  const cli = (target: string, args: string[]) => runCommand(['conformance', '--grep', 'CORE-CAR-RECORD', ...args], { target, timeoutMs: 300_000 });
  const certificateOf = (dir: string) => readJson<Certificate>(path.join(dir, 'conformance.json'));

  const faulty = await startReference({ fault: 'car-date-zulu' });
  let failing;
  let recorded;
  let known;
  try {
    failing = await cli(faulty.targetFile, []);
    recorded = await cli(faulty.targetFile, ['--update-baseline', baseline]);
    known = await cli(faulty.targetFile, ['--baseline', baseline, '--monitor']);
  } finally {
    await faulty.stop();
  }
  expect(failing.code, failing.output.slice(-3000)).toBe(1);
  expect(failing.output).toMatch(/core\s+FAIL/);
  expect(certificateOf(failing.reportsDir).gate).toMatchObject({ status: 'failed', rule: 'conformance gate (core and profile)', classes: 'all' });
  expect(failing.output).toContain('the core verdict is FAIL: CORE-CAR-RECORD');

  expect(recorded.code, recorded.output.slice(-3000)).toBe(0);
  const written = fs.readFileSync(baseline, 'utf8');
  expect(written).toContain('- requirement: CORE-CAR-RECORD');
  expect(written).toContain('"CORE-CAR-RECORD GET /users/{userId}/cars"');

  expect(known.code, known.output.slice(-3000)).toBe(0);
  const k = certificateOf(known.reportsDir);
  expect(k.verdict.core).toBe('FAIL'); // the certificate still shows the true state
  expect(k.baseline!.known.length).toBeGreaterThan(0);
  expect(k.baseline!.regressions).toEqual([]);
  expect(k.run.monitor).toBe(true);
  expect(k.target.allowWrites).toBe(false);
  expect(k.latency['GET /users/{userId}/cars'].count).toBeGreaterThan(0);
  expect(k.serverLatency!.routes['GET /users/me/cars'].count).toBe(5); // read-only routes are sampled under --monitor too

  const clean = await startReference();
  let fixed;
  try {
    fixed = await cli(clean.targetFile, ['--baseline', baseline, '--compare', path.join(failing.reportsDir, 'conformance.json')]);
  } finally {
    await clean.stop();
  }
  expect(fixed.code, fixed.output.slice(-3000)).toBe(0);
  expect(fixed.output).toContain('fixed: remove from the baseline: the whole CORE-CAR-RECORD entry');
  const changes = fs.readFileSync(path.join(fixed.reportsDir, 'changes.md'), 'utf8');
  expect(changes).toContain('CORE-CAR-RECORD (core): failed -> passed');
  expect(changes).toContain('Nothing got worse');
});
