// Write routes: car creation and the device routes (profile's tables), each test on a fresh app.

import { expect, test } from '@playwright/test';
import { expectErrorShape, firstError, Harness, Res, SEED_IDS, STRICT_DATE } from './helpers';

const { alice: ALICE, bob: BOB, aliceRichCar: RICH, aliceSecondCar: SECOND, aliceBareCar: BARE, bobCar: BOB_CAR, bobBareCar: BOB_BARE } = SEED_IDS;

let h: Harness;
let token: string;
test.beforeEach(async () => {
  h = await Harness.start();
  token = await h.alice();
});
test.afterEach(async () => h.close());

function expectError(res: Res, status: number, type: string, message?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(firstError(res).type).toBe(type);
  if (message !== undefined) expect(firstError(res).message).toBe(message);
  expectErrorShape(res);
}

test.describe('car creation', () => {
  const create = (body: unknown, options: { raw?: string; contentType?: string; userId?: number } = {}) =>
    h.post(`/v3/users/${options.userId ?? ALICE}/cars`, {
      token,
      ...(options.raw !== undefined ? { body: options.raw, headers: { 'content-type': options.contentType ?? 'application/json' } } : { json: body }),
    });

  test('201 with the created-car record; the car is listed and readable; defaults', async () => {
    const res = await create({ make: 'Renault', model: 'Megane', name: 'Family', year: 2018, numberPlate: 'GH-001-AA', timezone: 'America/New_York' });
    expect(res.status).toBe(201);
    expect(res.contentType).toBe('application/json; charset=utf-8');
    const car = res.json;
    expect(Object.keys(car).sort()).toEqual([
      'cardbId',
      'creationDate',
      'deviceId',
      'id',
      'lastUpdateDate',
      'make',
      'model',
      'name',
      'numberPlate',
      'timezone',
      'userId',
      'year',
    ]);
    expect(car).toMatchObject({
      make: 'Renault',
      model: 'Megane',
      name: 'Family',
      year: 2018,
      numberPlate: 'GH-001-AA',
      timezone: 'America/New_York',
      userId: ALICE,
      deviceId: null,
    });
    expect(Number.isInteger(car.id) && Number.isInteger(car.cardbId)).toBe(true);
    expect(car.creationDate).toMatch(STRICT_DATE);
    expect(car.creationDate).toBe('2026-03-17T10:20:30+00:00');
    const { userId: _userId, timezone: _timezone, ...record } = car;
    expect((await h.get(`/v3/cars/${car.id}`, token)).json).toEqual(record);
    expect((await h.get('/v3/users/me/cars', token)).json).toContainEqual(record);
    expect((await h.get(`/v3/users/${ALICE}/cars`, token)).json).toContainEqual(record);
    expect((await h.get(`/v3/cars/${car.id}/status`, token)).json).toEqual({ accelerometer: null, location: null, signals: [] });
    expect((await h.get(`/v3/cars/${car.id}`, await h.bob())).status).toBe(403);

    const minimal = (await create({ make: 'Dacia', model: 'S' })).json;
    expect(minimal).toMatchObject({ make: 'Dacia', model: 'S', timezone: 'Europe/Paris', year: 0, numberPlate: null, name: 'Dacia S' });
    expect(minimal.id).toBe(car.id + 1);
    expect((await create({ make: 'Dacia', model: 'S', timezone: 'UTC', name: '', numberPlate: '' })).json).toMatchObject({
      timezone: 'UTC',
      name: '',
      numberPlate: '',
    });
    expect((await create({ make: 'x'.repeat(64), model: 'y'.repeat(64), name: 'z'.repeat(64), numberPlate: 'n'.repeat(64) })).status).toBe(201);
    expect((await create({ make: 'Abc', model: 'M', extra: 'ignored', year: null })).status).toBe(201);
  });

  test('invalid bodies: 400 PARAMETERS_ERROR', async () => {
    const bad: unknown[] = [
      {},
      { model: 'Clio' },
      { make: 'Renault' },
      { make: 'Re', model: 'Clio' },
      { make: 'x'.repeat(65), model: 'Clio' },
      { make: 123, model: 'Clio' },
      { make: 'Renault', model: '' },
      { make: 'Renault', model: 'm'.repeat(65) },
      { make: 'Renault', model: 5 },
      { make: 'Renault', model: 'Clio', name: 'n'.repeat(65) },
      { make: 'Renault', model: 'Clio', name: 7 },
      { make: 'Renault', model: 'Clio', year: '2020' },
      { make: 'Renault', model: 'Clio', year: 2020.5 },
      { make: 'Renault', model: 'Clio', year: 1e20 },
      { make: 'Renault', model: 'Clio', year: -1 },
      { make: 'Renault', model: 'Clio', numberPlate: 'p'.repeat(65) },
      { make: 'Renault', model: 'Clio', numberPlate: 42 },
      { make: 'Renault', model: 'Clio', timezone: 'Mars/Base' },
      { make: 'Renault', model: 'Clio', timezone: 'europe/paris' },
      { make: 'Renault', model: 'Clio', timezone: '' },
      { make: 'Renault', model: 'Clio', timezone: 3 },
      [],
      [{ make: 'Renault', model: 'Clio' }],
      'Renault',
      42,
      null,
    ];
    for (const body of bad) expectError(await create(body), 400, 'PARAMETERS_ERROR');
    for (const raw of ['', '{', 'make=Renault&model=Clio', '{"make":"Renault",}', 'null'])
      expectError(await create(undefined, { raw }), 400, 'PARAMETERS_ERROR');
    expectError(await create(undefined, { raw: 'make=Renault&model=Clio', contentType: 'application/x-www-form-urlencoded' }), 400, 'PARAMETERS_ERROR');
    // None of them created a car.
    expect(((await h.get('/v3/users/me/cars', token)).json as any[]).length).toBe(4);
    // Decision: a JSON object is read whatever the declared content type.
    expect((await create(undefined, { raw: '{"make":"Renault","model":"Clio"}', contentType: 'text/plain' })).status).toBe(201);
  });

  test('owner, existence, scope', async () => {
    expectError(await create({ make: 'Renault', model: 'Clio' }, { userId: BOB }), 403, 'AUTHORIZATION_ERROR', "Token can't access this user");
    expectError(await create({ make: 'Renault', model: 'Clio' }, { userId: 424242 }), 404, 'PARAMETERS_ERROR', 'User not found');
    const readOnly = await h.token({ scope: 'cars_read users_read' });
    expectError(
      await h.post(`/v3/users/${ALICE}/cars`, { token: readOnly, json: { make: 'Renault', model: 'Clio' } }),
      403,
      'AUTHORIZATION_ERROR',
      'Token does not have the required scope',
    );
  });
});

