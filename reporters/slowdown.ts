// When a route counts as slower than in a previous run, with noise in mind. A nightly gate that fails
// on noise gets muted, and then misses the night the server really slows down, so the rule asks a lot:
// the server's sampled answer times (harness/latency-sampling.ts, never the checks' own durations) on
// enough samples in both runs, of the same request, and a growth both relative (more than `ratio` times)
// and absolute (at least `floorMs` more) in the median (most answers) and in the p90 (the tail) alike.
// A change that meets part of the rule is a note, never a failure.
import { SAMPLES_PER_ROUTE } from '../harness/latency-sampling';
import type { LatencyChange, LatencyNote, RouteLatency, ServerLatency } from './model';

/** Fewer samples than a run takes, on either side: one unusable answer already stops a route's sampling. */
export const MIN_LATENCY_SAMPLES = SAMPLES_PER_ROUTE;

export interface SlowdownRule {
  /** The median and the p90 must each grow more than this many times... */
  ratio: number;
  /** ...and by at least this many milliseconds. */
  floorMs: number;
}

export interface LatencyJudgement {
  slower: LatencyChange[];
  notes: LatencyNote[];
}

const figures = (r: RouteLatency) => ({ p50: r.p50, p90: r.p90, count: r.count });
const round2 = (n: number) => Math.round(n * 100) / 100;

export function judgeLatency(previous: ServerLatency | undefined, current: ServerLatency | undefined, rule: SlowdownRule): LatencyJudgement {
  const out: LatencyJudgement = { slower: [], notes: [] };
  if (!current) return out;
  if (!previous) {
    out.notes.push({ route: '', note: 'the previous run has no sampled latency (a suite before sampling, or a run without its global setup): latency not compared' });
    return out;
  }
  const grew = (was: number, now: number) => now > was * rule.ratio && now - was >= rule.floorMs;
  for (const [route, now] of Object.entries(current.routes)) {
    const was = previous.routes[route];
    if (!was) continue; // a route new to the catalogue: nothing to compare with
    if (was.count < MIN_LATENCY_SAMPLES || now.count < MIN_LATENCY_SAMPLES) {
      if (was.count === 0 && now.count === 0 && was.note === now.note) continue; // never sampled here (no token for it, ...)
      const side = (r: RouteLatency) => `${r.count}${r.note ? ` (${r.note})` : ''}`;
      out.notes.push({ route, note: `not compared: fewer than ${MIN_LATENCY_SAMPLES} samples (now ${side(now)}, before ${side(was)})` });
      continue;
    }
    if (was.path !== undefined && now.path !== undefined && was.path !== now.path) {
      out.notes.push({ route, note: `not compared: it asked ${now.path} now and ${was.path} before (another id was discovered; give it in the target file's data for comparable runs)` });
      continue;
    }
    const median = grew(was.p50, now.p50);
    const tail = grew(was.p90, now.p90);
    const ratio = round2(was.p50 > 0 ? now.p50 / was.p50 : now.p50);
    if (median && tail) {
      out.slower.push({ route, previous: figures(was), current: figures(now), ratio });
    } else if (median || tail) {
      const [moved, stayed] = median ? ['median', 'p90'] : ['p90', 'median'];
      out.notes.push({
        route,
        note: `the ${moved} grew (median ${was.p50} -> ${now.p50} ms, p90 ${was.p90} -> ${now.p90} ms) but not the ${stayed}: ` +
          'a few slow answers, not a slowdown',
      });
    }
  }
  return out;
}
