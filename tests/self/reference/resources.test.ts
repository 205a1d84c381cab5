// Users, cars and trips routes: record shapes and every query parameter rule.

import { expect, test } from '@playwright/test';
import { DAY, expectErrorShape, firstError, Harness, iso, MONTH_START, NOW, Res, RFC3339, SEED_IDS, STRICT_DATE } from './helpers';

const { alice: ALICE, bob: BOB, aliceRichCar: RICH, aliceBareCar: BARE, bobCar: BOB_CAR } = SEED_IDS;
const q = (ms: number) => encodeURIComponent(iso(ms));

let h: Harness;
let token: string;
test.beforeAll(async () => {
  h = await Harness.start();
  token = await h.alice();
});
test.afterAll(async () => h.close());

function expectError(res: Res, status: number, message: string): void {
  expect({ status: res.status, type: firstError(res).type, message: firstError(res).message }, res.text).toEqual({ status, type: 'PARAMETERS_ERROR', message });
  expectErrorShape(res);
}

const keys = (o: object) => Object.keys(o).sort();
const LOCATION_KEYS = ['altitude', 'date', 'heading', 'latitude', 'longitude', 'satellites'];
const TRIP_SUMMARY_KEYS = ['beginDate', 'beginLocation', 'endDate', 'endLocation', 'id'];

test.describe('users', () => {
  test('GET /users/me: the user record without email', async () => {
    const me = (await h.get('/v3/users/me', token)).json;
    expect(keys(me)).toEqual([
      'birthDate',
      'creationDate',
      'firstName',
      'gender',
      'id',
      'isLocationEnabled',
      'lastName',
      'lastUpdateDate',
      'licenceDeliveryDate',
      'nickName',
      'role',
    ]);
    expect(me).toMatchObject({ id: ALICE, firstName: 'Alice', lastName: 'Martin', gender: 'FEMALE', role: 'user', isLocationEnabled: true });
    expect(me.creationDate).toMatch(STRICT_DATE);
  });

  test('GET /users/{id}: adds email; nullable fields of bob are null', async () => {
    expect((await h.get(`/v3/users/${ALICE}`, token)).json.email).toBe('alice@reference.test');
    const bob = (await h.get(`/v3/users/${BOB}`, await h.bob())).json;
    expect(bob).toMatchObject({
      id: BOB,
      email: 'bob@reference.test',
      nickName: null,
      birthDate: null,
      licenceDeliveryDate: null,
      gender: 'MALE',
      role: 'dev',
    });
  });

  test('car lists: /users/me/cars equals /users/{id}/cars; car record fields', async () => {
    const mine = (await h.get('/v3/users/me/cars', token)).json as any[];
    expect(mine).toEqual((await h.get(`/v3/users/${ALICE}/cars`, token)).json);
    expect(mine.map((c) => c.id)).toEqual([RICH, SEED_IDS.aliceSecondCar, BARE, SEED_IDS.aliceSpareCar]);
    for (const car of mine) {
      expect(keys(car)).toEqual(['cardbId', 'creationDate', 'deviceId', 'id', 'lastUpdateDate', 'make', 'model', 'name', 'numberPlate', 'year']);
      expect(car).toEqual((await h.get(`/v3/cars/${car.id}`, token)).json);
    }
    expect(mine[2]).toMatchObject({ deviceId: null, model: null, year: 0, numberPlate: null, make: 'Generic' });
    expect(mine[0].deviceId).toBe('VDSREF0001');
  });

  test('unknown and malformed user ids: 404 User not found', async () => {
    for (const id of ['424242', '0', 'abc', '-1', '1e3', '101.0', '0101', '99999999999999999999', '%E2%82%AC', 'me%2Fcars']) {
      expectError(await h.get(`/v3/users/${id}`, token), 404, 'User not found');
      expectError(await h.get(`/v3/users/${id}/cars`, token), 404, 'User not found');
    }
  });
});

