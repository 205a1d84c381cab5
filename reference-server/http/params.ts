// Path and query parameter parsing. Every bad value becomes a 4xx ApiError, never an exception
// that could turn into a 500.

import { monthStartUtc, parseRfc3339, zoneOffsetMinutes } from '../clock';
import type { Switches } from '../context';
import { isSignalName, SIGNAL_NAMES } from '../data/types';
import type { Faults, Variants } from '../switches';
import { ApiError, parametersError } from './errors';

export type Query = Record<string, string | string[] | undefined>;

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Up to 31 days between begin and end is "one month" (profile decision); more is 416. */
const MAX_RANGE_MS = 31 * DAY_MS;

/** The history routes' page size without `limit` under the default-page-size variant. */
const DEFAULT_PAGE_SIZE = 25;

// Canonical decimal without sign or leading zeros, at most 15 digits (always a safe integer).
const INTEGER_ID = /^(0|[1-9][0-9]{0,14})$/;
const TRIP_ID = /^[0-9a-f]{24}$/;

/** A numeric user/car id, or null when the text cannot name one (the caller answers 404). */
export function parseIntegerId(raw: string): number | null {
  return INTEGER_ID.test(raw) ? Number(raw) : null;
}

/** A trip id (24 lowercase hex digits), or null. */
export function parseTripId(raw: string): string | null {
  return TRIP_ID.test(raw) ? raw : null;
}

export function asQuery(value: unknown): Query {
  return value !== null && typeof value === 'object' ? (value as Query) : {};
}

/** One query parameter; a repeated parameter is ambiguous and refused. */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    throw parametersError(400, `Parameter ${name} is repeated`, `Send ${name} at most once`);
  }
  return value;
}

export interface Range {
  begin: number;
  end: number;
}

/** Default begin: the 1st of the current month 00:00:00 UTC. */
function defaultBegin(nowMs: number, faults: Faults): number {
  const utc = monthStartUtc(nowMs);
  // fault default-begin-paris-time: the month start computed in the server's local zone.
  if (faults.has('default-begin-paris-time')) return utc - zoneOffsetMinutes(utc, 'Europe/Paris') * 60000;
  return utc;
}

function rangeIssue(faults: Faults): ApiError {
  // fault range-issue-400: 400 instead of the documented 416.
  return parametersError(faults.has('range-issue-400') ? 400 : 416, 'Range issue in dates', 'Give a begin before end, at most one month apart');
}

function parseDate(query: Query, name: 'begin' | 'end', faults: Faults): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  // fault date-param-offset-only: the query's dates are matched against the one form of the
  // documentation's default (whole seconds and a ±hh:mm offset): Z and fractions are refused.
  // faults range-offset-dropped / range-offset-sign-inverted: a local time's offset read wrong (its
  // wall-clock time taken as UTC; the offset added instead of subtracted).
  const read = (text: string) => {
    const ms = parseRfc3339(text);
    const offset = /([+-])(\d\d):(\d\d)$/.exec(text);
    if (ms === null || !offset) return ms;
    const minutes = (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]));
    if (faults.has('range-offset-dropped')) return ms + minutes * 60_000;
    if (faults.has('range-offset-sign-inverted')) return ms + 2 * minutes * 60_000;
    return ms;
  };
  const ms = faults.has('date-param-offset-only') && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/.test(raw) ? null : read(raw);
  // fault range-bound-whole-seconds: the bound kept in a column of whole seconds (its fraction dropped).
  if (ms !== null && ms !== undefined && faults.has('range-bound-whole-seconds')) return Math.floor(ms / 1000) * 1000;
  if (ms === null) {
    // fault unparseable-date-ignored: a bad date silently falls back to the default.
    if (faults.has('unparseable-date-ignored')) return undefined;
    throw parametersError(400, `Invalid ${name} date`, `Give ${name} as an RFC 3339 date-time, e.g. 2026-03-01T00:00:00+00:00`);
  }
  return ms;
}

function maxRange({ faults, variants }: Switches): number {
  // fault range-limit-one-week: "one month" implemented as a week.
  if (faults.has('range-limit-one-week')) return 7 * DAY_MS;
  // variant range-limit-31-days-23-hours: "one month" read as any span that still counts 31 whole days.
  if (variants.has('range-limit-31-days-23-hours')) return 31 * DAY_MS + 23 * HOUR_MS;
  return MAX_RANGE_MS;
}

/** begin/end with their defaults (begin = month start UTC, end = now) and the range rules. */
export function parseRange(query: Query, nowMs: number, switches: Switches): Range {
  const { faults } = switches;
  const beginGiven = parseDate(query, 'begin', faults);
  const endGiven = parseDate(query, 'end', faults);
  const begin = beginGiven ?? defaultBegin(nowMs, faults);
  // fault default-end-ten-minutes-ago: the default end leaves a margin for late device uploads.
  let end = endGiven ?? (faults.has('default-end-ten-minutes-ago') ? nowMs - 10 * 60 * 1000 : nowMs);
  // fault range-end-truncated-to-minute: end stored in a column of whole minutes.
  if (faults.has('range-end-truncated-to-minute')) end = Math.floor(end / 60000) * 60000;
  // fault range-equal-refused: an empty range (begin = end) refused like a reversed one.
  if ((begin > end || (begin === end && faults.has('range-equal-refused'))) && !faults.has('begin-after-end-accepted')) throw rangeIssue(faults);
  // fault range-only-begin-unchecked: the length rule is checked only when both dates were given.
  const lengthChecked = !(faults.has('range-only-begin-unchecked') && beginGiven !== undefined && endGiven === undefined);
  if (lengthChecked && end - begin > maxRange(switches) && !faults.has('range-too-long-accepted')) throw rangeIssue(faults);
  return { begin, end };
}

