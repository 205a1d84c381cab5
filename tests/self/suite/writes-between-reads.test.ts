// Writes between a check's two reads are not the server's fault. With --workers N, or against a
// distant target, the route groups run side by side: the device checks (devices group) associate and
// dissociate a device on data.deviceCarId while COH-ME-CARS (users group) compares the user's two car
// lists, and a conforming server then lists that car with another deviceId and lastUpdateDate the
// second time (measured at 300 ms, one run in three, before the check knew it); a car created between
// the two lists (a body CAR-CREATE-INVALID sent that a faulty server accepted, another client of a
// shared server) makes them differ once. Made certain here: a proxy in front of the reference writes
// between the check's reads. A server whose two lists differ every time (on another car, or on the
// device car in another field) still fails the check. COH-CAR-LIST-ITEM (a list against each car by id)
// leaves out the same fields of the same car, by the same rule, and compares the rest.
// In-process (src/engine/in-process.ts), each check alone.
import { expect, test } from '@playwright/test';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import { keysPattern } from '../../../src/catalogue/selection';
import { runInProcess } from '../../../src/engine/in-process';
import { loadTarget } from '../../../src/setup/target';
import { startReference, writeTargetFile, type Reference } from '../../../scripts/reference-process';
import { startFrontProxy } from '../support/front-proxy';

test.setTimeout(120_000);

const CHECK = 'COH-ME-CARS';

let reference: Reference;
test.beforeAll(async () => {
  reference = await startReference();
});
test.afterAll(async () => reference?.stop());

/** A server that answers GET /users/{userId}/cars otherwise than GET /users/me/cars, every time. */
type Alter = (cars: Array<Record<string, unknown>>) => Array<Record<string, unknown>>;

/** A write made between the reads: given the token of the request and the list it answered, true when it was made. */
type Between = (authorization: string, listed: Array<{ id: unknown; deviceId: unknown }>) => Promise<boolean>;

/**
 * A proxy (support/front-proxy.ts) that, after each answer of GET /users/me/cars is read from the
 * reference and before it is handed over, makes the write `between` (with the request's own token):
 * the next read of the user's cars finds it. `alter` rewrites every answer of GET /users/{userId}/cars.
 */
async function writingProxy(upstream: string, between: Between, alter?: Alter, listPath = /^\/v3\/users\/me\/cars$/) {
  let writes = 0;
  const proxy = await startFrontProxy(
    upstream,
    () => false,
    async (req, status, body) => {
      const path = (req.url ?? '').split('?')[0];
      const auth = String(req.headers.authorization ?? '');
      if (req.method !== 'GET' || status !== 200) return undefined;
      if (listPath.test(path) && auth) {
        if (await between(auth, JSON.parse(body.toString('utf8')) as Array<{ id: unknown; deviceId: unknown }>)) writes += 1;
      } else if (alter && /^\/v3\/users\/[^/]+\/cars$/.test(path)) {
        return Buffer.from(JSON.stringify(alter(JSON.parse(body.toString('utf8')) as Array<Record<string, unknown>>)));
      }
      return undefined;
    },
  );
  return { ...proxy, writes: () => writes };
}

