// Seeded, deterministic fake data. Users, cars and devices are fixed; trips are laid out backwards
// from the clock's "now" with a PRNG seeded per car, so the same now gives the same data and ids never
// depend on now. Coherence holds by construction: each trip's mileage is the haversine length of its
// locations, usedTime is endDate - beginDate, the car's lists are the unions of its trips' lists.

import { dayStartUtc, monthStartUtc } from '../clock';
import { bearingDeg, destination, haversineKm, LatLon, pathKm, round } from './geo';
import { Prng } from './prng';
import { Accelerometer, Car, CarHistory, Device, Location, Signal, Trip, User } from './types';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Ids of the seeded records, for tests and documentation. */
export const SEED_IDS = {
  alice: 101,
  bob: 102,
  /** alice's car with a device and a rich (~70 days) history. */
  aliceRichCar: 5001,
  /** alice's second car with a device and a short history. */
  aliceSecondCar: 5002,
  /** alice's car without a device and without any data. */
  aliceBareCar: 5003,
  /** alice's second car without a device or data (a second car for association by car: the suite's second device pair). */
  aliceSpareCar: 5006,
  /** bob's car with a device and history. */
  bobCar: 5004,
  /** bob's car without a device. */
  bobBareCar: 5005,
  /** First id given to a car created through POST /users/{userId}/cars. */
  firstCreatedCarId: 6001,
} as const;

export interface SeedOptions {
  /** Variant quiet-month: every history ends before the 1st of the current month (no data this month). */
  quietMonth?: boolean;
  /** Variant many-cars: alice has twelve more cars, listed first: the tenth driven twice in the last days, the others never. */
  manyCars?: boolean;
  /** Variant fleet-account: alice has 32 more cars, never driven, listed before every other. */
  fleetAccount?: boolean;
  /** Variant dense-history: alice's car with data recorded a position every second of its last month's trips. */
  denseMonth?: boolean;
  /** Variant sandbox-other-data: other ids for every user, car and trip, alice's first car (lowest id) one with no data. */
  otherIds?: boolean;
  /** Variant encoded-credentials: the users' passwords hold what a form must encode (ENCODED_PASSWORDS). */
  encodedPasswords?: boolean;
}

/** Variant encoded-credentials: passwords holding a space, '+', '%', '&', ':', '/' and non-ASCII letters. */
export const ENCODED_PASSWORDS: Readonly<Record<string, string>> = {
  'alice@reference.test': 'Pässwörd +%41&:/ alice',
  'bob@reference.test': 'bøb pass +%20&:/',
};

/**
 * Variant sandbox-other-data: the users' and cars' ids of another sandbox. Cars are listed by id, so
 * alice's car without data (5003) gets her lowest id and comes first.
 */
const OTHER_IDS: { users: Record<number, number>; cars: Record<number, number> } = {
  users: { 101: 7302, 102: 7305 },
  cars: { 5003: 210044, 5001: 210187, 5004: 210233, 5002: 210311, 5006: 210502, 5005: 210640 },
};

/** Variant dense-history: how far back the dense recording goes, and a position every this many seconds. */
const DENSE_DAYS = 32;
const DENSE_STEP_S = 1;

/** Variant many-cars: the first of alice's extra cars (ids from here). */
const MANY_CARS_FIRST_ID = 4001;
const MANY_CARS_COUNT = 12;
/** Variant many-cars: the one extra car with a device and a little data (the tenth listed). */
const MANY_CARS_DRIVEN_ID = MANY_CARS_FIRST_ID + 9;

export interface Seed {
  readonly generatedAt: number;
  readonly users: readonly User[];
  readonly cars: readonly Car[];
  readonly devices: readonly Device[];
  readonly histories: ReadonlyMap<number, CarHistory>;
  readonly trips: ReadonlyMap<string, Trip>;
}

const at = (iso: string) => Date.parse(iso);

