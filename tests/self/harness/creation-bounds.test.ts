// The car creation bodies of the catalogue sit where their requirements say: CAR-CREATE-FULL at every
// upper bound, CAR-CREATE-BOUNDS at every lower bound, CAR-CREATE-INVALID just outside each bound
// (v3-profile.md § Query parameters, car creation body: make 3..64, model 1..64, name 0..64,
// numberPlate 0..64). An edit that moves a body off its bound would leave a fault at that bound unseen
// while the checks still pass, so it is caught here. CAR-CREATE-FULL uses the Basic Multilingual
// Plane only, where code points and UTF-16 units agree; CAR-CREATE-TEXT-EXACT and CAR-CREATE-INVALID
// put characters outside it at the bounds, counted as code points (decision D-TEXT-CHARACTERS), each a
// grapheme of its own and unchanged by every normalization form, so that a server counting graphemes
// or counting after it normalizes counts the same; no text the suite expects kept starts or ends with
// white space (left open). The lower-bound car carries the suite's mark (it has no room for the prefix).
import { expect, test } from '@playwright/test';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import { CREATED_CAR_SHORT_MAKE, isSuiteCreatedCar } from '../../../src/check-api/check-context';
import { expandDeep } from '../../../src/catalogue/templates';

const catalogue = loadCatalogue();
const TEXTS = ['make', 'model', 'name', 'numberPlate'] as const;
const BOUNDS: Record<(typeof TEXTS)[number], [number, number]> = { make: [3, 64], model: [1, 64], name: [0, 64], numberPlate: [0, 64] };

function body(id: string, name = 'body'): Record<string, unknown> {
  const requirement = catalogue.requirements.find((r) => r.id === id);
  if (!requirement) throw new Error(`no requirement ${id}`);
  return expandDeep(requirement.params[name] as Record<string, unknown>);
}

const codePoints = (s: unknown) => [...String(s)].length;
const bmpOnly = (s: unknown) => [...String(s)].every((c) => c.codePointAt(0)! <= 0xffff);
const astral = (c: string) => c.codePointAt(0)! > 0xffff;
const graphemes = (s: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].length;
const FORMS = ['NFC', 'NFD', 'NFKC', 'NFKD'] as const;
// eslint-disable-next-line no-control-regex -- the control characters are the point
const CONTROL = /[\u0000-\u001f\u007f]/;

test('CAR-CREATE-FULL: every text exactly at its upper bound, in the Basic Multilingual Plane, normalized (NFC)', () => {
  const full = body('CAR-CREATE-FULL');
  for (const field of TEXTS) {
    expect(codePoints(full[field]), field).toBe(BOUNDS[field][1]);
    expect(String(full[field]).length, `${field} in UTF-16 units`).toBe(BOUNDS[field][1]);
    expect(bmpOnly(full[field]), field).toBe(true);
    expect(String(full[field]).normalize('NFC'), field).toBe(full[field]);
  }
  expect(isSuiteCreatedCar(full)).toBe(true);
});

test("CAR-CREATE-BOUNDS: every text exactly at its lower bound, the car marked as the suite's", () => {
  const low = body('CAR-CREATE-BOUNDS');
  for (const field of TEXTS) expect(codePoints(low[field]), field).toBe(BOUNDS[field][0]);
  expect(low.make).toBe(CREATED_CAR_SHORT_MAKE);
  expect(isSuiteCreatedCar(low)).toBe(true);
});

test('CAR-CREATE-INVALID: a body just outside each bound, the rest of it valid', () => {
  const bodies = Object.values(body('CAR-CREATE-INVALID', 'bodies')) as unknown[];
  const outside = (field: (typeof TEXTS)[number], length: number) =>
    bodies.some((b) => {
      if (!b || typeof b !== 'object' || Array.isArray(b)) return false;
      const rest = Object.entries(b).filter(([k]) => k !== field);
      const restValid = rest.every(
        ([k, v]) => !(k in BOUNDS) || (typeof v === 'string' && codePoints(v) >= BOUNDS[k as keyof typeof BOUNDS][0] && codePoints(v) <= 64),
      );
      return (
        typeof (b as Record<string, unknown>)[field] === 'string' &&
        codePoints((b as Record<string, unknown>)[field]) === length &&
        restValid &&
        'make' in b &&
        'model' in b
      );
    });
  expect(outside('make', 2)).toBe(true);
  expect(outside('make', 65)).toBe(true);
  expect(outside('model', 0)).toBe(true);
  expect(outside('model', 65)).toBe(true);
  expect(outside('name', 65)).toBe(true);
  expect(outside('numberPlate', 65)).toBe(true);
  // Again in characters outside the BMP: counted in UTF-16 units or UTF-8 bytes, the make of 2 passes.
  const astralOutside = (field: (typeof TEXTS)[number], length: number) =>
    bodies.some((b) => {
      const text = (b as Record<string, unknown> | null)?.[field];
      return typeof text === 'string' && codePoints(text) === length && [...text].every(astral) && graphemes(text) === length;
    });
  expect(astralOutside('make', 2)).toBe(true);
  for (const field of TEXTS) expect(astralOutside(field, 65), field).toBe(true);
});

test('CAR-CREATE-TEXT-EXACT: characters outside the BMP at every upper bound, each its own grapheme, unchanged by every normalization', () => {
  const bodies = body('CAR-CREATE-TEXT-EXACT', 'bodies') as Record<string, Record<string, unknown>>;
  const bound = bodies['outside the BMP at the upper bound'];
  for (const field of TEXTS) {
    const text = String(bound[field]);
    expect(codePoints(text), field).toBe(BOUNDS[field][1]);
    expect(graphemes(text), `${field} in graphemes`).toBe(BOUNDS[field][1]);
    // Only the name's mark is in the BMP: every reading but code points puts it past the bound.
    expect([...text].filter((c) => !astral(c)).join(''), field).toBe(field === 'name' ? 'VDS conformance ' : '');
    for (const form of FORMS) expect(text.normalize(form), `${field} ${form}`).toBe(text);
  }
  for (const [what, b] of Object.entries(bodies)) {
    expect(isSuiteCreatedCar(b), what).toBe(true);
    for (const field of TEXTS.filter((f) => f in b)) {
      const text = String(b[field]);
      expect(text.trim(), `${what} ${field}: no white space at either end`).toBe(text);
      expect(codePoints(text), `${what} ${field}`).toBeGreaterThanOrEqual(BOUNDS[field][0]);
      expect(codePoints(text), `${what} ${field}`).toBeLessThanOrEqual(BOUNDS[field][1]);
    }
  }
});

test("CAR-CREATE-TEXT-CONTROLS: control characters inside the texts only, the cars marked as the suite's", () => {
  for (const [what, b] of Object.entries(body('CAR-CREATE-TEXT-CONTROLS', 'bodies') as Record<string, Record<string, unknown>>)) {
    expect(isSuiteCreatedCar(b), what).toBe(true);
    expect(
      TEXTS.some((f) => CONTROL.test(String(b[f] ?? ''))),
      what,
    ).toBe(true);
    for (const field of TEXTS.filter((f) => f in b)) expect(String(b[field]).trim(), `${what} ${field}`).toBe(b[field]);
  }
});
