// README.md ("The project's own tests") and docs/CONTRIBUTING.md ("What `npm test` runs") say what
// `npm test` runs: each stage of scripts/self-test.ts must be named there, by the words its `doc` gives,
// so a stage added or dropped cannot leave the documents promising another list.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { stages } from '../../../scripts/self-test';

const ROOT = path.resolve(__dirname, '../../..');

/** The section of a Markdown document under `heading`, its whitespace made single spaces. */
function section(file: string, heading: string): string {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}`);
  expect(start, `${file} has a section "## ${heading}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end).replace(/\s+/g, ' ');
}

for (const [file, heading] of [
  ['README.md', "The project's own tests"],
  ['docs/CONTRIBUTING.md', 'What `npm test` runs'],
] as const) {
  test(`${file} names every stage of npm test`, () => {
    const text = section(file, heading);
    const missing = stages.filter((s) => !text.includes(s.doc)).map((s) => `${s.name} ("${s.doc}")`);
    expect(missing).toEqual([]);
  });
}