function seedUsers(options: SeedOptions = {}): User[] {
  const users: User[] = [
    {
      id: SEED_IDS.alice,
      firstName: 'Alice',
      lastName: 'Martin',
      nickName: 'alice',
      gender: 'FEMALE',
      birthDate: at('1988-05-14T00:00:00Z'),
      licenceDeliveryDate: at('2006-09-01T00:00:00Z'),
      role: 'user',
      isLocationEnabled: true,
      creationDate: at('2019-03-30T10:00:00Z'),
      lastUpdateDate: at('2024-01-15T09:30:00Z'),
      email: 'alice@reference.test',
      password: 'alice-password',
    },
    {
      id: SEED_IDS.bob,
      firstName: 'Bob',
      lastName: 'Durand',
      nickName: null,
      gender: 'MALE',
      birthDate: null,
      licenceDeliveryDate: null,
      role: 'dev',
      isLocationEnabled: false,
      creationDate: at('2020-07-08T14:20:00Z'),
      lastUpdateDate: at('2020-07-08T14:20:00Z'),
      email: 'bob@reference.test',
      password: 'bob-password',
    },
  ];
  return options.encodedPasswords ? users.map((u) => ({ ...u, password: ENCODED_PASSWORDS[u.email] ?? u.password })) : users;
}

/**
 * Variant many-cars: a test account's many cars, listed before the cars with months of data: the
 * tenth has a device and was driven a couple of times in the last days, the others were never driven.
 */
function manyCars(car: (c: Omit<Car, 'timezone'>) => Car): Car[] {
  return Array.from({ length: MANY_CARS_COUNT }, (_, i) =>
    car({
      id: MANY_CARS_FIRST_ID + i,
      userId: SEED_IDS.alice,
      name: `Fleet car ${i + 1}`,
      make: 'Generic',
      model: i % 2 ? 'Van' : null,
      year: 2020 + (i % 4),
      numberPlate: null,
      deviceId: MANY_CARS_FIRST_ID + i === MANY_CARS_DRIVEN_ID ? 'VDSREF0201' : null,
      cardbId: 1,
      creationDate: at('2018-01-10T08:00:00Z'),
      lastUpdateDate: at('2018-01-10T08:00:00Z'),
    }),
  );
}

/** Variant fleet-account: the first of the fleet's cars (ids from here), and how many. */
const FLEET_FIRST_ID = 4101;
const FLEET_COUNT = 32;

/**
 * Variant fleet-account: a fleet account's cars, more than a client looks at in one glance, listed
 * before the cars with data; none was ever driven, none has a device.
 */
function fleetCars(car: (c: Omit<Car, 'timezone'>) => Car): Car[] {
  return Array.from({ length: FLEET_COUNT }, (_, i) =>
    car({
      id: FLEET_FIRST_ID + i,
      userId: SEED_IDS.alice,
      name: `Pool car ${i + 1}`,
      make: 'Fleetco',
      model: 'Utility',
      year: 2021,
      numberPlate: `FL-${String(i + 1).padStart(3, '0')}-AA`,
      deviceId: null,
      cardbId: 1,
      creationDate: at('2019-03-01T08:00:00Z'),
      lastUpdateDate: at('2019-03-01T08:00:00Z'),
    }),
  );
}

