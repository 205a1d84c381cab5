// Comments say why: every comment that silences the linter says why (`-- reason`), so that a reader
// learns what the rule would have wrongly flagged (the lint stage, --report-unused-disable-directives,
// drops the ones that silence nothing); and no comment says when (a date, an issue number: git keeps
// that). Comments are read as the parser reads them (oxc-parser): a date in a string is not a comment.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parseSync } from 'oxc-parser';

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

/**
 * A date (a year and month, with or without the day) or an issue number in a comment: when something
 * was measured or asked for, which git keeps; a comment says why. A year and month alone of 2020-12 is
 * JSON Schema's dialect, not a date.
 */
const WHEN = /\b20\d\d-[01]\d(?:-[0-3]\d)?\b|\bissues? #?\d+/gi;

/** The comments of a source text that say when, as "line: what". */
function datedComments(file: string, text: string): string[] {
  return parseSync(file, text).comments.flatMap((c) => {
    const found = [...c.value.matchAll(WHEN)].filter((m) => m[0] !== '2020-12');
    if (!found.length) return [];
    const line = text.slice(0, c.start + 2 + (found[0].index ?? 0)).split('\n').length;
    return [`${line}: ${found.map((m) => m[0]).join(', ')}`];
  });
}

test('a comment with a date or an issue number is found; a version of JSON Schema, or a date in code, is not', () => {
  const text = [
    `// Measured ${'2026-11'}-27 on this machine`,
    `const x = "${'2026-11'}-27T10:00:00Z"; /* asked in ${'issue'} 26 */`,
    '// the contracts are JSON Schema 2020-12',
    '/** As "YYYY-MM-DD hh:mm" (UTC), once a month (2026-11). */',
  ].join('\n');
  expect(datedComments('x.ts', text)).toEqual([`1: ${'2026-11'}-27`, '2: issue 26', '4: 2026-11']);
});

test('no comment of the code says when (a date, an issue number): history lives in git', () => {
  const found = LINTED.flatMap((dir) => sources(path.join(ROOT, dir))).flatMap((file) =>
    datedComments(file, fs.readFileSync(file, 'utf8')).map((hit) => `${path.relative(ROOT, file)}:${hit}`),
  );
  expect(found).toEqual([]);
});
