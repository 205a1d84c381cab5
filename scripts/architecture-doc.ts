// The top of docs/ARCHITECTURE.md, rendered from src/layers.yaml (the folders, each one's job and what
// it may import, which .dependency-cruiser.cjs enforces): a diagram of the layers (each arrow "may
// import", drawn only where no longer path says it already) and the table. `npm run architecture`
// rewrites it between its markers; a test fails when the document is not this.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { writeBlock, type GeneratedBlock } from './generated-block';

const ROOT = path.resolve(__dirname, '..');

interface Layers {
  folders: Record<string, { job: string; imports: string[] }>;
}

export function readLayers(): Layers {
  return YAML.parse(fs.readFileSync(path.join(ROOT, 'src', 'layers.yaml'), 'utf8')) as Layers;
}

/** The arrows no longer path implies (a transitive reduction of "may import"). */
function directEdges(folders: Layers['folders']): Array<[string, string]> {
  const reach = (from: string, seen = new Set<string>()): Set<string> => {
    for (const to of folders[from]?.imports ?? [])
      if (!seen.has(to)) {
        seen.add(to);
        reach(to, seen);
      }
    return seen;
  };
  const edges: Array<[string, string]> = [];
  for (const [from, { imports }] of Object.entries(folders)) {
    for (const to of imports) {
      const implied = imports.some((other) => other !== to && reach(other).has(to));
      if (!implied) edges.push([from, to]);
    }
  }
  return edges;
}

function renderLayers(layers = readLayers()): string {
  const id = (f: string) => f.replace(/[^a-z]/g, '_');
  const label = (f: string) => f.replace(/^src\//, '');
  const diagram = [
    '```mermaid',
    'flowchart TD',
    ...Object.keys(layers.folders).map((f) => `  ${id(f)}["${f}"]`),
    ...directEdges(layers.folders).map(([from, to]) => `  ${id(from)} --> ${id(to)}`),
    '```',
  ];
  const table = [
    '| folder | its one job | may import (besides itself) |',
    '|---|---|---|',
    ...Object.entries(layers.folders).map(
      ([f, { job, imports }]) => `| \`${f}/\` | ${job.replace(/\|/g, '\\|')} | ${imports.map(label).join(', ') || 'nothing of the project'} |`,
    ),
  ];
  return [...diagram, '', ...table].join('\n');
}

export const LAYERS_BLOCK: GeneratedBlock = {
  file: path.join(ROOT, 'docs', 'ARCHITECTURE.md'),
  begin: '<!-- layers:begin (npm run architecture, from src/layers.yaml) -->',
  end: '<!-- layers:end -->',
  render: renderLayers,
};

if (require.main === module) writeBlock(LAYERS_BLOCK);
