// Validation of the car creation body (profile, "Car creation body"):
// make string 3..64 required; model string 1..64 required; name string 0..64; year int;
// numberPlate string 0..64; timezone an existing IANA zone name, default Europe/Paris.

import { hashString } from '../data/prng';
import type { Car } from '../data/types';
import { isPlainObject, parseJson, rawBody } from '../http/body';
import { accessDenied } from '../auth/guard';
import { internalError, parametersError } from '../http/errors';
import type { Faults, Variants } from '../switches';

/** The fields of the Car record that the body gives. */
export type CarInput = Pick<Car, 'name' | 'make' | 'model' | 'year' | 'numberPlate' | 'timezone'> & {
  /** The body's other members, which the server never keeps (but for the faults that do: routes/users.ts). */
  others: Record<string, unknown>;
};

/** The members of the creation body (profile, "Car creation body"). */
const BODY_MEMBERS: ReadonlySet<string> = new Set(['make', 'model', 'name', 'year', 'numberPlate', 'timezone']);

const TIME_ZONES: ReadonlySet<string> = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

function isTimeZone(name: string): boolean {
  return TIME_ZONES.has(name);
}

// The text faults below are reached only where they change the text or its count (a character beyond
// ASCII, beyond U+FFFF, markup, a control), so that the power proof knows which requests they can touch.

/**
 * A text's length in the profile's characters: Unicode code points. Faults car-text-length-utf16 and
 * car-text-length-bytes count as JavaScript's String length (UTF-16 units) and as Go's len (UTF-8 bytes) do.
 */
function lengthOf(s: string, faults: Faults): number {
  const codePoints = [...s].length;
  if (s.length !== codePoints && faults.has('car-text-length-utf16')) return s.length;
  const bytes = Buffer.byteLength(s, 'utf8');
  if (bytes !== codePoints && faults.has('car-text-length-bytes')) return bytes;
  return codePoints;
}

