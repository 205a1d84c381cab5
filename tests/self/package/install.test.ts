// The suite as an installed command: packed with `npm pack`, installed into an empty folder, and run
// from there as a vendor would:
//   - against the package's own embedded reference (--target local) and against a target file of that
//     folder; `vds-conformance init` writes a target file and a .env; its help, the Allure report
//     (`report`) and the refusal of an unknown subcommand, from the package alone;
//   - a vendor's journey (vendor-journey.ts): a conforming implementation that is not ours, reached
//     by name over HTTPS with a private authority, OAuth credentials only and tokenCommands.revoked,
//     from init to a certification that passes, its archive verified, its Allure report built;
//   - all of it compiled JavaScript: no TypeScript loader is installed with it, and no .ts file is
//     compiled by any process of any of those runs (the command, the runner, its workers, the reference).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { startReference, freshRunEnv } from '../../../scripts/reference-process';
import { vendorJourney } from './vendor-journey';

const ROOT = path.resolve(__dirname, '../../..');
/** Preloaded into every process of the package's runs (NODE_OPTIONS): each module Node compiles, by file name, into LOADED. */
const WATCH = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-loaded-'));
const LOADED = path.join(WATCH, 'loaded.txt');
fs.writeFileSync(
  path.join(WATCH, 'watch.cjs'),
  `const fs = require('node:fs');
const Module = require('node:module');
const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  fs.appendFileSync(${JSON.stringify(LOADED)}, filename + '\\n');
  return compile.apply(this, arguments);
};
`,
);

function npx(cwd: string, args: string[], timeoutMs = 180_000) {
  return spawnSync('npx', ['--no-install', 'vds-conformance', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...freshRunEnv(process.env), CI: '1', NODE_OPTIONS: `--require ${path.join(WATCH, 'watch.cjs')}` },
  });
}

test.describe.serial('the installed package', () => {
  test.describe.configure({ timeout: 900_000 });
  let folder = '';

  test.beforeAll(async () => {
    test.setTimeout(600_000);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-package-'));
    const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!;
    folder = path.join(work, 'user');
    fs.mkdirSync(folder);
    execFileSync('npm', ['init', '-y'], { cwd: folder, stdio: 'ignore' });
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(work, tarball)], {
      cwd: folder,
      stdio: 'ignore',
      timeout: 300_000,
    });
  });

  test('init and run from there: help, a run, its Allure report, an unknown subcommand refused', async () => {
    const init = npx(folder, ['init']);
    expect(init.status, init.stderr).toBe(0);
    expect(fs.readFileSync(path.join(folder, 'my-target.yaml'), 'utf8')).toContain('baseUrl:');
    expect(fs.readFileSync(path.join(folder, '.env'), 'utf8')).toContain('VDS_CLIENT_ID=');
    expect(init.stdout).toContain('Certification readiness of my-target.yaml: ');

    const help = npx(folder, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: vds-conformance [options]');
    for (const sub of ['init', 'verify', 'report', 'merge', 'registry', 'help']) expect(help.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));

    const local = npx(folder, ['--target', 'local', '--grep', '@CORE-CAR-RECORD']);
    expect(local.status, `${local.stdout}${local.stderr}`.slice(-3000)).toBe(0);
    const certificate = JSON.parse(fs.readFileSync(path.join(folder, 'reports', 'conformance.json'), 'utf8')) as Certificate;
    expect(certificate.requirements.find((r) => r.id === 'CORE-CAR-RECORD')!.status).toBe('passed');
    // The commands it suggests are the installed command's.
    expect(local.stdout).toContain('allure-results/ (npx vds-conformance report)');

    // The Allure report, from the installed package alone (allure is one of its dependencies).
    const report = npx(folder, ['report']);
    expect(report.status, `${report.stdout}${report.stderr}`.slice(-3000)).toBe(0);
    expect(fs.existsSync(path.join(folder, 'reports', 'allure-report', 'index.html'))).toBe(true);
    expect(report.stdout).toContain("quality gate (the run's verdict): INCOMPLETE: ");

    // An unknown subcommand: refused (exit 2), never handed to the runner, the reports untouched.
    const listing = () => fs.readdirSync(path.join(folder, 'reports')).sort();
    const before = listing();
    const unknown = npx(folder, ['reprot']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toMatch(/^vds-conformance: unknown subcommand reprot \(did you mean report\?\)/);
    expect(listing()).toEqual(before);
    expect(fs.readFileSync(path.join(folder, 'reports', 'conformance.json'), 'utf8')).toBe(JSON.stringify(certificate, null, 2) + '\n');

    // A target file of the user's folder, relative to it.
    const reference = await startReference();
    try {
      fs.copyFileSync(reference.targetFile, path.join(folder, 'mine.yaml'));
      const mine = npx(folder, ['--target', './mine.yaml', '--grep', '@ERR-CAR-NOT-FOUND']);
      // The run before it is kept, packed (its certificate among its files).
      expect(fs.readdirSync(path.join(folder, 'reports', 'earlier-runs'))).toEqual([expect.stringMatching(/^run-.*-local\.tar\.gz$/)]);
      expect(mine.status, `${mine.stdout}${mine.stderr}`.slice(-3000)).toBe(0);
      const c = JSON.parse(fs.readFileSync(path.join(folder, 'reports', 'conformance.json'), 'utf8')) as Certificate;
      expect(c.target.baseUrl).toBe(`http://127.0.0.1:${reference.port}/v3`);
      expect(c.requirements.find((r) => r.id === 'ERR-CAR-NOT-FOUND')!.status).toBe('passed');
    } finally {
      await reference.stop();
    }
  });

  test("a vendor's journey, from init to a certification that passes", async () => {
    await vendorJourney(npx, folder);
  });

  test('it all ran compiled: no TypeScript loader installed, no .ts file compiled by any process', () => {
    expect(fs.existsSync(path.join(folder, 'node_modules', 'tsx')), 'tsx is not installed with the package').toBe(false);
    const loaded = [...new Set(fs.readFileSync(LOADED, 'utf8').trim().split('\n'))];
    const suite = path.join(folder, 'node_modules', 'vds-conformance');
    // The watch saw the runs: the command's, the runner's and workers', the reference's compiled modules.
    for (const file of ['dist/src/cli/main.js', 'dist/tests/conformance/users.spec.js', 'dist/src/engine/run-check.js', 'dist/reference-server/app.js']) {
      expect(loaded, file).toContain(path.join(suite, file));
    }
    expect(loaded.filter((f) => /\.[cm]?tsx?$/.test(f))).toEqual([]);
  });
});
