// Path and query parameter parsing. Every bad value becomes a 4xx ApiError, never an exception
// that could turn into a 500.

import { monthStartUtc, parseRfc3339, zoneOffsetMinutes } from '../clock';
import { isSignalName } from '../data/types';
import type { Faults } from '../faults';
import { ApiError, parametersError } from './errors';

export type Query = Record<string, string | string[] | undefined>;

/** Up to 31 days between begin and end is "one month" (profile decision); more is 416. */
export const MAX_RANGE_MS = 31 * 24 * 3600 * 1000;

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
  const ms = parseRfc3339(raw);
  if (ms === null) {
    // fault unparseable-date-ignored: a bad date silently falls back to the default.
    if (faults.has('unparseable-date-ignored')) return undefined;
    throw parametersError(400, `Invalid ${name} date`, `Give ${name} as an RFC 3339 date-time, e.g. 2026-03-01T00:00:00+00:00`);
  }
  return ms;
}

/** begin/end with their defaults (begin = month start UTC, end = now) and the range rules. */
export function parseRange(query: Query, nowMs: number, faults: Faults): Range {
  const beginGiven = parseDate(query, 'begin', faults);
  const endGiven = parseDate(query, 'end', faults);
  const begin = beginGiven ?? defaultBegin(nowMs, faults);
  const end = endGiven ?? nowMs;
  if (begin > end && !faults.has('begin-after-end-accepted')) throw rangeIssue(faults);
  // fault range-limit-one-week: "one month" implemented as a week.
  const maxRange = faults.has('range-limit-one-week') ? 7 * 24 * 3600 * 1000 : MAX_RANGE_MS;
  if (end - begin > maxRange && !faults.has('range-too-long-accepted')) throw rangeIssue(faults);
  return { begin, end };
}

export function inRange(date: number, range: Range): boolean {
  return date >= range.begin && date <= range.end;
}

/** `limit`: null means no limit. */
export function parseLimit(query: Query, faults: Faults): number | null {
  const raw = single(query, 'limit');
  if (raw === undefined) return null;
  if (/^-\d+$/.test(raw) && !/^-0+$/.test(raw)) {
    // fault limit-negative-accepted: a negative limit is read as "no limit".
    if (faults.has('limit-negative-accepted')) return null;
    throw parametersError(400, "Limit can't be less than 0", 'Give a limit of 0 or more');
  }
  if (!/^-?\d+$/.test(raw)) throw parametersError(400, 'Limit must be an integer', 'Give limit as a whole number, e.g. limit=10');
  const value = Number(raw.replace(/^-/, ''));
  // fault limit-zero-means-all: 0 taken as "unlimited".
  if (value === 0 && faults.has('limit-zero-means-all')) return null;
  return value;
}

/** Keeps the `limit` most recent items (lists are in ascending date order, so the tail). */
export function applyLimit<T>(items: readonly T[], limit: number | null): T[] {
  if (limit === null || limit >= items.length) return [...items];
  if (limit === 0) return [];
  return items.slice(items.length - limit);
}

/** `name`: comma-separated signal names; null means all. */
export function parseSignalNames(query: Query, faults: Faults): Set<string> | null {
  const raw = single(query, 'name');
  if (raw === undefined) return null;
  const names = raw.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !isSignalName(n));
  if (unknown.length > 0) {
    // fault unknown-signal-name-accepted: unknown names are dropped without error.
    if (faults.has('unknown-signal-name-accepted')) return new Set(names.filter((n) => isSignalName(n)));
    throw parametersError(400, 'Wrong signal name', 'Use known signal names separated by commas, e.g. name=LockSts,Odometer');
  }
  return new Set(names);
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
