// The reports folder before a command writes in it. Nothing a run wrote is ever lost: a run's reports
// are replaced only once the whole previous run is packed into earlier-runs/ (one .tar.gz per run, as a
// certification archive keeps a certification), and its certificate moves to previous/ (so that
// `--compare last` and `--last-failed` need no extra step). Then the folder is emptied of the previous
// run's files (an old Allure result would show as a retry); README.md, the project's own test output
// (self/, mutation/), the certification archives and earlier-runs/ stay. A file the user passed in that
// lives in the folder is copied out of harm's way first.
//
// A run's command packs the previous run while its own run goes on (packLater): the previous run's
// files move at once into a folder of earlier-runs/ (a rename each), and their .tar.gz is written beside
// the runner, compressed on Node's thread pool, then the folder goes. Packed before the runner started,
// a default run's reports (900 Allure results among them) cost every repeated run about 0.2 s of
// processor time on its critical path, and most of a second on a busy machine. A command stopped before
// its pack was whole leaves the folder, which the next command packs first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { REPORT_FILES } from '../options/paths';
import type { Certificate } from '../verdict/model';
import { uniqueName } from '../util/unique-name';
import { UsageError } from './args';

export const PREVIOUS = 'previous';
/** Where each earlier run's reports are kept, packed. */
const EARLIER_RUNS = 'earlier-runs';

/** A run's certificate files: what previous/ keeps of it. */
const CERTIFICATE_FILES = [REPORT_FILES.certificateJson, REPORT_FILES.certificateMd, REPORT_FILES.certificateHtml, REPORT_FILES.changes, REPORT_FILES.junit];

const KEEP = new Set(['README.md', 'self', 'mutation', PREVIOUS, EARLIER_RUNS]);
/** In earlier-runs/: a run's files set aside, `<this><the pack's name>`, until their pack is whole. */
const UNPACKED = '.unpacked-';
/** The packs still being written (packLater): the command waits for them before it exits. */
const packing = new Set<Promise<void>>();
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
export function prepareReportsFolder(dir: string, inputs: string[], options: { packLater?: boolean } = {}): Map<string, string> {
  const moved = protectInputs(dir, inputs);
  if (!fs.existsSync(dir)) return moved;
  packLeftovers(dir);
  const hadCertificate = !!lastCertificate(dir);
  const aside = options.packLater ? setEarlierRunAside(dir, runFiles(dir)) : undefined;
  if (!options.packLater) keepEarlierRun(dir, runFiles(dir));
  // The certificate's files, from where they are now: the folder, or the files set aside (copied: their pack keeps them too).
  const from = aside?.folder ?? dir;
  if (hadCertificate) {
    const previous = path.join(dir, PREVIOUS);
    fs.rmSync(previous, { recursive: true, force: true });
    fs.mkdirSync(previous);
    for (const f of CERTIFICATE_FILES) {
      if (!fs.existsSync(path.join(from, f))) continue;
      if (aside) fs.copyFileSync(path.join(from, f), path.join(previous, f));
      else fs.renameSync(path.join(from, f), path.join(previous, f));
    }
  }
  clearReports(dir);
  if (aside) {
    const pack = aside.pack().finally(() => packing.delete(pack));
    packing.add(pack);
  }
  return moved;
}

/** Resolves once every pack prepareReportsFolder started (packLater) is written whole. */
export async function earlierRunsPacked(): Promise<void> {
  await Promise.all(packing);
}

/**
 * Moves `entries` of `dir` into a folder of earlier-runs/ named after their pack (renames: at once), and
 * returns how to pack them there; undefined when there is nothing to keep.
 */
function setEarlierRunAside(dir: string, entries: string[]): { folder: string; pack: () => Promise<void> } | undefined {
  const present = entries.filter((e) => fs.existsSync(path.join(dir, e)));
  if (!present.length) return undefined;
  const file = packName(dir, present, 'run', dir);
  const folder = path.join(path.dirname(file), `${UNPACKED}${path.basename(file)}`);
  fs.mkdirSync(folder);
  for (const e of present) fs.renameSync(path.join(dir, e), path.join(folder, e));
  return { folder, pack: () => packFolder(folder, file, present) };
}

