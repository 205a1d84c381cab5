// The registry's folder: what it holds (its pages, registry.json and the schema of its shape, and
// each implementation's results, certificate and certificate data), written over the files an earlier
// build wrote and nothing else (a CNAME or other files of the publisher's stay), and what an earlier
// build left there that a new one keeps: which archives were verified, by hash, and how. That lets
// the registry keep archives of an earlier suite version, verified when they were added by that
// version, beside those the installed one verifies now.
import fs from 'node:fs';
import path from 'node:path';
import { renderHtml } from '../rendering/render-html';
import { SUITE_ROOT } from '../util/suite-info';
import type { Certificate } from '../verdict/model';
import { PAGES, renderChanges, renderIndex, renderMatrix, renderResults } from './pages';
import { implementationDir, REGISTRY_FORMAT, type EntryVerification, type Registry } from './registry';

/** The JSON Schema of registry.json, shipped with the suite's sources (compiled code has no copy) and copied into every site. */
export const SCHEMA_FILE = path.join(SUITE_ROOT, 'src', 'registry', PAGES.schema);

/** What a build writes in the folder, and so replaces. */
const WRITTEN = [PAGES.index, PAGES.matrix, PAGES.changes, PAGES.data, PAGES.schema, 'implementations'];

export class RegistryFolderError extends Error {}

/**
 * The verifications an earlier build of this folder recorded, by archive SHA-256; none when the folder
 * is new. A folder holding another site (pages of that name, but no registry.json of this shape) is
 * refused rather than written over.
 */
export function earlierVerifications(dir: string): Map<string, EntryVerification> {
  const found = new Map<string, EntryVerification>();
  if (!fs.existsSync(dir)) return found;
  if (!fs.statSync(dir).isDirectory()) throw new RegistryFolderError(`--out ${dir} is a file: give a folder (new, or one an earlier registry wrote)`);
  const data = path.join(dir, PAGES.data);
  if (!fs.existsSync(data)) {
    const ours = WRITTEN.filter((f) => fs.existsSync(path.join(dir, f)));
    if (ours.length)
      throw new RegistryFolderError(
        `--out ${dir} holds ${ours.join(', ')} but no ${PAGES.data}: not a registry this command wrote, so nothing of it is replaced. Give a new folder, or one an earlier registry wrote`,
      );
    return found;
  }
  let earlier: Partial<Registry>;
  try {
    earlier = JSON.parse(fs.readFileSync(data, 'utf8')) as Partial<Registry>;
  } catch (err) {
    throw new RegistryFolderError(`--out ${dir}: ${PAGES.data} is not JSON (${(err as Error).message}); nothing of the folder is replaced`);
  }
  if (earlier.format !== REGISTRY_FORMAT || !Array.isArray(earlier.implementations))
    throw new RegistryFolderError(`--out ${dir}: ${PAGES.data} is not a registry of format ${REGISTRY_FORMAT}; nothing of the folder is replaced`);
  for (const i of earlier.implementations) if (i?.archive?.sha256 && i.verification) found.set(i.archive.sha256, i.verification);
  return found;
}

/** Writes the site: the pages, registry.json and its schema, and each implementation's folder (`certificates`: by archive SHA-256). */
export function writeSite(dir: string, registry: Registry, certificates: Map<string, Certificate>): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of WRITTEN) fs.rmSync(path.join(dir, f), { recursive: true, force: true });
  for (const i of registry.implementations) {
    const c = certificates.get(i.archive.sha256)!;
    const folder = path.join(dir, implementationDir(i.id));
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'results.html'), renderResults(i, c));
    // The certificate rendered again from its verified data, not the archive's own page: the replay checked the data.
    fs.writeFileSync(path.join(folder, 'conformance.html'), renderHtml(c));
    fs.writeFileSync(path.join(folder, 'conformance.json'), `${JSON.stringify(c, null, 1)}\n`);
  }
  fs.writeFileSync(path.join(dir, PAGES.index), renderIndex(registry));
  fs.writeFileSync(path.join(dir, PAGES.matrix), renderMatrix(registry));
  fs.writeFileSync(path.join(dir, PAGES.changes), renderChanges(registry));
  fs.writeFileSync(path.join(dir, PAGES.data), `${JSON.stringify(registry, null, 1)}\n`);
  fs.copyFileSync(SCHEMA_FILE, path.join(dir, PAGES.schema));
}
