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
 * Records one shard's value under `key`. Merging blob reports spreads each shard's metadata over the
 * others', so every shard writes its own key (`key.N`) and shardValues reads them all.
 */
function addShardValue(metadata: Record<string, unknown>, key: string, value: unknown, shard?: number): void {
  if (value !== undefined) metadata[shard ? `${key}.${shard}` : key] = value;
}

/** Every shard's value under `key` (one for a run that was not sharded), in shard order. */
function shardValues(metadata: Record<string, unknown>, key: string): unknown[] {
  return Object.keys(metadata)
    .filter((k) => k === key || k.startsWith(`${key}.`))
    .sort()
    .map((k) => metadata[k]);
}

/** Records the run's warnings (its preparation's). */
export function addRunWarnings(metadata: Record<string, unknown>, warnings: string[], shard?: number): void {
  addShardValue(metadata, WARNINGS_KEY, warnings, shard);
}

/** Every shard's warnings, each once. */
export function readRunWarnings(metadata: Record<string, unknown>): string[] {
  return [...new Set(shardValues(metadata, WARNINGS_KEY).flatMap((w) => (Array.isArray(w) ? w.map(String) : [])))];
}

/** Records the run's latency samples (its preparation's). */
export function addLatencySampling(metadata: Record<string, unknown>, sampling: LatencySampling | undefined, shard?: number): void {
  addShardValue(metadata, LATENCY_KEY, sampling, shard);
}

/** Every shard's latency samples. */
export function readLatencySamplings(metadata: Record<string, unknown>): LatencySampling[] {
  return shardValues(metadata, LATENCY_KEY).filter(
    (s): s is LatencySampling => !!s && typeof (s as LatencySampling).method === 'string' && Array.isArray((s as LatencySampling).routes),
  );
}

/** Records why the run's preparation failed (its route groups were skipped). */
export function addPreparationFailure(metadata: Record<string, unknown>, message: string | undefined, shard?: number): void {
  addShardValue(metadata, FAILED_KEY, message, shard);
}

/** Why each shard's preparation failed (none for a run whose preparation ended). */
export function readPreparationFailures(metadata: Record<string, unknown>): string[] {
  return shardValues(metadata, FAILED_KEY).filter((m): m is string => typeof m === 'string');
}
