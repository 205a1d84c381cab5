// The suite's name and version, as its package.json states them (certificates and archives name them),
// and where the suite is: its own folder (package.json, contracts/, fixtures/targets/, docs/) and the
// code that runs, either the TypeScript sources (the self-tests, the maintainers' scripts) or their
// compiled form in dist/ (the command, Playwright's runner and workers, the reference: scripts/build.cjs).
// dist/ mirrors the sources' tree, so a module finds its siblings by its own folder either way.
import fs from 'node:fs';
import path from 'node:path';

/** The folder of the running code: the suite's root from the sources, its dist/ when compiled. */
const CODE_ROOT = path.resolve(__dirname, '..', '..');

/** The suite's own folder, the one with package.json (the compiled code sits one level down, in dist/). */
export const SUITE_ROOT = fs.existsSync(path.join(CODE_ROOT, 'package.json')) ? CODE_ROOT : path.dirname(CODE_ROOT);

/** The running code's file ending: `.ts` from the sources, `.js` compiled. */
export const CODE_EXT = path.extname(__filename);

/** A file of the running code, by its path from the suite's root without its ending (`tests/conformance`, `playwright.config`). */
export function codePath(...parts: string[]): string {
  return path.join(CODE_ROOT, ...parts);
}

export function suiteInfo(): { name: string; version: string } {
  const pkg = JSON.parse(fs.readFileSync(path.join(SUITE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}
