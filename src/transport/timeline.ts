// A run's timeline, for the benchmark (scripts/bench.ts): where a run's time goes when the server is far
// away. With VDS_TIMELINE=FILE each process of the run (the runner, its workers, an in-process run)
// appends one JSON line per request (its start and end, its route, and whether the run's preparation
// or a check sent it) and one per stage of the run (the runner's configuration loaded, the server up,
// each step of the preparation, a route group's start and end, each check's start and end, the reports
// written). Times are epoch milliseconds, comparable across processes. Without the variable nothing is
// written or kept.
import fs from 'node:fs';
import { runOptions } from '../options/options';

const FILE = runOptions().timeline;

/** Who sends the requests of this process now: the run's preparation, or the checks. */
let phase: 'preparation' | 'checks' = 'checks';

export type TimelineLine =
  | {
      kind: 'request';
      pid: number;
      phase: 'preparation' | 'checks';
      route: string;
      /** When the request asked for one of the process's request slots (it is sent at `start`). */
      queued: number;
      start: number;
      end: number;
      /** The check that sent it (its key), when a check did. */
      check?: string;
    }
  | { kind: 'stage'; pid: number; stage: string; at: number };

/** Epoch milliseconds, to the microsecond. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

function append(line: TimelineLine): void {
  if (FILE) fs.appendFileSync(FILE, `${JSON.stringify(line)}\n`);
}

/** A stage of the run was reached ("server up", "tokens", "group users end", ...). */
export function stage(name: string): void {
  append({ kind: 'stage', pid: process.pid, stage: name, at: now() });
}

/** The requests that follow are the run's preparation's (true) or the checks' (false). */
export function preparing(on: boolean): void {
  phase = on ? 'preparation' : 'checks';
}

/** A request asked for a slot at `queued`, was sent at `start` and answered (or given up) now. */
export function requestDone(route: string, queued: number, start: number, check: string | undefined): void {
  if (FILE) append({ kind: 'request', pid: process.pid, phase, route, queued, start, end: now(), ...(check ? { check } : {}) });
}

/** A timeline's lines, as the run's processes wrote them (scripts/bench.ts, and the tests that read a run's stages). */
export function timelineLines(file: string): TimelineLine[] {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
  return text ? text.split('\n').map((l) => JSON.parse(l) as TimelineLine) : [];
}

/** Whether a timeline is written (callers skip the clock reads when it is not). */
export const timelineOn = FILE !== undefined;
