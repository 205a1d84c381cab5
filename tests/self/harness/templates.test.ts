import { expect, test } from '@playwright/test';
import { expandDeep, expandTemplate, rawBody, rfc3339, unknownIdLike } from '../../../src/catalogue/templates';

const now = new Date('2026-11-22T10:20:30.456Z');

test('@now and @now-Nd are RFC 3339 date-times with an offset', () => {
  expect(expandTemplate('@now', now)).toBe('2026-11-22T10:20:30+00:00');
  expect(expandTemplate('@now-40d', now)).toBe('2026-10-13T10:20:30+00:00');
  expect(rfc3339(now)).toBe('2026-11-22T10:20:30+00:00');
});

test('@repeat builds long values and @raw marks raw bodies', () => {
  expect(expandTemplate('@repeat(ab,3)')).toBe('ababab');
  expect(expandDeep({ a: ['@repeat(x,2)'] })).toEqual({ a: ['xx'] });
  expect(rawBody('@raw({"make": "Renault")')).toBe('{"make": "Renault"');
  expect(rawBody({ make: 'x' })).toBeUndefined();
});

test('unknown ids keep the shape of known ones and differ from them', () => {
  expect(unknownIdLike('12')).toMatch(/^\d+$/);
  expect(unknownIdLike('12')).not.toBe('12');
  const trip = '5f1c2a3b4c5d6e7f8a9b0c1d';
  expect(unknownIdLike(trip)).toMatch(/^[0-9a-f]{24}$/);
  expect(unknownIdLike(trip)).not.toBe(trip);
  expect(unknownIdLike('VDSREF0001')).toMatch(/^[A-Z]{6}\d{4}$/);
  expect(unknownIdLike('VDSREF0001')).not.toBe('VDSREF0001');
});