/** Packs `entries` of `folder` into `file` (whole, or not at all: written aside, then renamed), then removes the folder. */
async function packFolder(folder: string, file: string, entries: string[]): Promise<void> {
  const partial = `${file}.partial`;
  await tar.create({ gzip: true, file: partial, cwd: folder, portable: true }, entries);
  fs.renameSync(partial, file);
  fs.rmSync(folder, { recursive: true, force: true });
}

/** The files a command stopped before their pack was whole left in earlier-runs/: packed now, before anything else. */
function packLeftovers(dir: string): void {
  const folder = path.join(dir, EARLIER_RUNS);
  if (!fs.existsSync(folder)) return;
  for (const entry of fs.readdirSync(folder)) {
    if (!entry.startsWith(UNPACKED)) continue;
    const aside = path.join(folder, entry);
    const file = uniqueName(folder, entry.slice(UNPACKED.length).replace(/\.tar\.gz$/, ''), '.tar.gz');
    fs.rmSync(`${path.join(folder, entry.slice(UNPACKED.length))}.partial`, { force: true });
    tar.create({ gzip: true, file, cwd: aside, sync: true, portable: true }, fs.readdirSync(aside));
    fs.rmSync(aside, { recursive: true, force: true });
  }
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

/** Everything of the previous run in `dir`: what a run empties (all but KEEP and the certification archives). */
function runFiles(dir: string): string[] {
  return fs.readdirSync(dir).filter((entry) => !KEEP.has(entry) && !isArchive(entry));
}

/** Everything of the previous run goes but what KEEP names and the certification archives: call keepEarlierRun first. */
export function clearReports(dir: string): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of runFiles(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
}

/**
 * Packs `entries` of `dir` (the previous run's files a command is about to replace) into
 * `<reports>/earlier-runs/<kind>-<its start>-<its target>.tar.gz` (`reports`: dir, or the reports folder
 * of a folder inside it), named after the run's certificate when it has one (else after the files'
 * time), never over an earlier pack. Returns the pack, or undefined when there was nothing to keep.
 */
export function keepEarlierRun(dir: string, entries: string[], kind: 'run' | 'verify' = 'run', reports = dir): string | undefined {
  const present = entries.filter((e) => fs.existsSync(path.join(dir, e)));
  if (!present.length) return undefined;
  const pack = packName(dir, present, kind, reports);
  tar.create({ gzip: true, file: pack, cwd: dir, sync: true, portable: true }, present);
  return pack;
}

/** The pack of `present` (entries of `dir`) in `<reports>/earlier-runs/`: after its run's start and target, a name no pack has yet. */
function packName(dir: string, present: string[], kind: 'run' | 'verify', reports: string): string {
  const certificate = readCertificate(path.join(dir, REPORT_FILES.certificateJson));
  const started = certificate?.run?.date ?? newest(dir, present);
  const stamp = started.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  const target = (certificate?.target?.name ?? 'unknown').replace(/[^A-Za-z0-9._-]+/g, '-');
  const folder = path.join(reports, EARLIER_RUNS);
  fs.mkdirSync(folder, { recursive: true });
  const base = `${kind}-${stamp}-${target}`;
  // A name neither a pack nor a pack under way (its files set aside) has.
  for (let n = 1; ; n++) {
    const file = path.join(folder, `${base}${n === 1 ? '' : `-${n}`}.tar.gz`);
    if (!fs.existsSync(file) && !fs.existsSync(path.join(folder, `${UNPACKED}${path.basename(file)}`))) return file;
  }
}

function readCertificate(file: string): Partial<Certificate> | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Certificate>;
  } catch {
    return undefined;
  }
}

/** The latest modification time among `entries`, as an ISO date. */
function newest(dir: string, entries: string[]): string {
  const ms = Math.max(...entries.map((e) => fs.statSync(path.join(dir, e)).mtimeMs));
  return new Date(ms).toISOString();
}
