// Serialization of records into the JSON shapes of the spec and profile, built by hand (never from
// a schema). Car and user dates use the strict `YYYY-MM-DDThh:mm:ss+00:00` shape; the others RFC 3339.

import { formatInZone, formatRfc3339, formatRfc3339Zulu, formatStrict, formatStrictZulu } from '../clock';
import type { Switches } from '../context';
import { round } from '../data/geo';
import type { Accelerometer, Car, CarHistory, Location, Signal, Trip, User } from '../data/types';
import type { Variants } from '../switches';
import { extraMembers } from './extension';
import { createHash } from 'node:crypto';

/** The zone whose offset every date is written in under the dates-paris-offset variant. */
const PARIS = 'Europe/Paris';

/** The RFC 3339 date of locations, signals, accelerometers, trips and car stats. */
function recordDate(ms: number, variants: Variants): string {
  // variant dates-fraction-zulu: toISOString's shape (milliseconds and Z) instead of +00:00.
  // variant dates-paris-offset: the same instant as Paris wall-clock time, +01:00 or +02:00.
  const date = variants.has('dates-fraction-zulu')
    ? formatRfc3339Zulu(ms)
    : variants.has('dates-paris-offset')
      ? formatInZone(ms, PARIS, 'rfc3339')
      : formatRfc3339(ms);
  // variant blindp-dates-microseconds: six digits of fraction, as Python's isoformat() writes an aware datetime (the
  // offset as the other variants write it, so that combined they each still show).
  return variants.has('blindp-dates-microseconds') ? date.replace(/\.(\d{3})(Z|[+-]\d{2}:\d{2})$/, '.$1000$2') : date;
}

/** A user's or car's date, in the spec's strict shape (with Paris's offset under dates-paris-offset). */
function strictDate(ms: number, variants: Variants): string {
  return variants.has('dates-paris-offset') ? formatInZone(ms, PARIS, 'strict') : formatStrict(ms);
}

export function userView(user: User, withEmail: boolean, { faults, variants }: Switches): Record<string, unknown> {
  const view: Record<string, unknown> = { id: user.id };
  // fault user-lastname-snake-case: a serializer that kept the database column name.
  view[faults.has('user-lastname-snake-case') ? 'last_name' : 'lastName'] = user.lastName;
  Object.assign(view, {
    firstName: user.firstName,
    nickName: user.nickName,
    gender: user.gender,
    birthDate: user.birthDate === null ? null : strictDate(user.birthDate, variants),
    licenceDeliveryDate: user.licenceDeliveryDate === null ? null : strictDate(user.licenceDeliveryDate, variants),
    role: user.role,
    isLocationEnabled: user.isLocationEnabled,
    creationDate: strictDate(user.creationDate, variants),
    lastUpdateDate: strictDate(user.lastUpdateDate, variants),
  });
  // fault user-by-id-missing-email: the by-id route reuses the /users/me serializer.
  if (withEmail && !faults.has('user-by-id-missing-email')) view.email = user.email;
  // fault user-by-id-names-swapped: the by-id serializer maps the name columns the wrong way round.
  if (withEmail && faults.has('user-by-id-names-swapped')) [view.firstName, view.lastName] = [user.lastName, user.firstName];
  // fault blind-user-record-password: the by-id route serializes the whole row, its password column with it.
  if (withEmail && faults.has('blind-user-record-password')) view.password = user.password;
  // fault me-record-password-hash: the connected user's serializer copies the account row, its password hash with it.
  if (!withEmail && faults.has('me-record-password-hash')) view.passwordHash = passwordHash(user.password);
  return extraMembers(view, variants);
}

/** `zulu`: the dates written with "Z" (fault me-cars-date-zulu, decided by the route). */
export function carView(car: Car, { faults, variants }: Switches, { zulu = false } = {}): Record<string, unknown> {
  // fault car-date-zulu: dates written with toISOString-style "Z".
  const date = faults.has('car-date-zulu') || zulu ? formatStrictZulu : (ms: number) => strictDate(ms, variants);
  return extraMembers(
    {
      // fault car-id-string: ids passed through as strings.
      id: faults.has('car-id-string') ? String(car.id) : car.id,
      name: car.name,
      make: car.make,
      model: car.model,
      year: car.year,
      numberPlate: car.numberPlate,
      // fault car-no-device-empty-string: no device read from an empty text column.
      deviceId: car.deviceId === null && faults.has('car-no-device-empty-string') ? '' : car.deviceId,
      cardbId: car.cardbId,
      creationDate: date(car.creationDate),
      lastUpdateDate: date(car.lastUpdateDate),
    },
    variants,
  );
}

/** The POST /users/{userId}/cars answer: the car fields plus userId and timezone. */
export function createdCarView(car: Car, switches: Switches): Record<string, unknown> {
  const view: Record<string, unknown> = { ...carView(car, switches), userId: car.userId };
  // fault created-car-missing-timezone: the field is stored but not serialized.
  if (!switches.faults.has('created-car-missing-timezone')) view.timezone = car.timezone;
  return view;
}

