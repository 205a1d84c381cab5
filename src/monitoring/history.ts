// The nights as a trend (--history DIR): each run adds one small summary file to DIR (the verdict
// per class, counts, which requirements failed or did not run, the server's sampled answer times per
// route, the suite's version), and the trend pages are drawn from every summary of the same target
// found there (render-trend.ts). One file per run, named by its start time, so that a folder kept
// between CI runs (an artifact, a cache) only ever grows by files and a run merged twice writes the
// same file again; files this suite did not write are left alone.
import fs from 'node:fs';
import path from 'node:path';
import type { ConformanceClass } from '../catalogue/catalogue';
import type { Certificate, ClassVerdict, StatusCounts } from '../verdict/model';
import { CLASSES } from '../verdict/model';

const HISTORY_FORMAT = 'vds-conformance-history/1';

export interface HistoryEntry {
  format: typeof HISTORY_FORMAT;
  /** The run's start (ISO 8601, UTC). */
  date: string;
  durationMs: number;
  suite: { name: string; version: string };
  target: { name: string; baseUrl: string; env: string };
  monitor: boolean;
  /** What --grep left out, when anything was: such a run's counts are not the whole suite's. */
  selection?: Record<string, string>;
  verdict: Record<ConformanceClass, ClassVerdict>;
  /** The run's exit status (src/verdict/exit-codes.ts) and the first line of each run error (exit 3). */
  exitCode?: number;
  errors: string[];
  counts: { checks: StatusCounts & { total: number }; requirements: Record<ConformanceClass, StatusCounts> };
  /** Requirements (not advisory, applicable) that failed, and that did not run. */
  failed: Array<{ id: string; class: ConformanceClass }>;
  notRun: string[];
  /** With --compare: the routes judged slower than in the run compared with. */
  slower?: string[];
  /** The server's sampled answer times per route, in ms (certificate.serverLatency). */
  latency?: { method: string; routes: Record<string, { samples: number[]; path?: string; note?: string }> };
}

/** A run's summary, from its (redacted) certificate. */
export function historyEntry(c: Certificate, selection?: Record<string, string>): HistoryEntry {
  const counted = c.requirements.filter((r) => !r.advisory && r.applicable !== false);
  const classCounts = (k: ConformanceClass) => {
    const n = c.counts.classes[k];
    return { passed: n.passed, failed: n.failed, notRun: n.notRun };
  };
  return {
    format: HISTORY_FORMAT,
    date: c.run.date,
    durationMs: c.run.durationMs,
    suite: { name: c.suite.name, version: c.suite.version },
    target: { name: c.target.name, baseUrl: c.target.baseUrl, env: c.target.env },
    monitor: c.run.monitor,
    ...(selection && Object.keys(selection).length ? { selection } : {}),
    verdict: c.verdict,
    exitCode: c.gate?.exitCode,
    errors: c.run.errors.map((e) => e.split('\n')[0]),
    counts: {
      checks: c.counts.checks,
      requirements: Object.fromEntries(CLASSES.map((k) => [k, classCounts(k)])) as Record<ConformanceClass, StatusCounts>,
    },
    failed: counted.filter((r) => r.status === 'failed').map((r) => ({ id: r.id, class: r.class })),
    notRun: counted.filter((r) => r.status === 'not-run').map((r) => r.id),
    ...(c.comparison?.latencyRegressions.length ? { slower: c.comparison.latencyRegressions.map((l) => l.route) } : {}),
    ...(c.serverLatency
      ? {
          latency: {
            method: c.serverLatency.method,
            routes: Object.fromEntries(
              Object.entries(c.serverLatency.routes).map(([route, r]) => [
                route,
                {
                  samples: r.samples,
                  ...(r.path !== undefined ? { path: r.path } : {}),
                  ...(r.note ? { note: r.note } : {}),
                },
              ]),
            ),
          },
        }
      : {}),
  };
}

/** The file a run's summary is kept in: its start time and target, safe on every file system. */
export function historyFileName(entry: Pick<HistoryEntry, 'date' | 'target'>): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '-');
  return `${safe(entry.date)}_${safe(entry.target.name)}.json`;
}

/** Adds a run's summary to the folder (created if needed); returns the file written. */
export function addToHistory(dir: string, entry: HistoryEntry): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, historyFileName(entry));
  fs.writeFileSync(file, `${JSON.stringify(entry)}\n`);
  return file;
}

export interface History {
  /** The target's runs, oldest first. */
  entries: HistoryEntry[];
  /** Summaries of other targets in the folder (not shown). */
  otherTargets: number;
  /** Files that are not a summary this suite can read. */
  unreadable: string[];
}

/** Every summary of `targetName` in the folder, oldest first. */
export function readHistory(dir: string, targetName: string): History {
  const out: History = { entries: [], otherTargets: 0, unreadable: [] };
  if (!fs.existsSync(dir)) return out;
  for (const name of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    let entry: HistoryEntry | undefined;
    try {
      entry = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as HistoryEntry;
    } catch {
      entry = undefined;
    }
    if (entry?.format !== HISTORY_FORMAT || typeof entry.date !== 'string' || !entry.target || !entry.verdict) {
      out.unreadable.push(name);
      continue;
    }
    if (entry.target.name === targetName) out.entries.push(entry);
    else out.otherTargets++;
  }
  out.entries.sort((a, b) => a.date.localeCompare(b.date));
  return out;
}
