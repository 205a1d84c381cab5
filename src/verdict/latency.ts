// Latency per catalogue route: the durations of every request the checks made (under the suite's own
// concurrency: shown as they are, never compared), and the server's answer time sampled one request
// at a time before the checks (src/setup/latency-sampling.ts), which --compare and --history use.
import type { LatencySampling } from '../transport/answer-times';
import type { LatencySample, LatencyStats, RouteLatency, ServerLatency } from './model';

/** Nearest-rank percentile of sorted values: a value that was actually measured. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function latencyByRoute(samples: LatencySample[]): Record<string, LatencyStats> {
  const byRoute = new Map<string, LatencySample[]>();
  for (const s of samples) byRoute.set(s.route, [...(byRoute.get(s.route) ?? []), s]);
  const out: Record<string, LatencyStats> = {};
  for (const route of [...byRoute.keys()].sort()) {
    const list = byRoute.get(route)!;
    const ms = list.map((s) => s.ms).sort((a, b) => a - b);
    out[route] = {
      count: ms.length,
      errors: list.filter((s) => s.error).length,
      p50: percentile(ms, 50),
      p95: percentile(ms, 95),
      max: ms[ms.length - 1],
    };
  }
  return out;
}

/** Statistics of one route's samples (the figures the comparison and the reports use). */
export function routeLatency(samples: number[], extra: Pick<RouteLatency, 'path' | 'note'> = {}): RouteLatency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    samples,
    count: samples.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    max: sorted.length ? sorted[sorted.length - 1] : 0,
    ...(extra.path !== undefined ? { path: extra.path } : {}),
    ...(extra.note ? { note: extra.note } : {}),
  };
}

/** The certificate's serverLatency from each shard's sampling (one without shards); undefined without any. */
export function serverLatency(samplings: LatencySampling[]): ServerLatency | undefined {
  if (!samplings.length) return undefined;
  const byRoute = new Map<string, { samples: number[]; path?: string; notes: string[] }>();
  for (const sampling of samplings) {
    for (const r of sampling.routes) {
      const entry = byRoute.get(r.route) ?? { samples: [], path: r.path, notes: [] };
      entry.samples.push(...r.samples);
      entry.path ??= r.path;
      if (r.note && !entry.notes.includes(r.note)) entry.notes.push(r.note);
      byRoute.set(r.route, entry);
    }
  }
  const routes: Record<string, RouteLatency> = {};
  for (const [route, e] of byRoute) routes[route] = routeLatency(e.samples, { path: e.path, note: e.notes.join('; ') || undefined });
  return { method: samplings[0].method, routes };
}
