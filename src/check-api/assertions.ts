// The assertions checks make about one answer. Each failure says what the documents require, what
// came, where in the body, and which request showed it (outcome.ts).
import type { ApiResponse } from '../transport/api';
import { checkContract, describeViolations, unknownFields } from '../schemas/validate';
import { ConformanceFailure, fail, show } from './outcome';
import { isRfc3339DateTime } from '../schemas/formats';

export type StatusRule = number | number[] | '4xx' | '2xx';

export function statusMatches(status: number, rule: StatusRule): boolean {
  if (rule === '4xx') return status >= 400 && status < 500;
  if (rule === '2xx') return status >= 200 && status < 300;
  return Array.isArray(rule) ? rule.includes(status) : status === rule;
}

function describeRule(rule: StatusRule): string {
  if (rule === '4xx') return 'a 4xx status';
  if (rule === '2xx') return 'a success (2xx) status';
  return Array.isArray(rule) ? `status ${rule.join(' or ')}` : `status ${rule}`;
}

export function expectStatus(res: ApiResponse, rule: StatusRule, why = ''): void {
  if (statusMatches(res.status, rule)) return;
  fail({ expected: `${describeRule(rule)}${why ? ` (${why})` : ''}`, actual: `status ${res.status}`, exchange: res.exchange });
}

/** The body parsed as JSON, or a failure saying what came instead (empty, HTML, truncated, ...). */
export function expectJson(res: ApiResponse, what = 'a JSON body'): unknown {
  if (res.json !== undefined) return res.json;
  fail({ expected: what, actual: `${res.jsonError ?? 'no JSON'}; content-type ${res.contentType || 'absent'}`, exchange: res.exchange });
}

export function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export function expectContentType(res: ApiResponse, allowed: string[]): void {
  const type = mediaType(res.contentType);
  if (allowed.includes(type)) return;
  fail({
    expected: `content-type ${allowed.join(' or ')}`,
    actual: res.contentType ? `content-type ${res.contentType}` : 'no content-type header',
    exchange: res.exchange,
  });
}

/**
 * The body has the contract's shape. Members neither document knows are returned (for a warning),
 * never failed: an implementation may add fields.
 */
export function expectContract(res: ApiResponse, contract: string): string[] {
  const body = expectJson(res, `a JSON body with the ${contract} contract`);
  const violations = checkContract(contract, body);
  if (violations.length > 0) {
    fail({
      expected: `the ${contract} contract (contracts/schemas/${contract.replace(/\[\]$/, '')}.yaml)`,
      actual: `${violations.length} violation(s):\n${describeViolations(violations, 8)}`,
      pointer: violations[0].pointer,
      exchange: res.exchange,
    });
  }
  return unknownFields(contract, body);
}

export interface ErrorExpectation {
  status: StatusRule;
  /** The error's type, or the types any one of which will do. */
  type?: string | string[];
  message?: string;
  /**
   * non-empty (default: the profile's decision on tips), names-scope (the tip must name `scope`), or
   * any (the spec only says tip is a string: core requirements).
   */
  tip?: 'non-empty' | 'names-scope' | 'any';
  scope?: string;
  /** Another answer that will do as well (a decision of the suite's: an expired token the server forgot is an unknown one). */
  or?: ErrorExpectation;
  /** What the request was, when the check sends several (a near-miss form, a credential): said in the failure. */
  why?: string;
}

/** An error answer: the status, the spec's error array, and the documented type, message and tip (or the other answer `e.or`). */
export function expectError(res: ApiResponse, e: ErrorExpectation): void {
  if (!e.or) return expectOneError(res, e);
  try {
    expectOneError(res, { ...e, or: undefined });
  } catch (first) {
    if (!(first instanceof ConformanceFailure)) throw first;
    try {
      expectError(res, { ...e.or, why: e.or.why ?? e.why });
    } catch (second) {
      if (!(second instanceof ConformanceFailure)) throw second;
      throw new ConformanceFailure({ ...first.details, expected: `${first.details.expected}; or ${second.details.expected}` });
    }
  }
}