test.describe('devices', () => {
  const post = (url: string, t: string = token) => h.post(url, { token: t });

  test('associate with a car: 204, car deviceId set; dissociate: 204, deviceId null; then free again', async () => {
    const res = await post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const car = (await h.get(`/v3/cars/${BARE}`, token)).json;
    expect(car.deviceId).toBe('VDSREF0101');
    expect(car.lastUpdateDate).toBe('2026-03-17T10:20:30+00:00');
    expectError(await post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`), 409, 'PARAMETERS_ERROR', 'Device already associated');
    expect((await post('/v3/devices/VDSREF0101/dissociate')).status).toBe(204);
    expect((await h.get(`/v3/cars/${BARE}`, token)).json.deviceId).toBeNull();
    expectError(await post('/v3/devices/VDSREF0101/dissociate'), 409, 'PARAMETERS_ERROR', 'Device is not associated');
    expect((await post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`)).status).toBe(204);
  });

  test('seeded associations: dissociate clears car and user links', async () => {
    expect((await post('/v3/devices/VDSREF0002/dissociate')).status).toBe(204);
    expect((await h.get(`/v3/cars/${SECOND}`, token)).json.deviceId).toBeNull();
    // Free now: bob can take it by pin, alice can no longer dissociate it.
    expect((await post('/v3/devices/VDSREF0002/associate?pin=73519', await h.bob())).status).toBe(204);
    expectError(await post('/v3/devices/VDSREF0002/dissociate'), 403, 'AUTHORIZATION_ERROR', "Token can't access this user");
    expectError(await post('/v3/devices/VDSREF0002/associate?carId=' + SECOND), 403, 'AUTHORIZATION_ERROR', "Token can't access this user");
    expect((await post(`/v3/devices/VDSREF0002/associate?carId=${BOB_BARE}`, await h.bob())).status).toBe(204);
    expect((await h.get(`/v3/cars/${BOB_BARE}`, await h.bob())).json.deviceId).toBe('VDSREF0002');
  });

  test('pin association links the device to the token user; 409 when already associated', async () => {
    expect((await post('/v3/devices/VDSREF0103/associate?pin=975310')).status).toBe(204);
    expectError(await post('/v3/devices/VDSREF0103/associate?pin=975310'), 409, 'PARAMETERS_ERROR', 'Device already associated');
    expectError(await post('/v3/devices/VDSREF0103/associate?pin=975310', await h.bob()), 409, 'PARAMETERS_ERROR');
    // The user then attaches it to one of their cars.
    expect((await post(`/v3/devices/VDSREF0103/associate?carId=${BARE}`)).status).toBe(204);
    expect((await post('/v3/devices/VDSREF0103/dissociate')).status).toBe(204);
    expectError(await post('/v3/devices/VDSREF0001/associate?pin=4821'), 409, 'PARAMETERS_ERROR');
  });

  test('wrong pin: 400; three failures lock the device (403), even for the right pin', async () => {
    for (let i = 0; i < 3; i++) expectError(await post('/v3/devices/VDSREF0104/associate?pin=1111'), 400, 'PARAMETERS_ERROR', 'Wrong pin');
    expectError(await post('/v3/devices/VDSREF0104/associate?pin=8642'), 403, 'AUTHORIZATION_ERROR', 'Too many failed pin attempts');
    expectError(await post('/v3/devices/VDSREF0104/associate?pin=8642', await h.bob()), 403, 'AUTHORIZATION_ERROR');
    // Malformed pins do not count as attempts.
    for (let i = 0; i < 5; i++) expectError(await post('/v3/devices/VDSREF0105/associate?pin=12'), 400, 'PARAMETERS_ERROR', 'Malformed pin');
    expect((await post('/v3/devices/VDSREF0105/associate?pin=31415')).status).toBe(204);
  });

  test('400: malformed device id, malformed carId, malformed pin, missing or both parameters', async () => {
    for (const id of ['bad%20id', 'a.b', '%E2%82%AC', 'x'.repeat(33), '%2F']) {
      expectError(await post(`/v3/devices/${id}/associate?pin=1234`), 400, 'PARAMETERS_ERROR', 'Malformed device id');
      expectError(await post(`/v3/devices/${id}/dissociate`), 400, 'PARAMETERS_ERROR', 'Malformed device id');
    }
    for (const carId of ['abc', '-1', '1.5', '', '99999999999999999999'])
      expectError(await post(`/v3/devices/VDSREF0101/associate?carId=${carId}`), 400, 'PARAMETERS_ERROR', 'Malformed carId');
    for (const pin of ['abc', '123', '1234567', '', '12 34'])
      expectError(await post(`/v3/devices/VDSREF0101/associate?pin=${encodeURIComponent(pin)}`), 400, 'PARAMETERS_ERROR', 'Malformed pin');
    expectError(await post('/v3/devices/VDSREF0101/associate'), 400, 'PARAMETERS_ERROR', 'Missing parameter');
    expectError(await post(`/v3/devices/VDSREF0101/associate?carId=${BARE}&pin=1357`), 400, 'PARAMETERS_ERROR');
    expectError(await post(`/v3/devices/VDSREF0101/associate?carId=${BARE}&carId=${BARE}`), 400, 'PARAMETERS_ERROR');
  });

  test('404 unknown device / unknown car; 403 other user car; 409 car already has a device', async () => {
    expectError(await post(`/v3/devices/VDSREF9999/associate?carId=${BARE}`), 404, 'PARAMETERS_ERROR', 'Device not found');
    expectError(await post('/v3/devices/vdsref0101/dissociate'), 404, 'PARAMETERS_ERROR', 'Device not found');
    expectError(await post('/v3/devices/VDSREF0101/associate?carId=424242'), 404, 'PARAMETERS_ERROR', 'Car not found');
    expectError(await post(`/v3/devices/VDSREF0101/associate?carId=${BOB_CAR}`), 403, 'AUTHORIZATION_ERROR', "Token can't access this car");
    expectError(await post('/v3/devices/VDSREF0003/dissociate'), 403, 'AUTHORIZATION_ERROR', "Token can't access this car");
    expectError(await post(`/v3/devices/VDSREF0101/associate?carId=${RICH}`), 409, 'PARAMETERS_ERROR', 'Car already associated with a device');
    // Nothing changed.
    expect((await h.get(`/v3/cars/${RICH}`, token)).json.deviceId).toBe('VDSREF0001');
  });

  test('device routes need devices_management', async () => {
    const noDevices = await h.token({ scope: 'cars_read cars_write users_read' });
    for (const url of [
      `/v3/devices/VDSREF0101/associate?carId=${BARE}`,
      '/v3/devices/VDSREF0101/associate?pin=1357',
      '/v3/devices/VDSREF0001/dissociate',
      '/v3/devices/bad!/dissociate',
    ]) {
      expectError(await post(url, noDevices), 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope');
      expect(String(firstError(await post(url, noDevices)).tip)).toContain('devices_management');
    }
  });
});