function seedCars(options: SeedOptions = {}): Car[] {
  const car = (c: Omit<Car, 'timezone'>): Car => ({ ...c, timezone: 'Europe/Paris' });
  return [
    ...(options.fleetAccount ? fleetCars(car) : []),
    ...(options.manyCars ? manyCars(car) : []),
    car({
      id: SEED_IDS.aliceRichCar,
      userId: SEED_IDS.alice,
      name: 'Daily driver',
      make: 'Renault',
      model: 'Zoe',
      year: 2019,
      numberPlate: 'AB-123-CD',
      deviceId: 'VDSREF0001',
      cardbId: 14022,
      creationDate: at('2019-04-02T08:15:00Z'),
      lastUpdateDate: at('2023-11-20T17:42:10Z'),
    }),
    car({
      id: SEED_IDS.aliceSecondCar,
      userId: SEED_IDS.alice,
      name: 'Weekend car',
      make: 'Peugeot',
      model: '308',
      year: 2016,
      numberPlate: 'EF-456-GH',
      deviceId: 'VDSREF0002',
      cardbId: 9817,
      creationDate: at('2020-02-11T12:00:00Z'),
      lastUpdateDate: at('2022-06-03T07:05:44Z'),
    }),
    // "make may be a generic value", "model may be null", "year may be 0", "numberPlate may be null".
    car({
      id: SEED_IDS.aliceBareCar,
      userId: SEED_IDS.alice,
      name: 'Old van',
      make: 'Generic',
      model: null,
      year: 0,
      numberPlate: null,
      deviceId: null,
      cardbId: 1,
      creationDate: at('2021-10-30T16:45:00Z'),
      lastUpdateDate: at('2021-10-30T16:45:00Z'),
    }),
    car({
      id: SEED_IDS.aliceSpareCar,
      userId: SEED_IDS.alice,
      name: 'Spare van',
      make: 'Renault',
      model: 'Kangoo',
      year: 2015,
      numberPlate: 'MN-012-OP',
      deviceId: null,
      cardbId: 4410,
      creationDate: at('2023-05-17T10:20:00Z'),
      lastUpdateDate: at('2023-05-17T10:20:00Z'),
    }),
    car({
      id: SEED_IDS.bobCar,
      userId: SEED_IDS.bob,
      name: "Bob's car",
      make: 'Citroen',
      model: 'C3',
      year: 2020,
      numberPlate: 'IJ-789-KL',
      deviceId: 'VDSREF0003',
      cardbId: 12056,
      creationDate: at('2020-07-09T09:00:00Z'),
      lastUpdateDate: at('2024-03-02T11:11:11Z'),
    }),
    car({
      id: SEED_IDS.bobBareCar,
      userId: SEED_IDS.bob,
      name: 'Project car',
      make: 'Volkswagen',
      model: 'Golf',
      year: 1998,
      numberPlate: null,
      deviceId: null,
      cardbId: 7321,
      creationDate: at('2022-01-05T18:30:00Z'),
      lastUpdateDate: at('2022-01-05T18:30:00Z'),
    }),
  ];
}

function seedDevices(options: SeedOptions = {}): Device[] {
  return [
    // variant many-cars: the device of the first extra car.
    ...(options.manyCars ? [{ id: 'VDSREF0201', pin: '5309', carId: MANY_CARS_DRIVEN_ID, userId: null }] : []),
    // Installed in their cars by the installer: linked to the car only (no user link); each belongs
    // to its car's owner.
    { id: 'VDSREF0001', pin: '4821', carId: SEED_IDS.aliceRichCar, userId: null },
    { id: 'VDSREF0002', pin: '73519', carId: SEED_IDS.aliceSecondCar, userId: null },
    { id: 'VDSREF0003', pin: '602947', carId: SEED_IDS.bobCar, userId: null },
    // Free devices (no car, no user): for association tests. Pins are 4 to 6 digits.
    { id: 'VDSREF0101', pin: '1357', carId: null, userId: null },
    { id: 'VDSREF0102', pin: '24680', carId: null, userId: null },
    { id: 'VDSREF0103', pin: '975310', carId: null, userId: null },
    { id: 'VDSREF0104', pin: '8642', carId: null, userId: null },
    { id: 'VDSREF0105', pin: '31415', carId: null, userId: null },
    { id: 'VDSREF0106', pin: '271828', carId: null, userId: null },
    // More free devices: a pin device and a lockable one for each of three runs against one server that keeps its state.
    { id: 'VDSREF0107', pin: '16180', carId: null, userId: null },
    { id: 'VDSREF0108', pin: '14142', carId: null, userId: null },
  ];
}

interface HistoryProfile {
  carId: number;
  historyDays: number;
  gapHours: [number, number];
  durationMinutes: [number, number];
  home: LatLon;
  odometerKm: number;
  fuelLitres: number;
}

const PROFILES: HistoryProfile[] = [
  {
    carId: SEED_IDS.aliceRichCar,
    historyDays: 70,
    gapHours: [3, 20],
    durationMinutes: [6, 70],
    home: { latitude: 48.8566, longitude: 2.3522 },
    odometerKm: 48213.4,
    fuelLitres: 41,
  },
  {
    carId: SEED_IDS.aliceSecondCar,
    historyDays: 20,
    gapHours: [10, 40],
    durationMinutes: [10, 50],
    home: { latitude: 44.8378, longitude: -0.5792 },
    odometerKm: 112904.0,
    fuelLitres: 30,
  },
  {
    carId: SEED_IDS.bobCar,
    historyDays: 35,
    gapHours: [6, 30],
    durationMinutes: [8, 60],
    home: { latitude: 45.764, longitude: 4.8357 },
    odometerKm: 23077.8,
    fuelLitres: 36,
  },
];

