// What one check leaves for the reports: the record a conformance test writes for each of its checks
// (src/engine/run-check.ts) into its `checks` attachment, and how a record becomes the
// certificate's CheckResult. Both sides import this module: the attachment's name and shape are
// defined once.
import { requestLine, type Exchange } from '../transport/exchange';
import { excerpt, type FailureDetails } from '../check-api/outcome';
import type { ReplayOutcome } from '../check-api/outcome';
import type { CheckFailure, CheckResult } from './model';

/** A request's line as the reports show it ("GET http://host/v3/cars/1 -> 404"): the renderers' way to it. */
export { requestLine };

/** The attachment of a conformance test that holds one CheckRecord per check it ran. */
export const CHECKS_ATTACHMENT = 'checks';
/** The annotation of a conformance test that names its route group. */
export const GROUP_ANNOTATION = 'group';

/** A check's result as the test records it: the certificate's CheckResult, with its requests in full. */
export interface CheckRecord extends Omit<CheckResult, 'latencies'> {
  /** Every request of the check, redacted (kept for failures only when VDS_ATTACH=failures). */
  exchanges: Exchange[];
  /** A certification's record of the instants the check read from its clock (src/transport/clock.ts), for a replay. */
  clock?: number[];
  /** A replay's outcome besides the status: no recorded answer, or verified from the record only (src/setup/replay.ts). */
  replay?: ReplayOutcome;
  /** The inputs the check asked for (tokens.<key>, data.<key>, writes, browser), whether or not it got them: what its requirement needs. */
  asked?: string[];
}

/** Expected vs actual, with the request line and a body excerpt, as the certificate shows them. */
export function failureOf(check: string, d: FailureDetails): CheckFailure {
  const e = d.exchange;
  return {
    check,
    expected: d.expected,
    actual: d.actual,
    ...(d.pointer !== undefined ? { pointer: d.pointer || '(the whole body)' } : {}),
    ...(e ? { request: requestLine(e) } : {}),
    ...(e?.bodyExcerpt ? { body: excerpt(e.bodyExcerpt) } : {}),
    ...(e?.curl ? { curl: e.curl } : {}),
  };
}

/** The certificate's view of a record: its exchanges reduced to latency samples. */
export function resultOf(record: CheckRecord): CheckResult {
  const { exchanges, clock: _clock, replay: _replay, asked: _asked, ...rest } = record;
  return {
    ...rest,
    latencies: (exchanges ?? [])
      .filter((e) => typeof e?.durationMs === 'number')
      .map((e) => ({ route: e.route ?? `${e.method} (not attributed to a route)`, ms: e.durationMs, ...(e.error ? { error: true } : {}) })),
  };
}

/** One check of a certification's exchanges.json: its record as the run left it (a replay's says how it ended). */
export type RecordedCheck = Pick<CheckRecord, 'key' | 'requirement' | 'group' | 'reason' | 'clock' | 'replay' | 'exchanges'> & { status: string };
