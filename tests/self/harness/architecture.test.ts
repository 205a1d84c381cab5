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
