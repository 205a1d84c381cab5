// When a route counts as slower than in a previous run, with noise in mind. A nightly gate that fails
// on noise gets muted, and then misses the night the server really slows down, so the rule asks a lot:
// the server's sampled answer times (src/setup/latency-sampling.ts, never the checks' own durations) on
// enough samples in both runs, of the same request, and a growth both relative (more than `ratio` times)
// and absolute (at least `floorMs` more) in the fastest answer and in the median alike: every answer,
// not a few slow ones. A busy machine only ever adds time, and a burst of load can slow three answers
// in five (seen on a 2-core machine ten times oversubscribed), while a server that got slower is
// slower on every answer. The tail (p90) is not asked to grow as well: of 5 samples it is the slowest
// one, and a single slow answer in the previous run would hide a real slowdown behind it. A growth of
// the tail alone, or of part of the rule, is a note, never a failure.
import { SAMPLES_PER_ROUTE } from '../transport/answer-times';
import type { LatencyChange, LatencyNote, RouteLatency, ServerLatency } from '../verdict/model';

/** Fewer samples than a run takes, on either side: one unusable answer already stops a route's sampling. */
export const MIN_LATENCY_SAMPLES = SAMPLES_PER_ROUTE;

export interface SlowdownRule {
  /** The fastest answer and the median must each grow more than this many times... */
  ratio: number;
  /** ...and by at least this many milliseconds. */
  floorMs: number;
}

export interface LatencyJudgement {
  slower: LatencyChange[];
  notes: LatencyNote[];
}

const fastest = (r: RouteLatency) => (r.samples.length ? Math.min(...r.samples) : 0);
const figures = (r: RouteLatency) => ({ fastest: fastest(r), p50: r.p50, p90: r.p90, count: r.count });
const round2 = (n: number) => Math.round(n * 100) / 100;

export function judgeLatency(previous: ServerLatency | undefined, current: ServerLatency | undefined, rule: SlowdownRule): LatencyJudgement {
  const out: LatencyJudgement = { slower: [], notes: [] };
  if (!current) return out;
  if (!previous) {
    out.notes.push({
      route: '',
      note: 'the previous run has no sampled latency (a suite before sampling, or a run without its global setup): latency not compared',
    });
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
      out.notes.push({
        route,
        note: `not compared: it asked ${now.path} now and ${was.path} before (another id was discovered; give it in the target file's data for comparable runs)`,
      });
      continue;
    }
    const held = {
      fastest: grew(fastest(was), fastest(now)),
      median: grew(was.p50, now.p50),
      p90: grew(was.p90, now.p90),
    };
    const moved = Object.entries(held)
      .filter(([, v]) => v)
      .map(([k]) => k);
    const ratio = round2(was.p50 > 0 ? now.p50 / was.p50 : now.p50);
    if (held.fastest && held.median) {
      out.slower.push({ route, previous: figures(was), current: figures(now), ratio });
    } else if (moved.length) {
      const stayed = Object.entries(held)
        .filter(([, v]) => !v)
        .map(([k]) => k);
      out.notes.push({
        route,
        note:
          `the ${moved.join(' and ')} grew (fastest ${fastest(was)} -> ${fastest(now)} ms, median ${was.p50} -> ${now.p50} ms, ` +
          `p90 ${was.p90} -> ${now.p90} ms) but not the ${stayed.join(' and ')}: some slow answers, not a slowdown`,
      });
    }
  }
  return out;
}
