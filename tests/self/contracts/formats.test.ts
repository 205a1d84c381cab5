// The two custom date formats, tested directly against their rules.
import { test, expect } from '@playwright/test';
import { isCarDate, isRfc3339DateTime } from '../../../src/schemas/validate';
import { DATES } from './examples';

// [value, car date?, RFC 3339 date-time?, why]
const CASES: Array<[string, boolean, boolean, string]> = [
  [DATES.car, true, true, 'the spec car shape'],
  [DATES.carNegative, true, true, 'negative offset'],
  ['2016-03-01T02:24:20-00:00', true, true, '-00:00 (RFC 3339 § 4.3 unknown local offset)'],
  ['2016-03-01T02:24:20+23:59', true, true, 'largest offset'],
  [DATES.fraction6, false, true, 'profile example, 6-digit fraction'],
  [DATES.zulu, false, true, 'profile example, Z'],
  [DATES.fraction9, false, true, 'profile example, 9-digit fraction'],
  ['2016-03-01t02:24:20z', false, true, 'lower-case t and z (RFC 3339 § 5.6 note)'],
  ['2016-03-01T02:24:20.5+05:30', false, true, 'one-digit fraction with offset'],
  ['2016-02-29T00:00:00+00:00', true, true, 'leap year'],
  ['2000-02-29T00:00:00Z', false, true, '2000 is a leap year (divisible by 400)'],
  ['1900-02-29T00:00:00Z', false, false, '1900 is not a leap year'],
  ['2026-02-30T10:00:00+01:00', false, false, 'February 30'],
  ['2016-04-31T10:00:00Z', false, false, 'April 31'],
  ['2016-00-10T10:00:00Z', false, false, 'month 0'],
  ['2016-13-10T10:00:00Z', false, false, 'month 13'],
  ['2016-01-00T10:00:00Z', false, false, 'day 0'],
  ['2016-03-01T24:00:00+00:00', false, false, '24:00:00'],
  ['2016-03-01T25:00:00+00:00', false, false, 'hour 25'],
  ['2016-03-01T10:60:00+00:00', false, false, 'minute 60'],
  ['2016-12-31T23:59:60Z', false, true, 'leap second at 23:59 UTC'],
  ['2016-12-31T23:59:60+00:00', true, true, 'leap second at 23:59 UTC, car shape'],
  ['2016-12-31T18:59:60-05:00', true, true, 'leap second at 23:59 UTC in local time'],
  ['2017-01-01T00:59:60+01:00', true, true, 'leap second at 23:59 UTC the day before'],
  ['2016-12-31T12:59:60Z', false, false, 'second 60 not at 23:59 UTC'],
  ['2016-12-31T23:59:61Z', false, false, 'second 61'],
  ['2016-03-01T10:00:00+24:00', false, false, 'offset hour 24'],
  ['2016-03-01T10:00:00+01:60', false, false, 'offset minute 60'],
  ['2016-03-01T10:00:00+0100', false, false, 'offset without colon'],
  ['2016-03-01T10:00:00+01', false, false, 'offset without minutes'],
  ['2016-03-01T10:00:00', false, false, 'no offset'],
  ['2016-03-01 10:00:00+00:00', false, false, 'space separator'],
  ['2016-03-01T10:00+00:00', false, false, 'no seconds'],
  ['2016-03-01T10:00:00.+00:00', false, false, 'empty fraction'],
  ['2016-03-01', false, false, 'date only'],
  ['20160301T100000Z', false, false, 'ISO 8601 basic format'],
  ['2016-3-1T10:00:00Z', false, false, 'one-digit month and day'],
  ['2016-03-01T10:00:00Z ', false, false, 'trailing space'],
  ['２016-03-01T10:00:00Z', false, false, 'non-ASCII digit'],
];

for (const [value, car, rfc, why] of CASES) {
  test(`${JSON.stringify(value)}: car date ${car}, RFC 3339 ${rfc} (${why})`, () => {
    expect(isCarDate(value)).toBe(car);
    expect(isRfc3339DateTime(value)).toBe(rfc);
  });
}
