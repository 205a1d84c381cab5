// The two date formats of the contracts, as plain predicates (registered on ajv by src/schemas/validate.ts).
// ajv-formats' own `date-time` is too lax for a conformance suite (it accepts a space separator and
// an offset without a colon), so both formats are written out here against their sources.

/** Readable expectation used in violation reports, per format name. */
export const FORMAT_EXPECTATIONS: Record<string, string> = {
  'vds-car-date': 'format vds-car-date (YYYY-MM-DDThh:mm:ss±hh:mm)',
  'vds-date-time': 'format vds-date-time (RFC 3339 date-time with offset)',
};

// vehicle-data-service-v3.md § Car record: "shape `YYYY-MM-DDThh:mm:ss+hh:mm`" (sign + or -).
const CAR_DATE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([+-])(\d{2}):(\d{2})$/;

// RFC 3339 § 5.6: full-date "T" full-time, time-secfrac = "." 1*DIGIT, time-offset = "Z" / ("+" / "-") hh ":" mm.
// "T" and "Z" may be lower case (the note under the § 5.6 grammar).
const RFC3339_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * The two shapes as ECMA-262 patterns, by format name: for a description other tools read
 * (docs/openapi.yaml writes each date as the standard format date-time plus its shape's pattern).
 */
export const FORMAT_PATTERNS: Record<string, string> = {
  'vds-car-date': CAR_DATE.source,
  'vds-date-time': RFC3339_DATE_TIME.source,
};

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/**
 * A real calendar date and time of day, with a valid offset. Second 60 is a leap second and is
 * allowed only where RFC 3339 § 5.6/5.7 allows it: at 23:59 UTC once the offset is applied
 * (e.g. 23:59:60Z or 18:59:60-05:00).
 */
function validParts(
  y: string,
  mo: string,
  d: string,
  h: string,
  mi: string,
  s: string,
  sign: string | undefined,
  oh: string | undefined,
  om: string | undefined,
): boolean {
  const year = +y,
    month = +mo,
    day = +d,
    hour = +h,
    minute = +mi,
    second = +s;
  const offH = oh === undefined ? 0 : +oh,
    offM = om === undefined ? 0 : +om;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (offH > 23 || offM > 59) return false;
  if (second < 60) return true;
  const offset = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
  const utcMinuteOfDay = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
  return utcMinuteOfDay === 23 * 60 + 59;
}

/** `vds-car-date`: exactly YYYY-MM-DDThh:mm:ss±hh:mm (no fraction, no Z) and a real date and time. */
export function isCarDate(value: string): boolean {
  const m = CAR_DATE.exec(value);
  return m !== null && validParts(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]);
}

/** `vds-date-time`: RFC 3339 § 5.6 date-time exactly, and a real date and time. */
export function isRfc3339DateTime(value: string): boolean {
  const m = RFC3339_DATE_TIME.exec(value);
  return m !== null && validParts(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]);
}