/** Variant many-cars: the one extra car driven, twice in the last three days. */
const MANY_CARS_PROFILE: HistoryProfile = {
  carId: MANY_CARS_DRIVEN_ID,
  historyDays: 3,
  gapHours: [30, 40],
  durationMinutes: [5, 15],
  home: { latitude: 43.2965, longitude: 5.3698 },
  odometerKm: 1520.2,
  fuelLitres: 20,
};

interface Slot {
  /** Backward index: 0 is the most recent trip. Ids are derived from it, never from dates. */
  index: number;
  begin: number;
  end: number;
}

/**
 * Lays trips out backwards from now. Guarantees, whenever now is at least 90 s after the 1st of the
 * month 00:00 UTC: trip 0 lies entirely after the month start and before now; one trip straddles
 * the month start (so `inclusive` matters on the default range); every 7th trip straddles a UTC midnight.
 * With `quietMonth`, the trips are laid out backwards from 2 h before the month start instead.
 */
function scheduleTrips(nowMs: number, p: HistoryProfile, quietMonth: boolean): Slot[] {
  const rng = new Prng(`schedule:${p.carId}`);
  const now = Math.floor(nowMs / SECOND) * SECOND;
  // variant quiet-month: the cars were not driven this month, so the history ends before it.
  const base = quietMonth ? monthStartUtc(now) - 2 * HOUR : now;
  const monthStart = monthStartUtc(base);
  const window = base - monthStart;
  const d0 = rng.int(12, 35) * MINUTE;
  let trip0: Slot;
  if (window >= d0 + 2 * MINUTE) trip0 = { index: 0, begin: base - MINUTE - d0, end: base - MINUTE };
  else if (window >= 90 * SECOND) trip0 = { index: 0, begin: monthStart + 30 * SECOND, end: base - 30 * SECOND };
  else trip0 = { index: 0, begin: base - MINUTE - d0, end: base - MINUTE };

  const slots: Slot[] = [trip0];
  const lower = base - p.historyDays * DAY;
  let cursor = trip0.begin;
  let monthStraddlerDone = !(monthStart > lower && monthStart < trip0.begin);
  for (let k = 1; k < 10000; k++) {
    const gap = Math.round(rng.range(p.gapHours[0], p.gapHours[1]) * 3600) * SECOND;
    const duration = rng.int(p.durationMinutes[0], p.durationMinutes[1]) * MINUTE + rng.int(0, 59) * SECOND;
    let end = cursor - gap;
    let begin = end - duration;
    if (k % 7 === 3) {
      let midnight = dayStartUtc(end);
      if (end - midnight < 20 * MINUTE) midnight -= DAY;
      end = midnight + 20 * MINUTE;
      begin = midnight - 25 * MINUTE;
    }
    if (!monthStraddlerDone && begin <= monthStart + MINUTE) {
      monthStraddlerDone = true;
      if (cursor - 10 * SECOND > monthStart + SECOND) {
        end = Math.min(cursor - 10 * SECOND, monthStart + 15 * MINUTE);
        begin = monthStart - 25 * MINUTE;
      }
    }
    if (begin < lower) break;
    slots.push({ index: k, begin, end });
    cursor = begin;
  }
  return slots.sort((a, b) => a.begin - b.begin);
}

function tripIds(carId: number, count: number): string[] {
  const rng = new Prng(`trip-ids:${carId}`);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(rng.hex8() + rng.hex8() + rng.hex8());
  return ids;
}

