// The command's subcommands and refusals, both ways it is invoked (the installed `vds-conformance`,
// bin/vds-conformance.js; `npm run conformance --` in a clone, scripts/conformance.ts): --help names the
// command as it was invoked and lists every subcommand; an unknown subcommand or option is refused with
// one line and exit 2 before anything runs, the reports folder untouched; and no command loses an
// earlier run's reports (the previous run packed into earlier-runs/, a certification archive never
// replaced). The installed package runs them too (tests/self/package/install.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { expect, test } from '@playwright/test';
import { earlierRunsPacked, prepareReportsFolder } from '../../../src/cli/reports-folder';
import { writeCertificationArchive } from '../../../src/certification/archive';
import { certificate, check, requirement } from './synthetic';
import { runCommand } from './real-run';

const BIN = ['vds-conformance'];
const NPM = ['conformance'];

/** Every file of a folder with its content: what "untouched" compares. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** A reports folder holding a previous run's files. */
function previousRun(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
  const c = certificate([requirement('A')], [check('A', 'GET /x', 'passed')]);
  fs.writeFileSync(path.join(dir, 'conformance.json'), JSON.stringify(c));
  fs.writeFileSync(path.join(dir, 'conformance.md'), '# the vendor certificate\n');
  fs.mkdirSync(path.join(dir, 'allure-results'));
  fs.writeFileSync(path.join(dir, 'allure-results', 'x-result.json'), '{}');
  fs.writeFileSync(path.join(dir, 'certification-acme-2026-11-25.tar.gz'), 'an archive');
  return dir;
}

