// Serialization of records into the JSON shapes of the spec and profile, built by hand (never from
// a schema). Car and user dates use the strict `YYYY-MM-DDThh:mm:ss+00:00` shape; the others RFC 3339.

import { formatRfc3339, formatStrict, formatStrictZulu } from '../clock';
import { round } from '../data/geo';
import type { Accelerometer, Car, CarHistory, Location, Signal, Trip, User } from '../data/types';
import type { Faults } from '../faults';

export function userView(user: User, withEmail: boolean, faults: Faults): Record<string, unknown> {
  const view: Record<string, unknown> = { id: user.id };
  // fault user-lastname-snake-case: a serializer that kept the database column name.
  view[faults.has('user-lastname-snake-case') ? 'last_name' : 'lastName'] = user.lastName;
  Object.assign(view, {
    firstName: user.firstName,
    nickName: user.nickName,
    gender: user.gender,
    birthDate: user.birthDate === null ? null : formatStrict(user.birthDate),
    licenceDeliveryDate: user.licenceDeliveryDate === null ? null : formatStrict(user.licenceDeliveryDate),
    role: user.role,
    isLocationEnabled: user.isLocationEnabled,
    creationDate: formatStrict(user.creationDate),
    lastUpdateDate: formatStrict(user.lastUpdateDate),
  });
  // fault user-by-id-missing-email: the by-id route reuses the /users/me serializer.
  if (withEmail && !faults.has('user-by-id-missing-email')) view.email = user.email;
  // fault user-by-id-names-swapped: the by-id serializer maps the name columns the wrong way round.
  if (withEmail && faults.has('user-by-id-names-swapped')) [view.firstName, view.lastName] = [user.lastName, user.firstName];
  return view;
}

export function carView(car: Car, faults: Faults): Record<string, unknown> {
  // fault car-date-zulu: dates written with toISOString-style "Z".
  const date = faults.has('car-date-zulu') ? formatStrictZulu : formatStrict;
  return {
    // fault car-id-string: ids passed through as strings.
    id: faults.has('car-id-string') ? String(car.id) : car.id,
    name: car.name,
    make: car.make,
    model: car.model,
    year: car.year,
    numberPlate: car.numberPlate,
    deviceId: car.deviceId,
    cardbId: car.cardbId,
    creationDate: date(car.creationDate),
    lastUpdateDate: date(car.lastUpdateDate),
  };
}

/** The POST /users/{userId}/cars answer: the car fields plus userId and timezone. */
export function createdCarView(car: Car, faults: Faults): Record<string, unknown> {
  const view: Record<string, unknown> = { ...carView(car, faults), userId: car.userId };
  // fault created-car-missing-timezone: the field is stored but not serialized.
  if (!faults.has('created-car-missing-timezone')) view.timezone = car.timezone;
  return view;
}

export function locationView(location: Location, faults: Faults): Record<string, unknown> {
  return {
    latitude: location.latitude,
    longitude: location.longitude,
    altitude: location.altitude,
    // fault location-satcount: the profile's one-off "satCount" spelling.
    [faults.has('location-satcount') ? 'satCount' : 'satellites']: location.satellites,
    heading: location.heading,
    date: formatRfc3339(location.date),
  };
}

export function signalView(signal: Signal, faults: Faults): Record<string, unknown> {
  return {
    name: signal.name,
    // fault signal-value-string: values kept as the raw strings of the device protocol.
    value: faults.has('signal-value-string') ? String(signal.value) : signal.value,
    date: formatRfc3339(signal.date),
  };
}

function accelerometerView(a: Accelerometer): Record<string, unknown> {
  return { x: a.x, y: a.y, z: a.z, date: formatRfc3339(a.date) };
}

export function tripSummaryView(trip: Trip, faults: Faults): Record<string, unknown> {
  const first = trip.locations[0];
  const last = trip.locations[trip.locations.length - 1];
  return {
    id: trip.id,
    beginLocation: locationView(first, faults),
    endLocation: locationView(last, faults),
    beginDate: formatRfc3339(trip.beginDate),
    endDate: formatRfc3339(trip.endDate),
  };
}

export function tripView(trip: Trip, faults: Faults): Record<string, unknown> {
  return {
    ...tripSummaryView(trip, faults),
    // fault trip-mileage-miles: unit conversion for a US dashboard left on.
    mileage: faults.has('trip-mileage-miles') ? round(trip.mileage * 0.621371, 3) : trip.mileage,
    // fault trip-usedtime-ms: duration left in milliseconds.
    usedTime: faults.has('trip-usedtime-ms') ? trip.usedTime * 1000 : trip.usedTime,
  };
}

/** Latest location, latest accelerometer and the latest value of each signal, up to `nowMs`. */
export function statusView(history: CarHistory, nowMs: number, faults: Faults): Record<string, unknown> {
  const locations = history.locations.filter((l) => l.date <= nowMs);
  const accelerometers = history.accelerometers.filter((a) => a.date <= nowMs);
  const latest = new Map<string, Signal>();
  for (const s of history.signals) if (s.date <= nowMs) latest.set(s.name, s);
  const signals = [...latest.values()].sort((a, b) => a.date - b.date || (a.name < b.name ? -1 : 1));
  const location = locations[locations.length - 1];
  const accelerometer = accelerometers[accelerometers.length - 1];
  return {
    accelerometer: accelerometer ? accelerometerView(accelerometer) : null,
    location: location ? locationView(location, faults) : null,
    // fault status-empty-signals-null: "no data" mapped to null.
    signals: signals.length === 0 && faults.has('status-empty-signals-null') ? null : signals.map((s) => signalView(s, faults)),
  };
}

export type StatType = 'MILEAGE' | 'USED_TIME';

export function carStatView(type: StatType, value: number, begin: number, end: number): Record<string, unknown> {
  return { beginDate: formatRfc3339(begin), endDate: formatRfc3339(end), type, value };
}

export function tripStatView(type: StatType, trip: Trip): Record<string, unknown> {
  return { type, value: type === 'MILEAGE' ? trip.mileage : trip.usedTime };
}

export function pointView(location: Location, faults: Faults): { type: 'Point'; coordinates: [number, number] } {
  return { type: 'Point', coordinates: coordinates(location, faults) };
}

/** GeoJSON position: [longitude, latitude]. */
export function coordinates(location: Location, faults: Faults): [number, number] {
  // fault geojson-lat-lon-swapped: the classic axis-order mistake.
  return faults.has('geojson-lat-lon-swapped') ? [location.latitude, location.longitude] : [location.longitude, location.latitude];
}
