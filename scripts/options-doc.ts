// The table of options and environment variables of docs/options.md, rendered from
// src/options/options.ts (OPTION_VARIABLES): `npx tsx scripts/options-doc.ts` rewrites it between its
// markers; the options' test fails when the guide's table is not this one.
import path from 'node:path';
import { OPTION_VARIABLES } from '../src/options/options';
import { writeBlock, type GeneratedBlock } from './generated-block';

function renderOptionsTable(): string {
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
  return ['| variable | flag | meaning |', '|---|---|---|', ...rows].join('\n');
}

export const OPTIONS_TABLE: GeneratedBlock = {
  file: path.resolve(__dirname, '..', 'docs', 'options.md'),
  begin: '<!-- options:begin (npx tsx scripts/options-doc.ts) -->',
  end: '<!-- options:end -->',
  render: renderOptionsTable,
};

if (require.main === module) writeBlock(OPTIONS_TABLE);
