// The certificate reporter's options. They come from the environment (set by scripts/conformance.ts
// from its flags) so that the same reporter behaves the same in a run and in `merge-reports`.
import path from 'node:path';
import { reportsDir } from './paths';

export interface CertificateOptions {
  outputDir: string;
  /** Gate on failures not listed in this baseline file. */
  baseline?: string;
  /** Write the run's failures to this baseline file. */
  updateBaseline?: string;
  /** A previous conformance.json to compare with (nightly monitoring). */
  compare?: string;
  /** A route's p95 latency regressed when it grew by more than this factor. */
  latencyRatio: number;
  /** Routes whose p95 stays under this many milliseconds are never latency regressions. */
  latencyFloorMs: number;
  /** Write junit.xml, one test case per check (not with VDS_REPORTS=certificate). */
  junit: boolean;
  /** --require-complete: checks not run fail the gate. */
  requireComplete: boolean;
  /** --certify: every class must PASS. */
  certify: boolean;
}

export const DEFAULT_LATENCY_RATIO = 1.5;
export const DEFAULT_LATENCY_FLOOR_MS = 50;

export class OptionError extends Error {}

export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): CertificateOptions {
  const file = (v: string | undefined) => (v ? path.resolve(v) : undefined);
  return {
    outputDir: reportsDir(env),
    baseline: file(env.VDS_BASELINE),
    updateBaseline: file(env.VDS_UPDATE_BASELINE),
    compare: file(env.VDS_COMPARE),
    latencyRatio: parseRatio(env.VDS_LATENCY_RATIO),
    latencyFloorMs: parseFloor(env.VDS_LATENCY_FLOOR_MS),
    junit: env.VDS_REPORTS !== 'certificate',
    requireComplete: env.VDS_REQUIRE_COMPLETE === '1',
    certify: env.VDS_CERTIFY === '1',
  };
}

export function parseRatio(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LATENCY_RATIO;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1) throw new OptionError(`--latency-ratio must be a number of at least 1 (e.g. 1.5), got "${raw}"`);
  return n;
}

function parseFloor(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_LATENCY_FLOOR_MS;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new OptionError(`VDS_LATENCY_FLOOR_MS must be a number of milliseconds, got "${raw}"`);
  return n;
}
