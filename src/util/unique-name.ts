// A file name no file has yet: what a command writes beside earlier results never replaces them.
import fs from 'node:fs';
import path from 'node:path';

/** `base + suffix` in `folder`, or `base-2 + suffix`, `base-3 + suffix`, ...: the first free one. */
export function uniqueName(folder: string, base: string, suffix: string): string {
  for (let n = 1; ; n++) {
    const file = path.join(folder, `${base}${n === 1 ? '' : `-${n}`}${suffix}`);
    if (!fs.existsSync(file)) return file;
  }
}