export function inRange(date: number, range: Range): boolean {
  return date >= range.begin && date <= range.end;
}

/** `limit`: null means none given, Infinity "every item" (the limit-zero-means-all variant). */
export function parseLimit(query: Query, { faults, variants }: Switches): number | null {
  const raw = single(query, 'limit');
  if (raw === undefined) return null;
  if (/^-\d+$/.test(raw) && !/^-0+$/.test(raw)) {
    // fault limit-negative-accepted: a negative limit is read as "no limit".
    if (faults.has('limit-negative-accepted')) return null;
    throw parametersError(400, "Limit can't be less than 0", 'Give a limit of 0 or more');
  }
  if (!/^-?\d+$/.test(raw)) throw parametersError(400, 'Limit must be an integer', 'Give limit as a whole number, e.g. limit=10');
  const value = Number(raw.replace(/^-/, ''));
  // variant limit-zero-means-all: 0 read as "no limit", as many paging APIs do (every item, even
  // under the default-page-size variant, whose page size applies only when no limit is given).
  if (value === 0 && variants.has('limit-zero-means-all')) return Number.POSITIVE_INFINITY;
  return value;
}

/**
 * Keeps the `limit` most recent items of an ascending list (the tail; under the limit-keeps-oldest
 * variant, an explicit limit keeps the oldest, its head). Without a limit every item is kept, or
 * under the default-page-size variant its DEFAULT_PAGE_SIZE most recent (whatever an explicit limit keeps).
 */
export function applyLimit<T>(items: readonly T[], asked: number | null, variants: Variants): T[] {
  // variant default-page-size: a server-side page size when the client gives no limit.
  const limit = asked === null && variants.has('default-page-size') ? DEFAULT_PAGE_SIZE : asked;
  if (limit === null || limit >= items.length) return [...items];
  if (limit === 0) return [];
  // variant limit-keeps-oldest: an explicit limit keeps the first items of the range in date order, while
  // a default page keeps the most recent (which items either keeps is not stated: they need not agree).
  return asked !== null && variants.has('limit-keeps-oldest') ? items.slice(0, limit) : items.slice(items.length - limit);
}

/** A history list (ascending in the store) in the order the plain list routes answer it. */
export function historyOrder<T>(items: readonly T[], variants: Variants): T[] {
  // variants newest-first and geojson-path-order: every plain history list in descending date order.
  return variants.has('newest-first') || variants.has('geojson-path-order') ? [...items].reverse() : [...items];
}

/** The positions of a .geojson route: in the plain lists' order, but in the order driven under geojson-path-order. */
export function geojsonOrder<T>(items: readonly T[], variants: Variants): T[] {
  return variants.has('geojson-path-order') ? [...items] : historyOrder(items, variants);
}

/** `name`: comma-separated signal names; null means all. */
export function parseSignalNames(query: Query, faults: Faults): Set<string> | null {
  const raw = single(query, 'name');
  if (raw === undefined) return null;
  // fault signal-name-case-insensitive: each name matched to a known one whatever its case (a case-insensitive collation).
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .map((n) => (faults.has('signal-name-case-insensitive') ? (SIGNAL_NAMES.find((k) => k.toLowerCase() === n.toLowerCase()) ?? n) : n));
  const known = names.filter((n) => isSignalName(n));
  if (known.length < names.length) {
    // fault unknown-signal-name-accepted: unknown names are dropped without error.
    // fault unknown-signal-name-mixed-accepted: the same, as long as one name is known.
    if (faults.has('unknown-signal-name-accepted') || (faults.has('unknown-signal-name-mixed-accepted') && known.length > 0)) return new Set(known);
    throw parametersError(400, 'Wrong signal name', 'Use known signal names separated by commas, e.g. name=LockSts,Odometer');
  }
  // fault name-filter-single-ignored: one name (no comma) stays a string, and only a list is applied.
  if (faults.has('name-filter-single-ignored') && !raw.includes(',')) return null;
  return new Set(names);
}

/** Whether the name filter (null: every name) selects a signal of this name: by exact name. */
export function nameSelected(filter: ReadonlySet<string> | null, name: string, faults: Faults): boolean {
  if (filter === null) return true;
  // fault name-filter-substring: the names matched as LIKE '%name%' patterns.
  if (faults.has('name-filter-substring')) return [...filter].some((n) => name.includes(n));
  return filter.has(name);
}

/** `inclusive` on car trips: "true" or "false" (case-insensitive), default false. */
export function parseInclusive(query: Query): boolean {
  const raw = single(query, 'inclusive');
  if (raw === undefined) return false;
  const lowered = raw.toLowerCase();
  if (lowered === 'true') return true;
  if (lowered === 'false') return false;
  throw parametersError(400, 'Invalid inclusive value', 'Give inclusive=true or inclusive=false');
}

/** `initialValue` on car stats: a finite decimal number, default 0. */
export function parseInitialValue(query: Query): number {
  const raw = single(query, 'initialValue');
  if (raw === undefined) return 0;
  if (!/^-?\d+(\.\d+)?$/.test(raw) || !Number.isFinite(Number(raw))) {
    throw parametersError(400, 'Invalid initialValue', 'Give initialValue as a number, e.g. initialValue=1200.5');
  }
  return Number(raw);
}
