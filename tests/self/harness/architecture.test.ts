// The layers are one list (src/layers.yaml): the import rules are built from it, and
// docs/ARCHITECTURE.md shows it; the two stay equal.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { LAYERS_BLOCK, readLayers } from '../../../scripts/architecture-doc';
import { blockInDocument, renderedBlock } from '../../../scripts/generated-block';

const ROOT = path.resolve(__dirname, '../../..');

test('docs/ARCHITECTURE.md shows the layers of src/layers.yaml (run `npm run architecture` after a change)', () => {
  expect(blockInDocument(LAYERS_BLOCK)).toBe(renderedBlock(LAYERS_BLOCK));
});

test('every folder of src/ is a layer, and every layer a folder', () => {
  const folders = fs
    .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `src/${d.name}`);
  const layers = Object.keys(readLayers().folders).filter((f) => f.startsWith('src/'));
  expect(folders.sort()).toEqual([...layers].sort());
});

test('the import rules are built from the same list: a rule per layer', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the dependency-cruiser config is CommonJS
  const config = require(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Array<{ name: string }> };
  const names = config.forbidden.map((r) => r.name);
  for (const folder of Object.keys(readLayers().folders)) expect(names, folder).toContain(`layers:${folder}`);
  for (const rule of [
    'no-circular',
    'suite-never-imports-the-reference',
    'suite-never-imports-the-authorization-server',
    'reference-never-imports-the-suite',
    'checks-see-the-check-api-only',
    'rendering-never-decides-a-verdict',
  ]) {
    expect(names).toContain(rule);
  }
});

test("docs/ARCHITECTURE.md's project layout names every folder of src/, and no other", () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const layout = doc.slice(doc.indexOf('## Project layout'), doc.indexOf('\n## ', doc.indexOf('## Project layout') + 1));
  const inSrc = layout.slice(layout.indexOf('`src/`') + '`src/`'.length, layout.indexOf('`fixtures/`'));
  const named = [...inSrc.matchAll(/`([a-z-]+)\/`/g)].map((m) => `src/${m[1]}`);
  const folders = fs
    .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `src/${d.name}`);
  expect(named.sort()).toEqual(folders.sort());
});

test("the preparation's stages take the client they are given: src/setup makes one, in preparation.ts", () => {
  const setup = path.join(ROOT, 'src', 'setup');
  const making = fs
    .readdirSync(setup)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...fs.readFileSync(path.join(setup, f), 'utf8').matchAll(/new ApiClient\(/g)].map(() => `src/setup/${f}`));
  expect(making).toEqual(['src/setup/preparation.ts']);
});

test("docs/ARCHITECTURE.md's trail of a run names functions, types and files that exist", () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const trail = doc.slice(doc.indexOf("The target's trail"), doc.indexOf('In words:'));
  expect(trail.length).toBeGreaterThan(500);
  const files = ['src', 'fixtures', 'scripts', 'tests/conformance'].flatMap((dir) => sourcesUnder(path.join(ROOT, dir)));
  const code = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  const named = [...trail.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\(.*\)$/, ''));
  const missing = named.filter((name) => {
    if (/\.(ts|yaml)$/.test(name))
      return (
        !files.some((f) => f.endsWith(`/${name}`)) && !fs.existsSync(path.join(ROOT, name)) && !fs.existsSync(path.join(ROOT, 'fixtures', 'targets', name))
      );
    // A function, a type, or a member of one (a target file's key); not an environment variable, a flag, a command or a path of members.
    if (!/^[A-Za-z]\w*$/.test(name) || /^[A-Z_]+$/.test(name)) return false;
    return !new RegExp(`\\b(?:function|class|interface|type|const|let)\\s+${name}\\b|^\\s*${name}\\??:`, 'm').test(code);
  });
  expect(missing).toEqual([]);
});

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return sourcesUnder(full);
    return d.name.endsWith('.ts') || d.name.endsWith('.yaml') ? [full] : [];
  });
}
