// The reports folder before a run: the previous run's certificate moves to previous/ (so that
// `--compare last` and `--last-failed` need no extra step), a file the user passed in that lives
// in the folder is kept out of harm's way, and everything else of the previous run goes (an old
// Allure result would show as a retry). README.md, the project's own test output (self/, mutation/) and
// certification archives stay.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPORT_FILES } from '../options/paths';
import { UsageError } from './args';

export const PREVIOUS = 'previous';

/** A run's certificate files: what previous/ keeps of it. */
const CERTIFICATE_FILES = [REPORT_FILES.certificateJson, REPORT_FILES.certificateMd, REPORT_FILES.certificateHtml, REPORT_FILES.changes, REPORT_FILES.junit];

const KEEP = new Set(['README.md', 'self', 'mutation', PREVIOUS]);
const isArchive = (name: string) => /^certification-.*\.tar\.gz$/.test(name);

/**
 * The reports folder can be a folder of the run's: an existing folder it may write in, or one it can
 * make. Otherwise one line saying which folder and why (exit 2), before anything runs.
 */
export function checkReportsFolder(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  const fix = 'set VDS_REPORTS_DIR to a folder of yours (it is made if missing), or unset it for reports/';
  if (stat && !stat.isDirectory()) throw new UsageError(`the reports folder ${dir} is a file, not a folder: ${fix}`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new UsageError(`the reports folder ${dir} cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): ${fix}`);
  }
}

/** The previous run's certificate, before the folder is prepared (undefined when there was none). */
export function lastCertificate(dir: string): string | undefined {
  const file = path.join(dir, REPORT_FILES.certificateJson);
  return fs.existsSync(file) ? file : undefined;
}

/**
 * Prepares `dir` for a run. `inputs` are files the user passed (--compare, --baseline): any of them
 * inside `dir` is copied elsewhere first, and the returned map gives each its new path.
 */
export function prepareReportsFolder(dir: string, inputs: string[]): Map<string, string> {
  const moved = protectInputs(dir, inputs);
  if (!fs.existsSync(dir)) return moved;
  if (lastCertificate(dir)) {
    const previous = path.join(dir, PREVIOUS);
    fs.rmSync(previous, { recursive: true, force: true });
    fs.mkdirSync(previous);
    for (const f of CERTIFICATE_FILES) {
      if (fs.existsSync(path.join(dir, f))) fs.renameSync(path.join(dir, f), path.join(previous, f));
    }
  }
  clearReports(dir);
  return moved;
}

/** Copies each of `inputs` that lives inside `dir` to a folder of its own: the map gives its new path. */
export function protectInputs(dir: string, inputs: string[]): Map<string, string> {
  const moved = new Map<string, string>();
  const inside = (f: string) => !path.relative(dir, path.resolve(f)).startsWith('..');
  for (const input of inputs.filter((f) => fs.existsSync(f) && inside(f))) {
    const copy = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-input-')), path.basename(input));
    fs.copyFileSync(input, copy);
    moved.set(input, copy);
  }
  return moved;
}

/** Everything of the previous run goes but what KEEP names and the certification archives. */
export function clearReports(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir)) {
    if (!KEEP.has(entry) && !isArchive(entry)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
}