test.describe('cars', () => {
  test('status, locations, GeoJSON, signals, trips, stats shapes', async () => {
    const status = (await h.get(`/v3/cars/${RICH}/status`, token)).json;
    expect(keys(status)).toEqual(['accelerometer', 'location', 'signals']);
    expect(keys(status.location)).toEqual(LOCATION_KEYS);
    const locations = (await h.get(`/v3/cars/${RICH}/locations`, token)).json as any[];
    expect(
      locations.filter(
        (l) => keys(l).join() !== LOCATION_KEYS.join() || !RFC3339.test(l.date) || !Number.isInteger(l.satellites) || !Number.isInteger(l.heading),
      ),
    ).toEqual([]);
    const signals = (await h.get(`/v3/cars/${RICH}/signals`, token)).json as any[];
    expect(signals.filter((s) => keys(s).join() !== 'date,name,value')).toEqual([]);
    const trips = (await h.get(`/v3/cars/${RICH}/trips`, token)).json as any[];
    expect(trips.filter((t) => keys(t).join() !== TRIP_SUMMARY_KEYS.join() || !/^[0-9a-f]{24}$/.test(t.id))).toEqual([]);
    for (const type of ['mileage', 'usedtime']) {
      const stat = (await h.get(`/v3/cars/${RICH}/stats/${type}`, token)).json;
      expect(keys(stat)).toEqual(['beginDate', 'endDate', 'type', 'value']);
      expect(stat.type).toBe(type === 'mileage' ? 'MILEAGE' : 'USED_TIME');
    }
  });

  test('a car without data: empty lists, null status, stats 0 (+ initialValue)', async () => {
    for (const route of ['locations', 'locations.geojson', 'signals', 'trips']) expect((await h.get(`/v3/cars/${BARE}/${route}`, token)).json).toEqual([]);
    expect((await h.get(`/v3/cars/${BARE}/status`, token)).json).toEqual({ accelerometer: null, location: null, signals: [] });
    expect((await h.get(`/v3/cars/${BARE}/stats/mileage`, token)).json.value).toBe(0);
    expect((await h.get(`/v3/cars/${BARE}/stats/usedtime?initialValue=42`, token)).json.value).toBe(42);
  });

  test('default range: 1st of the month 00:00 UTC to now', async () => {
    const explicit = `?begin=${q(MONTH_START)}&end=${q(NOW)}`;
    for (const route of ['locations', 'signals', 'trips', 'locations.geojson']) {
      expect((await h.get(`/v3/cars/${RICH}/${route}`, token)).json).toEqual((await h.get(`/v3/cars/${RICH}/${route}${explicit}`, token)).json);
    }
    const stat = (await h.get(`/v3/cars/${RICH}/stats/mileage`, token)).json;
    expect(stat.beginDate).toBe('2026-03-01T00:00:00.000+00:00');
    expect(stat.endDate).toBe('2026-03-17T10:20:30.000+00:00');
    // Only begin: end = now. Only end: begin = month start.
    expect((await h.get(`/v3/cars/${RICH}/stats/mileage?begin=${q(MONTH_START)}`, token)).json).toEqual(stat);
    expect((await h.get(`/v3/cars/${RICH}/stats/mileage?end=${q(NOW)}`, token)).json).toEqual(stat);
  });

  test('begin/end: RFC 3339 with offsets, ranges up to 31 days; 416 beyond or reversed; 400 unparseable', async () => {
    const url = (route: string, b: string, e: string) => `/v3/cars/${RICH}/${route}?begin=${encodeURIComponent(b)}&end=${encodeURIComponent(e)}`;
    for (const route of ['locations', 'locations.geojson', 'signals', 'trips', 'stats/mileage', 'stats/usedtime']) {
      expect((await h.get(url(route, iso(NOW - 28 * DAY), iso(NOW)), token)).status).toBe(200);
      expect((await h.get(url(route, iso(NOW - 31 * DAY), iso(NOW)), token)).status).toBe(200);
      expectError(await h.get(url(route, iso(NOW - 31 * DAY - 1000), iso(NOW)), token), 416, 'Range issue in dates');
      expectError(await h.get(url(route, iso(NOW - 32 * DAY), iso(NOW)), token), 416, 'Range issue in dates');
      expectError(await h.get(url(route, iso(NOW), iso(NOW - DAY)), token), 416, 'Range issue in dates');
      for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-03-01', '2026-03-01T25:00:00Z', '1709251200', '']) {
        const res = await h.get(url(route, bad, iso(NOW)), token);
        expectError(res, 400, 'Invalid begin date');
        expectError(await h.get(url(route, iso(NOW - DAY), bad), token), 400, 'Invalid end date');
      }
    }
    // Offsets and Z are equivalent; an unencoded '+' (read as a space) is tolerated.
    const a = (await h.get(url('signals', '2026-03-10T02:00:00+02:00', '2026-03-12T00:00:00Z'), token)).json;
    const b = (await h.get(url('signals', '2026-03-10T00:00:00Z', '2026-03-12T01:00:00+01:00'), token)).json;
    expect(a).toEqual(b);
    expect((await h.get(`/v3/cars/${RICH}/signals?begin=2026-03-10T00:00:00+00:00&end=2026-03-12T00:00:00.000+00:00`, token)).json).toEqual(a);
    expect((a as any[]).every((s) => s.date >= '2026-03-10' && s.date <= '2026-03-12T00:00:00.000+00:00')).toBe(true);
  });

  test('limit: the most recent items, 0 = none, negative 400, non-integer 400', async () => {
    const all = (await h.get(`/v3/cars/${RICH}/locations`, token)).json as any[];
    for (const route of ['locations', 'locations.geojson', 'signals']) {
      const three = (await h.get(`/v3/cars/${RICH}/${route}?limit=3`, token)).json as any[];
      expect(three).toHaveLength(3);
      expect((await h.get(`/v3/cars/${RICH}/${route}?limit=0`, token)).json).toEqual([]);
      expect(((await h.get(`/v3/cars/${RICH}/${route}?limit=99999999999999999999`, token)).json as any[]).length).toBeGreaterThan(3);
      for (const bad of ['-1', '-100']) expectError(await h.get(`/v3/cars/${RICH}/${route}?limit=${bad}`, token), 400, "Limit can't be less than 0");
      for (const bad of ['abc', '1.5', '', '+3', '1e2', '3abc'])
        expectError(await h.get(`/v3/cars/${RICH}/${route}?limit=${encodeURIComponent(bad)}`, token), 400, 'Limit must be an integer');
    }
    expect((await h.get(`/v3/cars/${RICH}/locations?limit=2`, token)).json).toEqual(all.slice(-2));
  });

  test('name: comma-separated known names; unknown -> 400 Wrong signal name', async () => {
    const both = (await h.get(`/v3/cars/${RICH}/signals?name=LockSts,Odometer`, token)).json as any[];
    expect(new Set(both.map((s) => s.name))).toEqual(new Set(['LockSts', 'Odometer']));
    const sts = both.filter((s) => s.name === 'LockSts');
    expect(sts.every((s) => s.value === 0 || s.value === 1)).toBe(true);
    expect(((await h.get(`/v3/cars/${RICH}/signals?name=VehiculeSpeed`, token)).json as any[]).every((s) => s.name === 'VehiculeSpeed')).toBe(true);
    for (const bad of ['Nope', 'Odometer,Nope', 'odometer', 'VehicleSpeed', '', 'Odometer,']) {
      expectError(await h.get(`/v3/cars/${RICH}/signals?name=${encodeURIComponent(bad)}`, token), 400, 'Wrong signal name');
    }
  });

  test('inclusive: false = started and ended in range, true = started or ended in range', async () => {
    const b = Date.parse('2026-03-05T00:00:00Z');
    const e = Date.parse('2026-03-12T00:00:00Z');
    const range = `begin=${q(b)}&end=${q(e)}`;
    const all = h.seed.histories.get(RICH)!.trips;
    const within = all.filter((t) => t.beginDate >= b && t.endDate <= e).map((t) => t.id);
    const touching = all.filter((t) => (t.beginDate >= b && t.beginDate <= e) || (t.endDate >= b && t.endDate <= e)).map((t) => t.id);
    const ids = async (query: string) => ((await h.get(`/v3/cars/${RICH}/trips?${query}`, token)).json as any[]).map((t) => t.id);
    expect(await ids(range)).toEqual(within);
    expect(await ids(`${range}&inclusive=false`)).toEqual(within);
    expect(await ids(`${range}&inclusive=true`)).toEqual(touching);
    // A trip straddling a boundary makes the two differ (the seed guarantees one at the month start).
    expect((await ids('inclusive=true')).length).toBeGreaterThan((await ids('inclusive=false')).length);
    for (const bad of ['yes', '1', '']) expectError(await h.get(`/v3/cars/${RICH}/trips?inclusive=${bad}`, token), 400, 'Invalid inclusive value');
  });

  test('initialValue: a number added to the value; otherwise 400', async () => {
    const base = (await h.get(`/v3/cars/${RICH}/stats/mileage`, token)).json.value;
    expect((await h.get(`/v3/cars/${RICH}/stats/mileage?initialValue=1000`, token)).json.value).toBeCloseTo(base + 1000, 3);
    expect((await h.get(`/v3/cars/${RICH}/stats/mileage?initialValue=-0.5`, token)).json.value).toBeCloseTo(base - 0.5, 3);
    for (const bad of ['abc', '', '1e3', 'NaN', 'Infinity'])
      expectError(await h.get(`/v3/cars/${RICH}/stats/usedtime?initialValue=${bad}`, token), 400, 'Invalid initialValue');
  });

  test('repeated query parameters are refused', async () => {
    expectError(await h.get(`/v3/cars/${RICH}/locations?limit=1&limit=2`, token), 400, 'Parameter limit is repeated');
    expectError(await h.get(`/v3/cars/${RICH}/signals?name=Odometer&name=LockSts`, token), 400, 'Parameter name is repeated');
    expectError(await h.get(`/v3/cars/${RICH}/trips?begin=${q(NOW - DAY)}&begin=${q(NOW - DAY)}`, token), 400, 'Parameter begin is repeated');
    // Unknown parameters are ignored.
    expect((await h.get(`/v3/cars/${RICH}/status?limit=-1&foo=bar`, token)).status).toBe(200);
  });

  test('unknown and malformed car ids: 404 Car not found on every car route', async () => {
    for (const id of ['424242', 'abc', '-5001', '5001.0', '05001', '99999999999999999999', '%F0%9F%9A%97', '%2F', 'x'.repeat(10000)]) {
      for (const route of ['', '/status', '/locations', '/locations.geojson', '/signals', '/trips', '/stats/mileage', '/stats/usedtime']) {
        expectError(await h.get(`/v3/cars/${id}${route}`, token), 404, 'Car not found');
      }
    }
  });
});