for (const [invokedAs, command] of [
  ['vds-conformance', BIN],
  ['npm run conformance --', NPM],
] as const) {
  test(`${invokedAs} --help names the command and lists every subcommand`, async () => {
    const help = await runCommand([...command, '--help'], { timeoutMs: 60_000 });
    expect(help.code).toBe(0);
    expect(help.output).toContain(`Usage: ${invokedAs} [options] [playwright test options]`);
    for (const sub of ['init [TARGET-FILE]', 'verify ARCHIVE', 'report', 'merge DIR', 'registry ARCHIVE... --out DIR', 'help'])
      expect(help.output).toMatch(new RegExp(`^  ${sub.replace(/[[\]]/g, '\\$&')} `, 'm'));
    expect(help.output).not.toContain(invokedAs === 'vds-conformance' ? 'npm run conformance' : 'Usage: vds-conformance');
    const word = await runCommand([...command, 'help'], { timeoutMs: 60_000 });
    expect(word.output).toBe(help.output);
  });

  test(`${invokedAs}: an unknown subcommand or option exits 2 with one line, never reaching the runner; the reports folder untouched`, async () => {
    const reportsDir = previousRun();
    const before = snapshot(reportsDir);
    for (const args of [
      ['reprot'],
      ['--target', 'local', 'report'],
      ['--frobnicate'],
      ['init', 'a.yaml', 'b.yaml'],
      ['registry', 'a.tar.gz', '--ot', 'site'],
    ]) {
      const run = await runCommand([...command, ...args], { reportsDir, timeoutMs: 60_000 });
      expect(run.code, `${args.join(' ')}: ${run.output}`).toBe(2);
      const lines = run.output.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${invokedAs === 'vds-conformance' ? 'vds-conformance' : 'conformance'}: `));
      expect(run.output).not.toMatch(/Running \d+ checks|Target /);
      expect(snapshot(reportsDir), `${args.join(' ')}: the reports folder`).toEqual(before);
    }
  });
}

test('report without a run says so (exit 2), the folder untouched', async () => {
  const reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
  const run = await runCommand([...BIN, 'report'], { reportsDir, timeoutMs: 60_000 });
  expect(run.code).toBe(2);
  expect(run.output.trim()).toMatch(
    /^vds-conformance: no Allure results in .*allure-results: run the suite first \(vds-conformance --target \.\.\.\), then vds-conformance report$/,
  );
  expect(fs.readdirSync(reportsDir)).toEqual([]);
});

test("a run keeps the previous run's reports: packed in earlier-runs/, its certificate in previous/; archives stay", () => {
  const dir = previousRun();
  const before = snapshot(dir);
  prepareReportsFolder(dir, []);
  expect(fs.readdirSync(dir).sort()).toEqual(['certification-acme-2026-11-25.tar.gz', 'earlier-runs', 'previous']);
  const [pack] = fs.readdirSync(path.join(dir, 'earlier-runs'));
  expect(pack).toMatch(/^run-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-synthetic\.tar\.gz$/);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-unpacked-'));
  tar.extract({ file: path.join(dir, 'earlier-runs', pack), cwd: out, sync: true });
  const kept = snapshot(out);
  for (const f of ['conformance.json', 'conformance.md', 'allure-results/x-result.json']) expect(kept[f], f).toBe(before[f]);
  expect(fs.readFileSync(path.join(dir, 'previous', 'conformance.md'), 'utf8')).toBe(before['conformance.md']);
  // The next run again: another pack beside it, never over it.
  fs.writeFileSync(path.join(dir, 'conformance.json'), before['conformance.json']);
  prepareReportsFolder(dir, []);
  expect(fs.readdirSync(path.join(dir, 'earlier-runs'))).toHaveLength(2);
});

test("a run's command packs the previous run beside its own, and what a stopped command left is packed by the next", async () => {
  const dir = previousRun();
  const before = snapshot(dir);
  prepareReportsFolder(dir, [], { packLater: true });
  // At once: the folder is the new run's, the certificate in previous/, the files set aside in earlier-runs/.
  expect(fs.readdirSync(dir).sort()).toEqual(['certification-acme-2026-11-25.tar.gz', 'earlier-runs', 'previous']);
  expect(fs.readFileSync(path.join(dir, 'previous', 'conformance.md'), 'utf8')).toBe(before['conformance.md']);
  await earlierRunsPacked();
  const [pack, ...others] = fs.readdirSync(path.join(dir, 'earlier-runs'));
  expect(others).toEqual([]);
  expect(pack).toMatch(/^run-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z-synthetic\.tar\.gz$/);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-unpacked-'));
  tar.extract({ file: path.join(dir, 'earlier-runs', pack), cwd: out, sync: true });
  const kept = snapshot(out);
  for (const f of ['conformance.json', 'conformance.md', 'allure-results/x-result.json']) expect(kept[f], f).toBe(before[f]);

  // A command stopped while packing: its files set aside and a half-written pack. The next command
  // packs them first (never over the whole pack beside them), and the half pack goes.
  const aside = path.join(dir, 'earlier-runs', `.unpacked-${pack}`);
  fs.mkdirSync(path.join(aside, 'allure-results'), { recursive: true });
  fs.writeFileSync(path.join(aside, 'conformance.md'), 'the stopped run');
  fs.writeFileSync(path.join(aside, 'allure-results', 'y-result.json'), '{}');
  fs.writeFileSync(path.join(dir, 'earlier-runs', `${pack}.partial`), 'half');
  prepareReportsFolder(dir, [], { packLater: true });
  await earlierRunsPacked();
  const second = pack.replace(/\.tar\.gz$/, '-2.tar.gz');
  expect(fs.readdirSync(path.join(dir, 'earlier-runs')).sort()).toEqual([second, pack].sort());
  const left = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-unpacked-'));
  tar.extract({ file: path.join(dir, 'earlier-runs', second), cwd: left, sync: true });
  expect(snapshot(left)).toEqual({ 'conformance.md': 'the stopped run', 'allure-results/y-result.json': '{}' });
  expect(fs.readFileSync(path.join(dir, 'earlier-runs', pack)).length).toBeGreaterThan(0);
});

test('a second certification the same day gets an archive of its own', () => {
  const dir = previousRun();
  fs.rmSync(path.join(dir, 'certification-acme-2026-11-25.tar.gz'));
  const first = writeCertificationArchive(dir)!;
  const second = writeCertificationArchive(dir)!;
  expect(path.basename(first)).toMatch(/^certification-synthetic-\d{4}-\d{2}-\d{2}\.tar\.gz$/);
  expect(second).toBe(first.replace(/\.tar\.gz$/, '-2.tar.gz'));
  expect(fs.existsSync(first) && fs.existsSync(second)).toBe(true);
});
