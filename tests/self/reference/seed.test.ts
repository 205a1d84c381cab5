// Seeded data: deterministic, ids independent of the clock, data inside the current month whatever
// "now" is, and coherent across routes (mileage, durations, locations, GeoJSON, stats, status).

import { expect, test } from '@playwright/test';
import { generateSeed } from '../../../reference-server/data/seed';
import { Store } from '../../../reference-server/data/store';
import { DAY, Harness, haversine, iso, RFC3339, SEED_IDS, STRICT_DATE } from './helpers';

const { aliceRichCar: RICH, aliceSecondCar: SECOND, aliceBareCar: BARE, bobCar: BOB_CAR, bobBareCar: BOB_BARE, alice: ALICE, bob: BOB } = SEED_IDS;

const monthStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

test('a reset draws an aged seed again up to the present: a server up for an hour has data minutes old, under the same ids', () => {
  let now = Date.parse('2026-05-09T08:07:06.543Z');
  const store = new Store(() => now);
  const latest = () => Math.max(...store.history(RICH).locations.map((l) => l.date));
  const first = latest();
  expect(now - first).toBeLessThan(5 * 60_000);
  now += 3_600_000;
  expect(latest()).toBe(first); // between resets the data stands still (a run reads one data set)
  const ids = [...store.seed.trips.keys()];
  store.reset();
  expect(now - latest()).toBeLessThan(5 * 60_000);
  expect([...store.seed.trips.keys()]).toEqual(ids);
});

test.describe('seed determinism', () => {
  test('the same now gives the same data', () => {
    const now = Date.parse('2026-05-09T08:07:06.543Z');
    expect(JSON.stringify(serialize(generateSeed(now)))).toBe(JSON.stringify(serialize(generateSeed(now))));
  });

  test('ids do not depend on now; trip k of a car keeps its id', () => {
    const a = generateSeed(Date.parse('2026-03-17T10:20:30Z'));
    const b = generateSeed(Date.parse('2027-08-02T23:00:00Z'));
    expect(a.users.map((u) => u.id)).toEqual(b.users.map((u) => u.id));
    expect(a.cars.map((c) => c.id)).toEqual(b.cars.map((c) => c.id));
    expect(a.devices.map((d) => d.id)).toEqual(b.devices.map((d) => d.id));
    for (const carId of [RICH, SECOND, BOB_CAR]) {
      const ta = a.histories.get(carId)!.trips;
      const tb = b.histories.get(carId)!.trips;
      // The most recent trip is index 0 of the same id sequence.
      expect(ta[ta.length - 1].id).toBe(tb[tb.length - 1].id);
    }
  });

  test('the documented identities and ids', () => {
    const seed = generateSeed(Date.parse('2026-03-17T10:20:30Z'));
    expect(seed.users.map((u) => [u.id, u.email])).toEqual([
      [ALICE, 'alice@reference.test'],
      [BOB, 'bob@reference.test'],
    ]);
    const carsOf = (userId: number) => seed.cars.filter((c) => c.userId === userId);
    expect(carsOf(ALICE).map((c) => c.id)).toEqual([RICH, SECOND, BARE, SEED_IDS.aliceSpareCar]);
    expect(carsOf(BOB).map((c) => c.id)).toEqual([BOB_CAR, BOB_BARE]);
    expect(carsOf(ALICE).filter((c) => c.deviceId !== null)).toHaveLength(2);
    const free = seed.devices.filter((d) => d.carId === null && d.userId === null);
    expect(free.length).toBeGreaterThanOrEqual(4);
    for (const d of seed.devices) {
      expect(d.id).toMatch(/^VDSREF\d{4}$/);
      expect(d.pin).toMatch(/^\d{4,6}$/);
    }
    expect([...seed.trips.keys()].filter((id) => !/^[0-9a-f]{24}$/.test(id))).toEqual([]);
  });

  test('the rich car has ~70 days of history, trips straddling midnights and the month start', () => {
    const now = Date.parse('2026-03-17T10:20:30Z');
    const trips = generateSeed(now).histories.get(RICH)!.trips;
    expect(trips.length).toBeGreaterThan(60);
    expect(trips[0].beginDate).toBeLessThan(now - 60 * DAY);
    const day = (ms: number) => Math.floor(ms / DAY);
    expect(trips.filter((t) => day(t.beginDate) !== day(t.endDate)).length).toBeGreaterThanOrEqual(3);
    const ms = monthStart(now);
    expect(trips.some((t) => t.beginDate < ms && t.endDate > ms)).toBe(true);
    expect(trips.every((t, i) => i === 0 || t.beginDate > trips[i - 1].endDate)).toBe(true);
  });
});