const call = (method: string, path: string, authorization: string, body?: unknown) =>
  fetch(`http://127.0.0.1:${reference.port}/v3${path}`, {
    method,
    headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).then((r) => r.status);

/** Moves `device` on or off `car` (a list without that car, another user's, is left as it is). */
const movesDevice =
  (device: string, car: string): Between =>
  async (auth, listed) => {
    const on = listed.find((c) => String(c.id) === car);
    if (!on) return false;
    const status =
      on.deviceId === device
        ? await call('POST', `/devices/${device}/dissociate`, auth)
        : await call('POST', `/devices/${device}/associate?carId=${encodeURIComponent(car)}`, auth);
    return status === 204;
  };

/** Creates one car for the user, once, with a body the suite never sends (not one of its own cars); `ownCar` tells the user's list. */
const createsACarOnce = (userId: string, ownCar: string): Between => {
  let done = false;
  return async (auth, listed) => {
    if (done || !listed.some((c) => String(c.id) === ownCar)) return false;
    done = true;
    return (await call('POST', `/users/${userId}/cars`, auth, { make: 'Renault', model: 'Clio' })) === 201;
  };
};

/** The primary user's cars: their ids, and whether each has a device. */
async function primaryCars(): Promise<Array<{ id: string; free: boolean }>> {
  const target = loadTarget(reference.targetFile);
  const token = await reference.keptToken(target.oauth!.clientId!, target.oauth!.username!);
  const res = await fetch(`http://127.0.0.1:${reference.port}/v3/users/me/cars`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as Array<{ id: unknown; deviceId: unknown }>).map((c) => ({ id: String(c.id), free: c.deviceId === null }));
}

/** COH-ME-CARS alone through the proxy; data.deviceCarId (the car the device checks write) as given. */
async function runThrough(between: Between, deviceCarId: string, alter?: Alter, check = CHECK, listPath?: RegExp) {
  const proxy = await writingProxy(`http://127.0.0.1:${reference.port}`, between, alter, listPath);
  try {
    const target = loadTarget(writeTargetFile(proxy.origin, 'local', { control: reference.control }));
    target.data.deviceCarId = deviceCarId;
    const run = await runInProcess({ target, catalogue: loadCatalogue(), selection: { grep: new RegExp(keysPattern([check])) } });
    return { record: run.records.find((r) => r.key === check)!, writes: proxy.writes() };
  } finally {
    await proxy.close();
  }
}

/** A car of the primary user without a device (the one moved), another car, and the device the target file offers. */
async function carsAndDevice() {
  await reference.setFault(null); // resets the reference: what an earlier test moved or created is gone
  const cars = await primaryCars();
  const moved = cars.find((c) => c.free)?.id;
  const another = cars.find((c) => c.id !== moved)?.id;
  expect([moved, another], 'the reference seeds the primary user a car without a device, and another').not.toContain(undefined);
  return { moved: moved!, another: another!, device: loadTarget(reference.targetFile).data.deviceForCarId! };
}

test('the device moved on data.deviceCarId between the two lists (the device checks, side by side): not a failure', async () => {
  const { moved, device } = await carsAndDevice();
  const { record, writes } = await runThrough(movesDevice(device, moved), moved);
  expect(writes, 'the proxy moved the device between the reads').toBeGreaterThan(0);
  expect(record.status, JSON.stringify(record.failure)).toBe('passed');
});

test("a car created once between the two lists (not one of the suite's): the lists read again agree, not a failure", async () => {
  const { moved } = await carsAndDevice();
  const me = loadTarget(reference.targetFile);
  const token = await reference.keptToken(me.oauth!.clientId!, me.oauth!.username!);
  const userId = String(
    ((await (await fetch(`http://127.0.0.1:${reference.port}/v3/users/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as { id: unknown }).id,
  );
  const { record, writes } = await runThrough(createsACarOnce(userId, moved), moved);
  expect(writes, 'the proxy created a car between the reads').toBe(1);
  expect(record.status, JSON.stringify(record.failure)).toBe('passed');
});

const nothing: Between = async () => false;

/** The car `id` of the list, with `field` changed. */
const changed =
  (id: string, field: string, value: unknown): Alter =>
  (cars) =>
    cars.map((c) => (String(c.id) === id ? { ...c, [field]: value } : c));

test('a server whose two lists differ every time: on another car, or on data.deviceCarId in a field the device checks do not change, COH-ME-CARS fails', async () => {
  const { moved, another } = await carsAndDevice();
  for (const [car, field, value] of [
    [another, 'lastUpdateDate', '2020-01-01T00:00:00+00:00'],
    [another, 'deviceId', 'VDSNOTHERE'],
    [moved, 'name', 'Another name'],
  ] as const) {
    const { record } = await runThrough(nothing, moved, changed(car, field, value));
    expect(record.status, `${field} of car ${car}: ${JSON.stringify(record.failure)}`).toBe('failed');
    expect(record.failure!.actual).toBe(`differs in ${field}`);
  }
  // The device car's deviceId and lastUpdateDate: what the device checks change while the run goes on.
  const { record } = await runThrough(nothing, moved, changed(moved, 'lastUpdateDate', '2020-01-01T00:00:00+00:00'));
  expect(record.status).toBe('passed');
});

test("COH-CAR-LIST-ITEM, the same rule: the device moved between the list and the cars by id is not a failure; the device car's other fields are compared", async () => {
  const { moved, device } = await carsAndDevice();
  const listItem = 'COH-CAR-LIST-ITEM';
  const userList = /^\/v3\/users\/[^/]+\/cars$/;
  const movedRun = await runThrough(movesDevice(device, moved), moved, undefined, listItem, userList);
  expect(movedRun.writes, 'the proxy moved the device between the reads').toBeGreaterThan(0);
  expect(movedRun.record.status, JSON.stringify(movedRun.record.failure)).toBe('passed');
  const renamed = await runThrough(nothing, moved, changed(moved, 'name', 'Another name'), listItem);
  expect(renamed.record.status, JSON.stringify(renamed.record.failure)).toBe('failed');
  expect(renamed.record.failure!.actual).toMatch(/^differs in name /);
});