function expectOneError(res: ApiResponse, e: ErrorExpectation): void {
  expectStatus(res, e.status, e.why);
  const about = e.why ? ` (${e.why})` : '';
  const body = expectJson(res, `an error body: a JSON array of {type, message, tip}${about}`);
  const violations = checkContract('errorArray', body);
  if (violations.length > 0) {
    fail({
      expected: `an error body: a JSON array of {type, message, tip} (vehicle-data-service-v3.md § Errors)${about}`,
      actual: describeViolations(violations, 5),
      pointer: violations[0].pointer,
      exchange: res.exchange,
    });
  }
  const errors = body as ErrorElement[];
  // type, message and tip must belong to ONE element: an array may hold several errors.
  const types = e.type === undefined ? undefined : Array.isArray(e.type) ? e.type : [e.type];
  const tipRule = e.tip ?? 'non-empty';
  const misses = (x: ErrorElement) =>
    [
      types && !types.includes(x.type) ? { field: 'type', expected: `type ${types.join(' or ')}`, actual: `type ${show(x.type)}` } : undefined,
      e.message && x.message !== e.message
        ? { field: 'message', expected: `message ${show(e.message)} (compared exactly)`, actual: `message ${show(x.message)}` }
        : undefined,
      tipRule === 'names-scope' && e.scope && !x.tip.includes(e.scope)
        ? { field: 'tip', expected: `a tip naming the missing scope ${e.scope}`, actual: `tip ${show(x.tip)}` }
        : undefined,
      // v3-profile.md § Conflicts and decisions (tip wording): a non-empty string. The spec only says it is a string.
      tipRule !== 'any' && x.tip.trim() === '' ? { field: 'tip', expected: 'a non-empty tip (how to fix the error)', actual: `tip ${show(x.tip)}` } : undefined,
    ].filter((m) => m !== undefined);
  const ranked = errors.map((x, i) => ({ i, misses: misses(x) })).sort((a, b) => a.misses.length - b.misses.length);
  const closest = ranked[0];
  if (closest.misses.length === 0) return;
  fail({
    expected: `an error element with ${closest.misses.map((m) => m.expected).join(', ')}${errors.length > 1 ? ' (in one element)' : ''}${about}`,
    actual: `${errors.length > 1 ? `closest of ${errors.length} elements: ` : ''}${closest.misses.map((m) => m.actual).join(', ')}`,
    pointer: `/${closest.i}/${closest.misses[0].field}`,
    exchange: res.exchange,
  });
}

interface ErrorElement {
  type: string;
  message: string;
  tip: string;
}

/** An empty body, as a 204 answer must have. */
export function expectNoBody(res: ApiResponse): void {
  if (res.text.length === 0) return;
  fail({ expected: 'no body (204 No Content)', actual: `a body of ${res.text.length} bytes`, exchange: res.exchange });
}

export function expectArray(res: ApiResponse, what: string): unknown[] {
  const body = expectJson(res, `a JSON array of ${what}`);
  if (!Array.isArray(body)) fail({ expected: `a JSON array of ${what}`, actual: show(body), exchange: res.exchange });
  return body;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object (one record), or a failure saying what came instead (null, a string, an array). */
export function expectObject(res: ApiResponse, what: string): Record<string, unknown> {
  const body = expectJson(res, `a JSON object: ${what}`);
  if (!isRecord(body)) fail({ expected: `a JSON object: ${what}`, actual: show(body), pointer: '', exchange: res.exchange });
  return body;
}

/** A JSON array of objects (records), or a failure naming the first element that is not one. */
export function expectObjects(res: ApiResponse, what: string): Array<Record<string, unknown>> {
  const items = expectArray(res, what);
  const odd = items.findIndex((item) => !isRecord(item));
  if (odd >= 0)
    fail({
      expected: `a JSON array of ${what}, each a JSON object`,
      actual: `element ${odd} is ${show(items[odd])}`,
      pointer: `/${odd}`,
      exchange: res.exchange,
    });
  return items as Array<Record<string, unknown>>;
}

/**
 * Equality for records read through two routes: dates are compared as instants (a server may write
 * the same instant with another precision on another route), numbers and strings exactly.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string' && isRfc3339DateTime(a) && isRfc3339DateTime(b)) {
    return Date.parse(a) === Date.parse(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

/** Numbers that should agree (a statistic read through two routes): equal up to rounding noise. */
export function sameNumber(a: unknown, b: unknown): boolean {
  return typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

/**
 * Numbers that state one quantity, each route writing it with its own precision: they differ by no
 * more than rounding to whole units (0.5) plus 1% explains. A unit mismatch (km vs miles, seconds vs
 * minutes) does not pass.
 */
export function sameUpToRounding(a: unknown, b: unknown): boolean {
  return typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) <= 0.5 + 0.01 * Math.max(Math.abs(a), Math.abs(b));
}

/** Fields on which two records differ (for "actual:" lines). */
export function differingFields(a: Record<string, unknown>, b: Record<string, unknown>, fields?: string[]): string[] {
  const keys = fields ?? [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => !sameValue(a[k], b[k]));
}