function serialize(seed: ReturnType<typeof generateSeed>) {
  return { ...seed, histories: [...seed.histories.entries()], trips: [...seed.trips.keys()] };
}

const NOWS = [
  '2026-03-01T00:05:00Z',
  '2026-02-28T23:59:00Z',
  '2026-03-17T10:20:30Z',
  '2026-12-31T23:59:59Z',
  '2027-01-01T00:02:00Z',
  '2026-07-31T12:00:00.999Z',
];

for (const nowText of NOWS) {
  test(`data since the 1st of the month, now = ${nowText}`, async () => {
    const now = Date.parse(nowText);
    const start = monthStart(now);
    const h = await Harness.start({ now });
    try {
      const token = await h.alice();
      for (const carId of [RICH, SECOND]) {
        const trips = (await h.get(`/v3/cars/${carId}/trips`, token)).json as any[];
        expect(trips.length, `trips of ${carId}`).toBeGreaterThan(0);
        // Checked in plain code and asserted once: thousands of expect() calls are slow.
        expect(trips.filter((t) => Date.parse(t.beginDate) < start || Date.parse(t.endDate) > now)).toEqual([]);
        for (const route of ['locations', 'signals']) {
          const items = (await h.get(`/v3/cars/${carId}/${route}`, token)).json as any[];
          expect(items.length, `${route} of ${carId}`).toBeGreaterThan(0);
          expect(items.filter((i) => Date.parse(i.date) < start || Date.parse(i.date) > now)).toEqual([]);
        }
        const mileage = (await h.get(`/v3/cars/${carId}/stats/mileage`, token)).json;
        expect(mileage.value).toBeGreaterThan(0);
        expect(Date.parse(mileage.beginDate)).toBe(start);
        expect(Date.parse(mileage.endDate)).toBe(now);
      }
      const bobTrips = (await h.get(`/v3/cars/${BOB_CAR}/trips`, await h.bob())).json as any[];
      expect(bobTrips.length).toBeGreaterThan(0);
      // inclusive=true adds the trip that straddles the month start.
      const touching = (await h.get(`/v3/cars/${RICH}/trips?inclusive=true`, token)).json as any[];
      expect(touching.some((t) => Date.parse(t.beginDate) < start && Date.parse(t.endDate) >= start)).toBe(true);
    } finally {
      await h.close();
    }
  });
}

