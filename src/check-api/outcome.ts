// One check's outcome when it is not "passed": a failure with expected vs actual (readable by a vendor,
// and carried to the certificate), or "not run" with the reason and what would make it run.
// (The verdict of a conformance class is another thing: src/verdict/verdict.ts.)
import { requestLine, type Exchange } from '../transport/exchange';

/**
 * A check whose inputs are missing (no token, no data, writes not allowed, no browser). `missing`: the
 * input it lacked, as contracts/inputs.yaml names it (tokens.expired, data.freeDeviceId, writes, browser),
 * when that is what stopped it: the certificate lists such checks by input, with how to get it.
 */
export class NotRun extends Error {
  constructor(
    readonly reason: string,
    readonly missing?: string,
  ) {
    super(reason);
    this.name = 'NotRun';
  }
}

/**
 * A check the target's environment rules out (a sandbox without tokens asked for a route that needs
 * one): not run, but not missing either; it never counts, not even in a certification.
 */
export class NotApplicable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NotApplicable';
  }
}

/**
 * A core check uses a fact only the profile gives as a means (a field name, a structure, a request
 * body, a parameter, a grant, a route's scopes). A server that does not follow it, or refuses it,
 * cannot be judged against the spec that way: the check is not run, and the profile requirement of
 * that fact (named) fails instead. A core failure thus always means the spec is broken.
 */
export function unreadable(what: string, judgedBy: string): NotRun {
  return new NotRun(`${what}: this core check rests on that fact of the profile, so it cannot judge the spec here; ${judgedBy} judges it against the profile`);
}

/**
 * How the reason of a check not run because the suite itself broke under it begins (run-check.ts):
 * never the server's doing. Readers of a certificate (scripts/mutation.ts) find such checks by it.
 */
export const SUITE_BROKE = 'the suite broke under this check (a defect of the suite or of its inputs, not anything the server did; please report it)';

/** How a replayed check ended besides its status (exchanges.json of a replay; src/cli/verify.ts reads it). */
export type ReplayOutcome = { kind: 'no-recorded-answer'; requests: string[] } | { kind: 'record-only'; why: string };

export interface FailureDetails {
  /** What the documents require, in a vendor's words. */
  expected: string;
  /** What the server did. */
  actual: string;
  /** JSON pointer into the body, when the fault is in one member. */
  pointer?: string;
  /** The request that showed it (already redacted). */
  exchange?: Exchange;
}

export class ConformanceFailure extends Error {
  constructor(readonly details: FailureDetails) {
    super(formatFailure(details));
    this.name = 'ConformanceFailure';
  }
}

export function fail(details: FailureDetails): never {
  throw new ConformanceFailure(details);
}

export function formatFailure(d: FailureDetails): string {
  const lines = [`expected: ${d.expected}`, `actual:   ${d.actual}`];
  if (d.pointer !== undefined) lines.push(`at:       ${d.pointer || '(the whole body)'}`);
  if (d.exchange) {
    const e = d.exchange;
    lines.push(`request:  ${requestLine(e)}`);
    if (e.bodyExcerpt) lines.push(`body:     ${excerpt(e.bodyExcerpt)}`);
  }
  return lines.join('\n');
}

export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length} chars)` : flat;
}

/** A short, safe rendering of any value for "actual:" lines. */
export function show(value: unknown, max = 200): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
