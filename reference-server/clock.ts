// Time helpers: every date the server emits or parses goes through here, so formats stay in one place.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function datePart(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function timePart(d: Date): string {
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

type Shape = 'strict' | 'rfc3339';

/**
 * The instant as wall-clock time at `offset` minutes east of UTC, written with that offset (`Z` for
 * the Zulu forms): the strict shape has no fraction, rfc3339 has milliseconds.
 */
function format(ms: number, shape: Shape, offset: number | 'Z'): string {
  const local = new Date(ms + (offset === 'Z' ? 0 : offset) * 60_000);
  const fraction = shape === 'rfc3339' ? `.${pad(local.getUTCMilliseconds(), 3)}` : '';
  const minutes = offset === 'Z' ? 0 : Math.abs(offset);
  const zone = offset === 'Z' ? 'Z' : `${offset < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  return `${datePart(local)}T${timePart(local)}${fraction}${zone}`;
}

/** The spec's strict car/user date shape: `YYYY-MM-DDThh:mm:ss+00:00` (no fraction, no Z). */
export function formatStrict(ms: number): string {
  return format(ms, 'strict', 0);
}

/** Same instant in the strict shape but ending in Z (used only by the car-date-zulu fault). */
export function formatStrictZulu(ms: number): string {
  return format(ms, 'strict', 'Z');
}

/** RFC 3339 with milliseconds and an explicit offset, for locations, signals, trips and stats. */
export function formatRfc3339(ms: number): string {
  return format(ms, 'rfc3339', 0);
}

/** RFC 3339 with milliseconds and `Z` (toISOString), for the dates-fraction-zulu variant. */
export function formatRfc3339Zulu(ms: number): string {
  return format(ms, 'rfc3339', 'Z');
}

/** The instant as the wall-clock time of a zone, with that zone's offset (the dates-paris-offset variant). */
export function formatInZone(ms: number, timeZone: string, shape: Shape): string {
  return format(ms, shape, zoneOffsetMinutes(ms, timeZone));
}

/** 00:00:00 UTC on the 1st of the month containing `ms`. */
export function monthStartUtc(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** 00:00:00 UTC of the day containing `ms`. */
export function dayStartUtc(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** Offset of a time zone from UTC at an instant, in minutes (east positive). */
export function zoneOffsetMinutes(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? '0');
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000);
}

// RFC 3339 date-time. The offset may arrive as " hh:mm" when a client left '+' unencoded in the
// query string (the query parser turns '+' into a space); that is accepted as '+hh:mm'.
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+\- ]\d{2}:\d{2})$/;

// Date.UTC maps years 0..99 to 1900..1999; set the full year afterwards so "0050-01-01" stays year 50.
function utcDate(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0): Date {
  const d = new Date(Date.UTC(2000, 0, 1));
  d.setUTCFullYear(year, monthIndex, day);
  d.setUTCHours(hour, minute, second, 0);
  return d;
}

/** Parses an RFC 3339 date-time into epoch ms; null when it is not one (wrong shape or impossible values). */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, off] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = utcDate(year, month, 0).getUTCDate();
  if (day > daysInMonth) return null;
  let offsetMinutes = 0;
  if (off !== 'Z' && off !== 'z') {
    const sign = off[0] === '-' ? -1 : 1;
    const oh = Number(off.slice(1, 3));
    const om = Number(off.slice(4, 6));
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const millis = frac ? Math.floor(Number(`0${frac}`) * 1000) : 0;
  // A leap second (:60) is folded onto the next second, as Date cannot hold it.
  const utc = utcDate(year, month - 1, day, hour, minute, Math.min(second, 59)).getTime() + (second === 60 ? 1000 : 0) + millis;
  return utc - offsetMinutes * 60000;
}
