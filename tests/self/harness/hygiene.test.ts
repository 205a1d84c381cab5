// Every comment that silences the linter says why (`-- reason`): a reader learns what the rule
// would have wrongly flagged, and the lint stage (--report-unused-disable-directives) drops the
// ones that silence nothing.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';

const ROOT = path.resolve(__dirname, '../../..');
/** The folders `npm run lint` reads (package.json). */
const LINTED = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.lint
  .split(' ')
  .filter((arg) => fs.existsSync(path.join(ROOT, arg)) && fs.statSync(path.join(ROOT, arg)).isDirectory());
/** A comment that silences the linter, and what follows the rule names. */
const DIRECTIVE = /(?:\/\/|\/\*)\s*(?:eslint|oxlint)-disable(?:-next-line|-line)?\b(.*)$/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const full = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : sources(full);
    return /\.(ts|js|cjs|mjs)$/.test(d.name) ? [full] : [];
  });
}

/** Directives of a text without a reason after ` -- `. */
function unexplainedDirectives(text: string): number[] {
  return text.split('\n').flatMap((line, i) => {
    const m = DIRECTIVE.exec(line);
    return m && !/\s--\s+\S/.test(m[1]) ? [i + 1] : [];
  });
}

test('a directive without a reason is found; one with a reason is not', () => {
  expect(unexplainedDirectives('// eslint-disable-next-line no-new\nnew X();')).toEqual([1]);
  expect(unexplainedDirectives('// eslint-disable-next-line no-new -- only to learn whether it parses\nnew X();')).toEqual([]);
  expect(unexplainedDirectives('/* oxlint-disable no-console */')).toEqual([1]);
});

test('no linter directive without a reason in the project', () => {
  const found = LINTED.flatMap((dir) => sources(path.join(ROOT, dir)))
    .filter((file) => file !== __filename)
    .flatMap((file) => unexplainedDirectives(fs.readFileSync(file, 'utf8')).map((line) => `${path.relative(ROOT, file)}:${line}`));
  expect(found).toEqual([]);
});
