// What the run tells its reports through Playwright's config `metadata`: the one channel that blob
// reports carry into `merge-reports`, where neither the target file nor global setup's run context
// is available. playwright.config.ts writes the target; the certificate reporter adds the run
// warnings once global setup has published them (see certificate.ts onBegin).
import { SELECTION_ENV } from '../catalogue/selection';
import { runOptions } from '../options/options';
import { suiteInfo } from '../util/suite-info';
import type { LatencySampling } from '../setup/latency-sampling';
import type { Target } from '../setup/target';
import type { TargetInfo } from '../verdict/model';

const KEY = 'vds';
const WARNINGS_KEY = 'vds.runWarnings';
const LATENCY_KEY = 'vds.latencySamples';
const FAILED_KEY = 'vds.preparationFailed';

export interface RunMetadata {
  suite: { name: string; version: string };
  target: TargetInfo;
  monitor: boolean;
  /** --certify (VDS_CERTIFY=1): a certification run. */
  certify?: boolean;
  /** The product under test, from the target file. */
  product?: { name?: string; version?: string; vendor?: string };
  /** The check selection (VDS_GREP, VDS_GREP_INVERT), so merge-reports knows what was left out on purpose. */
  selection?: Record<string, string>;
}

export { suiteInfo };

/** The config's metadata entry for a run against this target. */
export function runMetadata(target: Target, env: NodeJS.ProcessEnv = process.env): Record<string, RunMetadata> {
  return {
    [KEY]: {
      suite: suiteInfo(),
      target: { name: target.name, baseUrl: target.baseUrl, env: target.env, allowWrites: target.allowWrites, source: target.source },
      monitor: runOptions(env).monitor,
      certify: runOptions(env).certify,
      ...(target.product ? { product: target.product } : {}),
      selection: Object.fromEntries(Object.values(SELECTION_ENV).flatMap((k) => (env[k] ? [[k, env[k]!]] : []))),
    },
  };
}

export function readRunMetadata(metadata: Record<string, unknown>): RunMetadata | undefined {
  const m = metadata[KEY] as RunMetadata | undefined;
  return m && typeof m === 'object' && m.target ? m : undefined;
}

/**
 * Records run warnings in the metadata. Merging blob reports spreads each shard's metadata over
 * the others', so every shard writes its own key and readRunWarnings takes the union.
 */
export function addRunWarnings(metadata: Record<string, unknown>, warnings: string[], shard?: number): void {
  metadata[shard ? `${WARNINGS_KEY}.${shard}` : WARNINGS_KEY] = warnings;
}

export function readRunWarnings(metadata: Record<string, unknown>): string[] {
  const all = Object.keys(metadata)
    .filter((k) => k === WARNINGS_KEY || k.startsWith(`${WARNINGS_KEY}.`))
    .sort()
    .flatMap((k) => (Array.isArray(metadata[k]) ? (metadata[k] as unknown[]).map(String) : []));
  return [...new Set(all)];
}

/** Records the run's latency samples (global setup's), one key per shard as for the warnings. */
export function addLatencySampling(metadata: Record<string, unknown>, sampling: LatencySampling | undefined, shard?: number): void {
  if (sampling) metadata[shard ? `${LATENCY_KEY}.${shard}` : LATENCY_KEY] = sampling;
}

/** Every shard's latency samples (one for a run that was not sharded). */
export function readLatencySamplings(metadata: Record<string, unknown>): LatencySampling[] {
  return Object.keys(metadata)
    .filter((k) => k === LATENCY_KEY || k.startsWith(`${LATENCY_KEY}.`))
    .sort()
    .map((k) => metadata[k] as LatencySampling)
    .filter((s) => s && typeof s.method === 'string' && Array.isArray(s.routes));
}

/** Records why the run's preparation failed (its route groups were skipped), one key per shard as for the warnings. */
export function addPreparationFailure(metadata: Record<string, unknown>, message: string | undefined, shard?: number): void {
  if (message !== undefined) metadata[shard ? `${FAILED_KEY}.${shard}` : FAILED_KEY] = message;
}

/** Why each shard's preparation failed (none for a run whose preparation ended). */
export function readPreparationFailures(metadata: Record<string, unknown>): string[] {
  return Object.keys(metadata)
    .filter((k) => k === FAILED_KEY || k.startsWith(`${FAILED_KEY}.`))
    .sort()
    .map((k) => metadata[k])
    .filter((m): m is string => typeof m === 'string');
}
