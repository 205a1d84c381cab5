// Nightly monitoring: what changed since a previous certificate. Worse = a requirement that fails
// now and did not, one that stopped running, or a route whose p95 latency grew beyond the ratio
// (routes whose p95 stays under the floor, or timed fewer than MIN_LATENCY_SAMPLES times in either
// run, are ignored: there the ratio is mostly noise, one slow request on a busy machine).
import fs from 'node:fs';
import { CERTIFICATE_FORMAT, type Certificate, type Comparison, type LatencyChange, type StatusChange } from './model';

export class CompareError extends Error {}

/** A p95 over fewer requests is one request's time. */
export const MIN_LATENCY_SAMPLES = 5;

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

export interface CompareOptions {
  path: string;
  ratio: number;
  floorMs: number;
}

export function compareCertificates(previous: Certificate, current: Certificate, options: CompareOptions): Comparison {
  const before = new Map(previous.requirements.map((r) => [r.id, r.status]));
  const changes: StatusChange[] = current.requirements
    .filter((r) => !r.advisory && before.get(r.id) !== r.status)
    .map((r) => ({ id: r.id, class: r.class, title: r.title, was: before.get(r.id) ?? 'absent', now: r.status }));
  const latencyRegressions: LatencyChange[] = [];
  for (const [route, now] of Object.entries(current.latency ?? {})) {
    const was = previous.latency?.[route];
    if (!was || was.count < MIN_LATENCY_SAMPLES || now.count < MIN_LATENCY_SAMPLES || was.p95 <= 0 || now.p95 < options.floorMs) continue;
    const ratio = now.p95 / was.p95;
    if (ratio > options.ratio) latencyRegressions.push({ route, previousP95: was.p95, currentP95: now.p95, ratio: Math.round(ratio * 100) / 100 });
  }
  const newlyFailing = changes.filter((c) => c.now === 'failed');
  const newlyNotRun = changes.filter((c) => c.now === 'not-run');
  return {
    previous: { path: options.path, date: previous.run?.date ?? '', target: previous.target?.name ?? '' },
    ratio: options.ratio,
    floorMs: options.floorMs,
    newlyFailing,
    newlyPassing: changes.filter((c) => c.now === 'passed'),
    newlyNotRun,
    latencyRegressions,
    worse: newlyFailing.length > 0 || newlyNotRun.length > 0 || latencyRegressions.length > 0,
  };
}
