// The compiled suite (scripts/build.cjs): what the command and the reference run is dist/, and in a
// clone it can never be stale. In a copy of the project's sources: the first start compiles them, the
// next reuses dist/ untouched, a changed source is compiled again before it runs, a new source file is
// picked up with no list to keep, and a removed one leaves no compiled file behind (a spec file left
// in dist/ would still run).
import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VARIANTS } from '../../../reference-server/variants';

const ROOT = path.resolve(__dirname, '../../..');
const COPIED = [
  'src',
  'fixtures',
  'reference-server',
  'tests/conformance',
  'contracts',
  'playwright.config.ts',
  'scripts',
  'bin',
  'package.json',
  'tsconfig.json',
];

test('dist/ is compiled from the sources before anything runs, again whenever they change, never stale', () => {
  test.setTimeout(120_000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-build-'));
  for (const p of COPIED) fs.cpSync(path.join(ROOT, p), path.join(work, p), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'));
  const node = (...args: string[]) =>
    spawnSync(process.execPath, args, { cwd: work, encoding: 'utf8', timeout: 60_000, env: { ...process.env, VDS_BUILD_CHECKED: '' } });
  const reference = () => node('reference-server/start.cjs', '--list-variants');
  const digest = () => fs.readFileSync(path.join(work, 'dist', '.digest'), 'utf8');
  const compiled = (rel: string) => path.join(work, 'dist', rel);
  try {
    // No dist/ yet: the reference's start compiles the suite, then runs the compiled server.
    const first = reference();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(VARIANTS.length + 1);
    const made = digest();
    const mtime = fs.statSync(compiled('reference-server/variants.js')).mtimeMs;
    // The same sources: dist/ is used as it is.
    expect(reference().stdout).toBe(first.stdout);
    expect(fs.statSync(compiled('reference-server/variants.js')).mtimeMs).toBe(mtime);

    // A source changed: compiled again before the server starts, which shows the change.
    const variants = path.join(work, 'reference-server', 'variants.ts');
    fs.writeFileSync(variants, fs.readFileSync(variants, 'utf8').replace("name: 'newest-first'", "name: 'newest-first-renamed'"));
    const changed = reference();
    expect(changed.status, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/^newest-first-renamed\s/m);
    expect(digest()).not.toBe(made);

    // A new source file is compiled with no list to keep; once removed, its compiled file goes too. The
    // command (npm run conformance's preload, and the installed command's entry point) checks first.
    fs.writeFileSync(path.join(work, 'tests', 'conformance', 'extra.spec.ts'), '// A route group of its own.\nexport {};\n');
    const help = node('--require', './scripts/fresh.cjs', 'dist/scripts/conformance.js', '--help');
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: npm run conformance -- [options]');
    expect(fs.existsSync(compiled('tests/conformance/extra.spec.js'))).toBe(true);
    fs.rmSync(path.join(work, 'tests', 'conformance', 'extra.spec.ts'));
    const bin = node('bin/vds-conformance.js', '--help');
    expect(bin.status, bin.stderr).toBe(0);
    expect(fs.existsSync(compiled('tests/conformance/extra.spec.js'))).toBe(false);
    expect(fs.existsSync(compiled('tests/conformance/users.spec.js'))).toBe(true);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});
