// A block of a document rendered by a script, between two marker comments: read it (a test compares it
// with what the script renders now) and rewrite it. The options table of docs/options.md and the
// layers of docs/ARCHITECTURE.md are such blocks.
import fs from 'node:fs';
import path from 'node:path';

export interface GeneratedBlock {
  /** The document, absolute. */
  file: string;
  begin: string;
  end: string;
  render: () => string;
}

/** The block as the document has it, markers included; undefined when the markers are missing. */
export function blockInDocument(block: GeneratedBlock, text = fs.readFileSync(block.file, 'utf8')): string | undefined {
  const start = text.indexOf(block.begin);
  const end = text.indexOf(block.end);
  return start < 0 || end < start ? undefined : text.slice(start, end + block.end.length);
}

/** The block as rendered now, markers included. */
export function renderedBlock(block: GeneratedBlock): string {
  return [block.begin, block.render(), block.end].join('\n');
}

/** Rewrites the block in its document (the markers must be there). */
export function writeBlock(block: GeneratedBlock): void {
  const text = fs.readFileSync(block.file, 'utf8');
  const current = blockInDocument(block, text);
  const name = path.relative(path.resolve(__dirname, '..'), block.file);
  if (!current) throw new Error(`${name} has no ${block.begin} ... ${block.end} block`);
  fs.writeFileSync(block.file, text.replace(current, renderedBlock(block)));
  console.log(`wrote the generated block of ${name}`);
}