/** Characters outside the Basic Multilingual Plane (a surrogate pair in UTF-16, four bytes in UTF-8). */
const ASTRAL = /[\u{10000}-\u{10FFFF}]/gu;
/** C0 control characters and DEL: what PHP's FILTER_FLAG_STRIP_LOW (and DEL with it) removes. */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const CONTROLS = /[\u0000-\u001F\u007F]/g;
const MARKUP = /[&<>"']/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };
/** The text holds a character of the class (a global pattern, tested without its state). */
const holds = (text: string, pattern: RegExp) => text.search(pattern) >= 0;

/**
 * A text as it arrives at validation. Variant car-text-trimmed: white space at either end trimmed
 * first, as Django REST framework's CharField and Laravel's TrimStrings do. Fault car-text-astral-stripped:
 * the characters outside the BMP removed first (an emoji filter in front of a utf8mb3 column);
 * fault car-text-controls-stripped: the control characters removed first (a sanitizer of low characters).
 */
function received(value: string, faults: Faults, variants: Variants): string {
  let text = variants.has('car-text-trimmed') ? value.trim() : value;
  if (holds(text, ASTRAL) && faults.has('car-text-astral-stripped')) text = text.replace(ASTRAL, '');
  if (holds(text, CONTROLS) && faults.has('car-text-controls-stripped')) text = text.replace(CONTROLS, '');
  return text;
}

/**
 * A valid text as the store keeps it. Variant car-text-nfc: in Unicode NFC (canonically equivalent
 * text). Fault car-text-utf8mb3: each character outside the BMP kept as '?' (a utf8mb3 column behind a
 * utf8mb4 connection); fault car-text-markup-escaped: HTML-escaped on the way in (htmlspecialchars).
 */
function stored(text: string, faults: Faults, variants: Variants): string {
  let kept = variants.has('car-text-nfc') ? text.normalize('NFC') : text;
  if (holds(kept, ASTRAL) && faults.has('car-text-utf8mb3')) kept = kept.replace(ASTRAL, '?');
  if (holds(kept, MARKUP) && faults.has('car-text-markup-escaped')) kept = kept.replace(MARKUP, (c) => ENTITIES[c]);
  return kept;
}

const invalid = (message: string) =>
  parametersError(400, message, 'Send a JSON object: make (3-64 chars), model (1-64 chars), optional name, year, numberPlate, timezone');

function text(body: Record<string, unknown>, field: string, min: number, max: number, required: boolean, faults: Faults, variants: Variants): string | null {
  const sent = body[field];
  if (sent === undefined || sent === null) {
    if (required) throw invalid(`${field} is required`);
    return null;
  }
  if (typeof sent !== 'string') throw invalid(`${field} must be a string`);
  const value = received(sent, faults, variants);
  // variant car-text-controls-refused: a text holding a control character is refused (as PostgreSQL refuses NUL).
  if (variants.has('car-text-controls-refused') && holds(value, CONTROLS)) throw invalid(`${field} must not hold control characters`);
  const length = (s: string) => lengthOf(s, faults);
  // fault car-create-64-refused: the maximum compared with >= (a 64-character value is refused).
  // fault car-create-model-64-refused: the same, on the model only.
  const maxRefused = faults.has('car-create-64-refused') || (field === 'model' && faults.has('car-create-model-64-refused'));
  // fault car-create-make-3-refused: the make's minimum compared with > (a 3-character make is refused).
  const minRefused = field === 'make' && faults.has('car-create-make-3-refused');
  if (length(value) < min || length(value) > max || (maxRefused && length(value) >= max) || (minRefused && length(value) <= min)) {
    throw invalid(`${field} must be ${min} to ${max} characters long`);
  }
  // faults car-create-empty-name-refused, car-create-empty-plate-refused: an empty optional text taken for a bad one.
  if (
    value === '' &&
    ((field === 'name' && faults.has('car-create-empty-name-refused')) || (field === 'numberPlate' && faults.has('car-create-empty-plate-refused')))
  ) {
    throw invalid(`${field} must not be empty`);
  }
  return stored(value, faults, variants);
}

/**
 * The body of POST /users/{userId}/cars for `userId` (the path's user), validated: 400 for a rule the
 * profile states. Its other members are ignored (variant car-body-strict: refused with 400; variant
 * car-body-user-id-checked: a userId naming another user refused as that user's, 403).
 */
export function parseCarBody(raw: unknown, faults: Faults, variants: Variants, userId: number): CarInput {
  // fault car-text-latin1: the body's bytes decoded as Latin-1 (every non-ASCII character garbled).
  const parsed = parseJson(faults.has('car-text-latin1') ? Buffer.from(rawBody(raw), 'utf8').toString('latin1') : raw);
  if (!parsed.ok) throw invalid('Body must be a JSON object');
  if (!isPlainObject(parsed.value)) {
    // fault car-create-array-body-500: `body.make` read on a non-object blows up.
    if (faults.has('car-create-array-body-500')) {
      throw internalError();
    }
    throw invalid('Body must be a JSON object');
  }
  const body = parsed.value;
  // variant car-body-user-id-checked: a userId member naming another user than the path's is refused as that user's.
  if (variants.has('car-body-user-id-checked') && body.userId !== undefined && body.userId !== userId) throw accessDenied('user');
  // variant car-body-strict: a member the profile's creation body does not list is refused.
  const unknown = Object.keys(body).filter((k) => !BODY_MEMBERS.has(k));
  if (variants.has('car-body-strict') && unknown.length) throw invalid(`Unknown member ${unknown.map((k) => `'${k}'`).join(', ')}`);
  // fault car-create-short-make-accepted: minimum length 1 instead of 3.
  const make = text(body, 'make', faults.has('car-create-short-make-accepted') ? 1 : 3, 64, true, faults, variants) as string;
  // fault car-create-model-optional: model validated like the optional fields.
  const model = text(body, 'model', 1, 64, !faults.has('car-create-model-optional'), faults, variants);
  const name = text(body, 'name', 0, 64, false, faults, variants);
  const numberPlate = text(body, 'numberPlate', 0, 64, false, faults, variants);

  let year = 0; // "year may be 0": the value of an unknown year
  if (body.year !== undefined && body.year !== null) {
    if (typeof body.year !== 'number' || !Number.isSafeInteger(body.year) || body.year < 0 || body.year > 9999) {
      throw invalid('year must be an integer between 0 and 9999');
    }
    year = body.year;
  }

  // fault created-car-default-timezone-utc: the server's zone as default.
  let timezone = faults.has('created-car-default-timezone-utc') ? 'UTC' : 'Europe/Paris';
  if (body.timezone !== undefined && body.timezone !== null) {
    if (typeof body.timezone !== 'string') throw invalid('timezone must be a string');
    // fault car-create-bad-timezone-accepted: any non-empty string stored.
    const accepted = isTimeZone(body.timezone) || (faults.has('car-create-bad-timezone-accepted') && body.timezone !== '');
    if (!accepted) throw invalid('timezone must be an IANA time zone name, e.g. Europe/Paris');
    // fault created-car-ignores-timezone: the field is validated but never copied into the new car.
    if (!faults.has('created-car-ignores-timezone')) timezone = body.timezone;
  }

  return {
    make,
    model,
    name: name ?? [...`${make} ${model ?? ''}`.trim()].slice(0, 64).join(''),
    year,
    numberPlate,
    timezone,
    others: Object.fromEntries(unknown.map((k) => [k, body[k]])),
  };
}

/** cardbId of a created car: a stable number derived from make and model (the service's car type). */
export function cardbIdFor(make: string, model: string | null): number {
  return 10000 + (hashString(`${make.toLowerCase()}|${(model ?? '').toLowerCase()}`) % 90000);
}
