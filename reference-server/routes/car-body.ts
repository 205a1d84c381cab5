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

const length = (s: string) => [...s].length;

const invalid = (message: string) =>
  parametersError(400, message, 'Send a JSON object: make (3-64 chars), model (1-64 chars), optional name, year, numberPlate, timezone');

function text(body: Record<string, unknown>, field: string, min: number, max: number, required: boolean, faults: Faults): string | null {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required) throw invalid(`${field} is required`);
    return null;
  }
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
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
  return value;
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
  const make = text(body, 'make', faults.has('car-create-short-make-accepted') ? 1 : 3, 64, true, faults) as string;
  // fault car-create-model-optional: model validated like the optional fields.
  const model = text(body, 'model', 1, 64, !faults.has('car-create-model-optional'), faults);
  const name = text(body, 'name', 0, 64, false, faults);
  const numberPlate = text(body, 'numberPlate', 0, 64, false, faults);

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
