// YAML documents (the contracts, the record schemas), parsed and checked, kept between runs in the
// system's temporary folder and keyed by the files' contents. Every process of a run loads the
// catalogue and the record schemas (the command's runner and each of its workers): parsing their YAML
// and compiling requirements.yaml's schema were most of what a one-check run spent on them. A change
// to any file read is a new key (so a new parse and a new check); a cache file that cannot be read or
// written is ignored.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeJsonWhole } from './write-whole';

/**
 * `parse` over `files` (read as text), or its earlier result for the same contents. `parse` must be a
 * pure function of the files' contents, and throw on what it refuses (a refusal is never kept).
 */
export function cachedParse<T>(files: string[], parse: (texts: string[]) => T, kind = 'contracts'): T {
  const texts = files.map((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : ''));
  const hash = crypto.createHash('sha256');
  for (const [i, text] of texts.entries()) hash.update(`${path.basename(files[i])}\0${text}\0`);
  const file = path.join(os.tmpdir(), `vds-${kind}-${hash.digest('hex').slice(0, 32)}.json`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    // Not kept yet, or unreadable: parsed below.
  }
  const parsed = parse(texts);
  try {
    writeJsonWhole(file, parsed);
  } catch {
    // A read-only temporary folder: parsed again next time.
  }
  return parsed;
}
