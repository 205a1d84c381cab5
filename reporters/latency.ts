// Request latency per catalogue route, from every request the checks made (nightly monitoring).
import type { LatencySample, LatencyStats } from './model';

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