test.describe('trips', () => {
  test('trip record, locations, signals and their name filter', async () => {
    const id = h.latestTrip(RICH);
    const trip = (await h.get(`/v3/trips/${id}`, token)).json;
    expect(keys(trip)).toEqual([...TRIP_SUMMARY_KEYS, 'mileage', 'usedTime'].sort());
    expect(trip.id).toBe(id);
    const signals = (await h.get(`/v3/trips/${id}/signals?name=IgnitionSts`, token)).json as any[];
    expect(signals.map((s) => s.value)).toEqual([1, 0]);
    expectError(await h.get(`/v3/trips/${id}/signals?name=Bogus`, token), 400, 'Wrong signal name');
    expect(((await h.get(`/v3/trips/${id}/locations`, token)).json as any[]).length).toBeGreaterThanOrEqual(3);
  });

  test('unknown and malformed trip ids: 404 Trip not found on every trip route', async () => {
    for (const id of ['ffffffffffffffffffffffff', 'FFFFFFFFFFFFFFFFFFFFFFFF', 'abc', '123', 'g'.repeat(24), `${h.latestTrip(RICH)}0`, '%00']) {
      for (const route of ['', '/locations', '/locations.geojson', '/signals', '/stats', '/stats/mileage', '/stats/usedtime']) {
        expectError(await h.get(`/v3/trips/${id}${route}`, token), 404, 'Trip not found');
      }
    }
  });

  test("bob's trips are bob's", async () => {
    const bobToken = await h.bob();
    expect((await h.get(`/v3/trips/${h.latestTrip(BOB_CAR)}`, bobToken)).status).toBe(200);
    expect((await h.get(`/v3/trips/${h.latestTrip(RICH)}`, bobToken)).status).toBe(403);
  });
});
