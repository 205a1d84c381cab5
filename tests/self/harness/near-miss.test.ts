// Near-miss credentials (src/check-api/near-miss.ts): each form is another secret, never another
// spelling of the same one. A server may decode a token before comparing it, with decoders that ignore
// a base64 string's padding bits and trailing partial group, the characters outside their alphabet,
// and hex's letter case: a form that gives the same bytes would be a false alarm on a server that
// rightly takes it, so none may.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { nearMisses, pinNearMisses } from '../../../src/check-api/near-miss';

const decodings = (s: string) => [Buffer.from(s, 'base64'), Buffer.from(s, 'base64url'), Buffer.from(s, 'hex')].map((b) => b.toString('hex'));

test('every near-miss of a token differs from it as a string and under every lenient decoding that gives bytes', () => {
  const tokens = fc.oneof(
    fc.integer({ min: 8, max: 64 }).map((n) => randomBytes(n).toString('base64url')),
    fc.integer({ min: 8, max: 64 }).map((n) => randomBytes(n).toString('base64')),
    fc.integer({ min: 8, max: 64 }).map((n) => randomBytes(n).toString('hex')),
    fc.stringMatching(/^[A-Za-z0-9._~+/-]{6,80}$/),
  );
  fc.assert(
    fc.property(tokens, (token) => {
      const misses = nearMisses(token);
      for (const m of misses) {
        expect(m.value).not.toBe(token);
        const [a, b] = [decodings(token), decodings(m.value)];
        a.forEach((bytes, i) => {
          // Hex only for a hex token (a server decodes a token as what it is).
          if (bytes !== '' && (i < 2 || /^([0-9a-f]{2})+$/i.test(token))) expect(b[i], `${m.form} of ${token} under decoding ${i}`).not.toBe(bytes);
        });
      }
      // The last character is only ever dropped, never changed: its padding bits may not count.
      const changed = misses.find((m) => m.form === 'changed');
      if (changed) expect(changed.value.at(-1)).toBe(token.at(-1));
    }),
    { numRuns: 200 },
  );
});

test('a base64 token of a length whose next character adds no byte gets it in the middle; a hex token keeps its letter case', () => {
  const b64 = randomBytes(24).toString('base64url'); // 32 characters: one more at the end decodes to the same 24 bytes
  const longer = nearMisses(b64, ['longer'])[0].value;
  expect(longer.length).toBe(33);
  expect(longer.slice(0, 32)).not.toBe(b64);
  expect(nearMisses(randomBytes(16).toString('hex'), ['case'])).toEqual([]);
  // A form that cannot be made is left out: no letter to flip, too short.
  expect(nearMisses('12345678', ['case'])).toEqual([]);
  expect(nearMisses('a')).toEqual([]);
});

test('the near-misses of a pin: a digit changed and two swapped keep its length, one more, one less and a leading zero do not', () => {
  expect(pinNearMisses('975310')).toEqual([
    { form: 'changed', value: '975410', sameLength: true },
    { form: 'swapped', value: '795310', sameLength: true },
    { form: 'longer', value: '9753101', sameLength: false },
    { form: 'shorter', value: '97531', sameLength: false },
    { form: 'leading-zero', value: '0975310', sameLength: false },
  ]);
  // All digits alike: nothing to swap.
  expect(pinNearMisses('1111').map((m) => m.form)).toEqual(['changed', 'longer', 'shorter', 'leading-zero']);
});
