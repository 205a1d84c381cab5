// The README's table of options and environment variables, rendered from src/options/options.ts
// (OPTION_VARIABLES): `npx tsx scripts/options-doc.ts` rewrites it between its markers; the options'
// test fails when the README's table is not this one.
import fs from 'node:fs';
import path from 'node:path';
import { OPTION_VARIABLES } from '../src/options/options';

const README = path.resolve(__dirname, '..', 'README.md');
export const BEGIN = '<!-- options:begin (npx tsx scripts/options-doc.ts) -->';
export const END = '<!-- options:end -->';

export function renderOptionsTable(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = OPTION_VARIABLES.map(
    (o) =>
      `| \`${o.name}\` | ${
        o.flag
          ? o.flag
              .split(', ')
              .map((f) => `\`${f}\``)
              .join(', ')
          : ''
      } | ${cell(o.meaning)}${o.internal ? ' (set by the suite)' : ''} |`,
  );
  return [BEGIN, '| variable | flag | meaning |', '|---|---|---|', ...rows, END].join('\n');
}

export function readmeOptionsTable(text = fs.readFileSync(README, 'utf8')): string | undefined {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  return start < 0 || end < start ? undefined : text.slice(start, end + END.length);
}

if (require.main === module) {
  const text = fs.readFileSync(README, 'utf8');
  const current = readmeOptionsTable(text);
  if (!current) throw new Error(`README.md has no ${BEGIN} ... ${END} block`);
  fs.writeFileSync(README, text.replace(current, renderOptionsTable()));
  console.log('wrote the options table of README.md');
}