function sortByDateThenName<T extends { date: number; name: string }>(list: T[]): T[] {
  return list.sort((a, b) => a.date - b.date || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function buildHistory(nowMs: number, p: HistoryProfile, quietMonth: boolean, dense = false): CarHistory {
  const slots = scheduleTrips(nowMs, p, quietMonth);
  const denseSince = nowMs - DENSE_DAYS * DAY;
  const ids = tripIds(p.carId, Math.max(...slots.map((s) => s.index)) + 1);
  const rng = new Prng(`path:${p.carId}`);
  let position: LatLon = p.home;
  let odometer = p.odometerKm;
  let fuel = p.fuelLitres;
  const trips: Trip[] = [];

  for (const slot of slots) {
    const durationS = (slot.end - slot.begin) / SECOND;
    // variant dense-history: the last month's trips recorded a position every second (a 20 MB month).
    const count =
      dense && slot.begin >= denseSince
        ? Math.max(Math.floor(durationS / DENSE_STEP_S) + 1, 3)
        : Math.min(Math.max(Math.round(durationS / 90), 3), 40, Math.floor(durationS) + 1);
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(slot.begin + Math.round((i * durationS) / (count - 1)) * SECOND);

    let heading = rng.range(0, 360);
    const points: LatLon[] = [position];
    const speeds: number[] = [0];
    for (let i = 1; i < count; i++) {
      const hours = (times[i] - times[i - 1]) / HOUR;
      const speed = rng.range(25, 95);
      heading = (heading + rng.range(-35, 35) + 360) % 360;
      // Stay around home: past 25 km, head back towards it.
      if (haversineKm(points[i - 1], p.home) > 25) heading = (bearingDeg(points[i - 1], p.home) + rng.range(-20, 20) + 360) % 360;
      const next = destination(points[i - 1], heading, speed * hours);
      points.push({ latitude: round(next.latitude, 6), longitude: round(next.longitude, 6) });
      speeds.push(speed);
    }

    const locations: Location[] = points.map((pt, i) => ({
      latitude: pt.latitude,
      longitude: pt.longitude,
      altitude: round(rng.range(30, 180), 1),
      satellites: rng.int(5, 12),
      heading: Math.round(i === 0 ? heading : bearingDeg(points[i - 1], pt)) % 360,
      date: times[i],
    }));
    const mileage = round(pathKm(points), 3);

    const signals: Signal[] = [];
    const sig = (name: string, value: number, date: number) => signals.push({ name, value, date });
    const first = times[0];
    const last = times[count - 1];
    const hour = new Date(first).getUTCHours();
    sig('IgnitionSts', 1, first);
    sig('LockSts', 0, first);
    sig('HeadLightSts', hour >= 18 || hour < 7 ? 1 : 0, first);
    sig('BatteryVoltage', round(rng.range(13.8, 14.4), 2), first);
    sig('FuelLevel', round(fuel, 1), first);
    // The level the service computes from the consumption (no PRNG draw: the other values stay as they
    // were); its name contains FuelLevel, as the profile's catalogue has it (a name filter must match exactly).
    sig('ComputedFuelLevel', round(fuel * 0.98, 1), first);
    sig('Odometer', round(odometer, 1), first);
    sig('VehiculeSpeed', 0, first);
    sig('EngineSpeed', rng.int(750, 900), first);
    // The distance driven to each point, summed in the path's order (pathKm's sum of its first i + 1 points).
    let driven = 0;
    for (let i = 1; i < count - 1; i++) {
      driven += haversineKm(points[i - 1], points[i]);
      if (i % 3 !== 0) continue;
      sig('VehiculeSpeed', round(speeds[i], 1), times[i]);
      sig('EngineSpeed', Math.round(800 + speeds[i] * 28 + rng.range(-100, 100)), times[i]);
      sig('Odometer', round(odometer + driven, 1), times[i]);
    }
    const fuelUsed = mileage * 0.065;
    sig('VehiculeSpeed', 0, last);
    sig('EngineSpeed', 0, last);
    sig('IgnitionSts', 0, last);
    sig('LockSts', 1, last);
    sig('HeadLightSts', 0, last);
    sig('BatteryVoltage', round(rng.range(12.4, 12.7), 2), last);
    sig('FuelLevel', round(Math.max(fuel - fuelUsed, 0), 1), last);
    sig('ComputedFuelLevel', round(Math.max(fuel - fuelUsed, 0) * 0.98, 1), last);
    sig('Odometer', round(odometer + mileage, 1), last);

    const accel = (date: number): Accelerometer => ({ x: rng.int(-150, 150), y: rng.int(-150, 150), z: rng.int(950, 1050), date });
    const accelerometers = [accel(first), accel(times[Math.floor(count / 2)]), accel(last)];
    // Guard against equal dates (a 2-second trip would repeat the middle time).
    const uniqueAccel = accelerometers.filter((a, i) => i === 0 || a.date !== accelerometers[i - 1].date);

    trips.push({
      id: ids[slot.index],
      carId: p.carId,
      beginDate: first,
      endDate: last,
      mileage,
      usedTime: (last - first) / SECOND,
      locations,
      signals: sortByDateThenName(signals),
      accelerometers: uniqueAccel,
    });

    position = points[count - 1];
    odometer += mileage;
    fuel -= fuelUsed;
    if (fuel < 8) fuel = 48; // refuelled between trips
  }

  return {
    trips,
    locations: trips.flatMap((t) => t.locations),
    signals: trips.flatMap((t) => t.signals),
    accelerometers: trips.flatMap((t) => t.accelerometers),
  };
}

// generateSeed is pure and its result is never mutated (the store copies cars and devices), so
// apps built with the same clock value and options (tests, mutation runs) share one generation.
const cache = new Map<string, Seed>();
const CACHE_SIZE = 8;

export function seedFor(nowMs: number, options: SeedOptions = {}): Seed {
  // Every option that is on, by name: a new option of the seed is part of the key without more code.
  const key = `${nowMs}|${Object.keys(options)
    .filter((k) => options[k as keyof SeedOptions])
    .sort()
    .join(',')}`;
  let seed = cache.get(key);
  if (!seed) {
    seed = generateSeed(nowMs, options);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, seed);
  }
  return seed;
}

/** Variant sandbox-other-data: the same data under other ids (trips' ids drawn anew, of the same form). */
function withOtherIds(seed: Seed): Seed {
  const user = (id: number) => OTHER_IDS.users[id] ?? id;
  const car = (id: number) => OTHER_IDS.cars[id] ?? id;
  const rng = new Prng('other-trip-ids');
  const tripIds = new Map([...seed.trips.keys()].map((id) => [id, rng.hex8() + rng.hex8() + rng.hex8()]));
  const trip = (t: Trip): Trip => ({ ...t, id: tripIds.get(t.id)!, carId: car(t.carId) });
  const histories = new Map([...seed.histories].map(([carId, h]) => [car(carId), { ...h, trips: h.trips.map(trip) }] as const));
  return {
    generatedAt: seed.generatedAt,
    users: seed.users.map((u) => ({ ...u, id: user(u.id) })),
    cars: seed.cars.map((c) => ({ ...c, id: car(c.id), userId: user(c.userId) })),
    devices: seed.devices.map((d) => ({ ...d, carId: d.carId === null ? null : car(d.carId), userId: d.userId === null ? null : user(d.userId) })),
    histories,
    trips: new Map([...histories.values()].flatMap((h) => h.trips.map((t) => [t.id, t] as const))),
  };
}

/** Generates the whole data set relative to `nowMs`. Pure: same input, same output. */
export function generateSeed(nowMs: number, options: SeedOptions = {}): Seed {
  const seed = generateSeedWithIds(nowMs, options);
  return options.otherIds ? withOtherIds(seed) : seed;
}

function generateSeedWithIds(nowMs: number, options: SeedOptions): Seed {
  const histories = new Map<number, CarHistory>();
  const trips = new Map<string, Trip>();
  for (const profile of options.manyCars ? [...PROFILES, MANY_CARS_PROFILE] : PROFILES) {
    const history = buildHistory(nowMs, profile, options.quietMonth === true, options.denseMonth === true && profile.carId === SEED_IDS.aliceRichCar);
    histories.set(profile.carId, history);
    for (const trip of history.trips) {
      if (trips.has(trip.id)) throw new Error(`duplicate trip id ${trip.id}`);
      trips.set(trip.id, trip);
    }
  }
  return { generatedAt: nowMs, users: seedUsers(options), cars: seedCars(options), devices: seedDevices(options), histories, trips };
}