export function locationView(location: Location, { faults, variants }: Switches): Record<string, unknown> {
  return extraMembers(
    {
      latitude: location.latitude,
      longitude: location.longitude,
      altitude: location.altitude,
      // fault location-satcount: the profile's one-off "satCount" spelling.
      [faults.has('location-satcount') ? 'satCount' : 'satellites']: location.satellites,
      heading: location.heading,
      date: recordDate(location.date, variants),
    },
    variants,
  );
}

export function signalView(signal: Signal, { faults, variants }: Switches): Record<string, unknown> {
  // fault status-signal-value-2: the lock state passed through from a device enum (0 open, 2 locked).
  const value = signal.name === 'LockSts' && signal.value === 1 && faults.has('status-signal-value-2') ? 2 : signal.value;
  return extraMembers(
    {
      name: signal.name,
      // fault signal-value-string: values kept as the raw strings of the device protocol.
      value: faults.has('signal-value-string') ? String(value) : value,
      date: recordDate(signal.date, variants),
    },
    variants,
  );
}

function accelerometerView(a: Accelerometer, { variants }: Switches): Record<string, unknown> {
  return extraMembers({ x: a.x, y: a.y, z: a.z, date: recordDate(a.date, variants) }, variants);
}

export function tripSummaryView(trip: Trip, switches: Switches): Record<string, unknown> {
  const first = trip.locations[0];
  const last = trip.locations[trip.locations.length - 1];
  return extraMembers(
    {
      id: trip.id,
      beginLocation: locationView(first, switches),
      endLocation: locationView(last, switches),
      beginDate: recordDate(trip.beginDate, switches.variants),
      endDate: recordDate(trip.endDate, switches.variants),
    },
    switches.variants,
  );
}

export function tripView(trip: Trip, switches: Switches): Record<string, unknown> {
  const { faults, variants } = switches;
  // fault trip-mileage-miles: unit conversion for a US dashboard left on.
  // variant trip-record-rounded: the record shows the mileage as a dashboard would (1 decimal).
  const mileage = faults.has('trip-mileage-miles')
    ? round(trip.mileage * 0.621371, 3)
    : variants.has('trip-record-rounded')
      ? round(trip.mileage, 1)
      : trip.mileage;
  return {
    ...tripSummaryView(trip, switches),
    mileage,
    // fault trip-usedtime-ms: duration left in milliseconds.
    usedTime: faults.has('trip-usedtime-ms') ? trip.usedTime * 1000 : trip.usedTime,
  };
}

/** Latest location, latest accelerometer and the latest value of each signal, up to `nowMs`. */
export function statusView(history: CarHistory, nowMs: number, switches: Switches): Record<string, unknown> {
  const locations = history.locations.filter((l) => l.date <= nowMs);
  const accelerometers = history.accelerometers.filter((a) => a.date <= nowMs);
  const latest = new Map<string, Signal>();
  for (const s of history.signals) if (s.date <= nowMs) latest.set(s.name, s);
  const signals = [...latest.values()].sort((a, b) => a.date - b.date || (a.name < b.name ? -1 : 1));
  const location = locations[locations.length - 1];
  const accelerometer = accelerometers[accelerometers.length - 1];
  return extraMembers(
    {
      accelerometer: accelerometer ? accelerometerView(accelerometer, switches) : null,
      location: location ? locationView(location, switches) : null,
      // fault status-empty-signals-null: "no data" mapped to null.
      signals: signals.length === 0 && switches.faults.has('status-empty-signals-null') ? null : signals.map((s) => signalView(s, switches)),
    },
    switches.variants,
  );
}

export type StatType = 'MILEAGE' | 'USED_TIME';

export function carStatView(type: StatType, value: number, begin: number, end: number, { variants }: Switches): Record<string, unknown> {
  return extraMembers({ beginDate: recordDate(begin, variants), endDate: recordDate(end, variants), type, value }, variants);
}

export function tripStatView(type: StatType, trip: Trip, { variants }: Switches): Record<string, unknown> {
  return extraMembers({ type, value: type === 'MILEAGE' ? trip.mileage : trip.usedTime }, variants);
}

export function pointView(location: Location, switches: Switches): { type: 'Point'; coordinates: [number, number] } {
  return { type: 'Point', coordinates: coordinates(location, switches) };
}

/** GeoJSON position: [longitude, latitude]. */
export function coordinates(location: Location, { faults }: Switches): [number, number] {
  // fault geojson-lat-lon-swapped: the classic axis-order mistake.
  return faults.has('geojson-lat-lon-swapped') ? [location.latitude, location.longitude] : [location.longitude, location.latitude];
}

/** A stored password's hash as a password column holds it (fault me-record-password-hash). */
function passwordHash(password: string): string {
  return `sha256$${createHash('sha256').update(password).digest('hex')}`;
}
