// Nightly monitoring: what changed since a previous certificate. Worse = a requirement that fails
// now and did not, one that stopped running, or a route that got slower by the rule of slowdown.ts
// (the server's sampled answer times, never the checks' own request durations).
import fs from 'node:fs';
import { CERTIFICATE_FORMAT, type Certificate, type Comparison, type StatusChange } from '../verdict/model';
import { judgeLatency, MIN_LATENCY_SAMPLES } from './slowdown';

export class CompareError extends Error {}

export function readCertificate(file: string): Certificate {
  if (!fs.existsSync(file)) throw new CompareError(`--compare: file not found: ${file}`);
  let doc: Certificate;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate;
  } catch (err) {
    throw new CompareError(`--compare: ${file} is not JSON: ${(err as Error).message}`);
  }
  if (doc?.format !== CERTIFICATE_FORMAT || !Array.isArray(doc.requirements)) {
    throw new CompareError(`--compare: ${file} is not a conformance.json written by this suite (format ${CERTIFICATE_FORMAT})`);
  }
  return doc;
}

/**
 * The requirements (advisory ones aside) whose status changed from `previous` to `current`, matched by
 * id: one `current` has that `previous` had not is `absent` before. Also the registry's view of two
 * releases of one product (src/registry/registry.ts).
 */
export function statusChanges(
  previous: Pick<Certificate, 'requirements'>,
  current: Pick<Certificate, 'requirements'>,
): Pick<Comparison, 'newlyFailing' | 'newlyPassing' | 'newlyNotRun'> {
  const before = new Map(previous.requirements.map((r) => [r.id, r.status]));
  const changes: StatusChange[] = current.requirements
    .filter((r) => !r.advisory && before.get(r.id) !== r.status)
    .map((r) => ({ id: r.id, class: r.class, title: r.title, was: before.get(r.id) ?? 'absent', now: r.status }));
  return {
    newlyFailing: changes.filter((c) => c.now === 'failed'),
    newlyPassing: changes.filter((c) => c.now === 'passed'),
    newlyNotRun: changes.filter((c) => c.now === 'not-run'),
  };
}

export interface CompareOptions {
  path: string;
  ratio: number;
  floorMs: number;
}

export function compareCertificates(previous: Certificate, current: Certificate, options: CompareOptions): Comparison {
  const { newlyFailing, newlyPassing, newlyNotRun } = statusChanges(previous, current);
  const latency = judgeLatency(previous.serverLatency, current.serverLatency, options);
  return {
    previous: { path: options.path, date: previous.run?.date ?? '', target: previous.target?.name ?? '' },
    ratio: options.ratio,
    floorMs: options.floorMs,
    minSamples: MIN_LATENCY_SAMPLES,
    newlyFailing,
    newlyPassing,
    newlyNotRun,
    latencyRegressions: latency.slower,
    latencyNotes: latency.notes,
    worse: newlyFailing.length > 0 || newlyNotRun.length > 0 || latency.slower.length > 0,
  };
}