test.describe('coherence', () => {
  let h: Harness;
  let token: string;
  test.beforeAll(async () => {
    h = await Harness.start();
    token = await h.alice();
  });
  test.afterAll(async () => h.close());

  test('every trip: mileage is the haversine length, usedTime the duration, stats agree, begin/end locations', async () => {
    const trips = (await h.get(`/v3/cars/${RICH}/trips?inclusive=true`, token)).json as any[];
    expect(trips.length).toBeGreaterThan(5);
    const problems: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok) problems.push(what);
    };
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    for (const summary of trips) {
      const id = summary.id;
      const trip = (await h.get(`/v3/trips/${id}`, token)).json;
      const locations = (await h.get(`/v3/trips/${id}/locations`, token)).json as any[];
      let km = 0;
      for (let i = 1; i < locations.length; i++) km += haversine(locations[i - 1], locations[i]);
      check(Math.abs(trip.mileage - km) < 0.001, `${id} mileage ${trip.mileage} vs ${km}`);
      check(trip.usedTime === (Date.parse(trip.endDate) - Date.parse(trip.beginDate)) / 1000 && Number.isInteger(trip.usedTime), `${id} usedTime`);
      check(same(trip.beginLocation, locations[0]) && same(trip.endLocation, locations[locations.length - 1]), `${id} begin/end location`);
      check(trip.beginDate === locations[0].date && trip.endDate === locations[locations.length - 1].date, `${id} begin/end date`);
      check(
        same(summary, { id, beginLocation: trip.beginLocation, endLocation: trip.endLocation, beginDate: trip.beginDate, endDate: trip.endDate }),
        `${id} summary`,
      );
      const stats = (await h.get(`/v3/trips/${id}/stats`, token)).json;
      check(
        same(stats, [
          { type: 'MILEAGE', value: trip.mileage },
          { type: 'USED_TIME', value: trip.usedTime },
        ]),
        `${id} stats`,
      );
      check(same((await h.get(`/v3/trips/${id}/stats/mileage`, token)).json, { type: 'MILEAGE', value: trip.mileage }), `${id} stats/mileage`);
      check(same((await h.get(`/v3/trips/${id}/stats/usedtime`, token)).json, { type: 'USED_TIME', value: trip.usedTime }), `${id} stats/usedtime`);
      const line = (await h.get(`/v3/trips/${id}/locations.geojson`, token)).json;
      check(same(line, { type: 'LineString', coordinates: locations.map((l) => [l.longitude, l.latitude]) }), `${id} geojson`);
      const signals = (await h.get(`/v3/trips/${id}/signals`, token)).json as any[];
      check(
        signals.length > 0 && signals.every((s) => Date.parse(s.date) >= Date.parse(trip.beginDate) && Date.parse(s.date) <= Date.parse(trip.endDate)),
        `${id} signals in trip`,
      );
      check(
        locations.every((l, i) => i === 0 || Date.parse(l.date) > Date.parse(locations[i - 1].date)),
        `${id} locations ascending`,
      );
    }
    expect(problems).toEqual([]);
  });

  test('car locations are the union of its trips locations; GeoJSON matches them', async () => {
    const range = `begin=${encodeURIComponent(iso(h.clock.now - 30 * DAY))}&end=${encodeURIComponent(iso(h.clock.now))}`;
    const trips = (await h.get(`/v3/cars/${RICH}/trips?${range}`, token)).json as any[];
    const locations = (await h.get(`/v3/cars/${RICH}/locations?${range}`, token)).json as any[];
    const fromTrips: any[] = [];
    for (const t of trips) fromTrips.push(...((await h.get(`/v3/trips/${t.id}/locations`, token)).json as any[]));
    // Trips cut by the range edges only add locations at the edges; inside, both lists are equal.
    const inner = locations.filter(
      (l) => Date.parse(l.date) >= Date.parse(trips[0].beginDate) && Date.parse(l.date) <= Date.parse(trips[trips.length - 1].endDate),
    );
    expect(inner).toEqual(fromTrips);
    const points = (await h.get(`/v3/cars/${RICH}/locations.geojson?${range}`, token)).json as any[];
    expect(points).toEqual(locations.map((l) => ({ type: 'Point', coordinates: [l.longitude, l.latitude] })));
    expect(locations.every((l, i) => i === 0 || Date.parse(l.date) > Date.parse(locations[i - 1].date))).toBe(true);
  });

  test('car stats are the sums over the trips of the range, plus initialValue', async () => {
    for (const range of ['', `?begin=${encodeURIComponent(iso(h.clock.now - 20 * DAY))}&end=${encodeURIComponent(iso(h.clock.now - 3 * DAY))}`]) {
      const trips = (await h.get(`/v3/cars/${RICH}/trips${range}`, token)).json as any[];
      const full = await Promise.all(trips.map(async (t) => (await h.get(`/v3/trips/${t.id}`, token)).json));
      const km = full.reduce((a, t) => a + t.mileage, 0);
      const seconds = full.reduce((a, t) => a + t.usedTime, 0);
      const mileage = (await h.get(`/v3/cars/${RICH}/stats/mileage${range}`, token)).json;
      const used = (await h.get(`/v3/cars/${RICH}/stats/usedtime${range}`, token)).json;
      expect(mileage.type).toBe('MILEAGE');
      expect(used.type).toBe('USED_TIME');
      expect(Math.abs(mileage.value - km)).toBeLessThan(0.002);
      expect(used.value).toBe(seconds);
      const sep = range === '' ? '?' : '&';
      expect((await h.get(`/v3/cars/${RICH}/stats/usedtime${range}${sep}initialValue=500`, token)).json.value).toBe(seconds + 500);
      expect(Math.abs((await h.get(`/v3/cars/${RICH}/stats/mileage${range}${sep}initialValue=12.5`, token)).json.value - (km + 12.5))).toBeLessThan(0.002);
      for (const d of [mileage.beginDate, mileage.endDate]) expect(d).toMatch(RFC3339);
    }
  });

  test('status holds the latest location, accelerometer and latest value of each signal', async () => {
    const status = (await h.get(`/v3/cars/${RICH}/status`, token)).json;
    const locations = (await h.get(`/v3/cars/${RICH}/locations`, token)).json as any[];
    expect(status.location).toEqual(locations[locations.length - 1]);
    expect(Object.keys(status.accelerometer).sort()).toEqual(['date', 'x', 'y', 'z']);
    for (const k of ['x', 'y', 'z']) expect(Number.isInteger(status.accelerometer[k])).toBe(true);
    const signals = (await h.get(`/v3/cars/${RICH}/signals`, token)).json as any[];
    const latest = new Map<string, any>();
    for (const s of signals) latest.set(s.name, s);
    expect(status.signals).toHaveLength(latest.size);
    for (const s of status.signals) expect(s).toEqual(latest.get(s.name));
    const bare = (await h.get(`/v3/cars/${BARE}/status`, token)).json;
    expect(bare).toEqual({ accelerometer: null, location: null, signals: [] });
  });

  test('signals: realistic names, Sts values 0 or 1, the odometer grows with the mileage', async () => {
    const signals = (await h.get(`/v3/cars/${RICH}/signals`, token)).json as any[];
    const names = new Set(signals.map((s) => s.name));
    expect([...names].sort()).toEqual([
      'BatteryVoltage',
      'ComputedFuelLevel',
      'EngineSpeed',
      'FuelLevel',
      'HeadLightSts',
      'IgnitionSts',
      'LockSts',
      'Odometer',
      'VehiculeSpeed',
    ]);
    expect(signals.filter((s) => typeof s.value !== 'number' || !RFC3339.test(s.date) || (s.name.endsWith('Sts') && s.value !== 0 && s.value !== 1))).toEqual(
      [],
    );
    const odometer = signals.filter((s) => s.name === 'Odometer').map((s) => s.value as number);
    expect(odometer.every((v, i) => i === 0 || v >= odometer[i - 1])).toBe(true);
    expect(signals.every((s, i) => i === 0 || Date.parse(s.date) >= Date.parse(signals[i - 1].date))).toBe(true);
  });

  test('record dates: strict shape for cars and users, RFC 3339 elsewhere', async () => {
    for (const car of (await h.get('/v3/users/me/cars', token)).json as any[]) {
      expect(car.creationDate).toMatch(STRICT_DATE);
      expect(car.lastUpdateDate).toMatch(STRICT_DATE);
    }
    const user = (await h.get(`/v3/users/${ALICE}`, token)).json;
    for (const k of ['birthDate', 'licenceDeliveryDate', 'creationDate', 'lastUpdateDate']) expect(user[k]).toMatch(STRICT_DATE);
    const loc = (await h.get(`/v3/cars/${RICH}/locations?limit=1`, token)).json[0];
    expect(loc.date).toMatch(RFC3339);
  });
});
