// What discovery chooses (src/setup/discovery.ts) from a small server on the loopback: the data window
// of the car with the most trips in the most recent 28 days that hold any, moved to end with its data
// when that window holds only its last few trips (a car whose data stopped weeks ago: the range checks
// need items on both sides of a date); the second car without a device for a second device pair, and a
// second pair that repeats a key of the first is refused with a warning (src/setup/device-pair.ts).
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { discoverData } from '../../../src/setup/discovery';
import type { RunInProgress } from '../../../src/setup/preparation';
import type { Target } from '../../../src/setup/target';
import { ApiClient } from '../../../src/transport/api';
import { Redactor } from '../../../src/util/redact';
import { listenOnLoopback } from '../support/loopback-server';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-28T09:30:00Z');

/**
 * User 1 with cars 10 (a device, trips every day from `first` to `last` days ago), 11 and 12 (none);
 * GET /users/me/cars lists `meCars` (none given: not served; 'hangs': never answered). Counts the trip lookups.
 */
async function server(first: number, last: number, meCars?: number[] | 'hangs') {
  const lookups: string[] = [];
  const trips = Array.from({ length: first - last + 1 }, (_, i) => {
    const begin = NOW - (first - i) * DAY;
    return { id: `t${i}`, beginDate: new Date(begin).toISOString(), endDate: new Date(begin + 3_600_000).toISOString() };
  });
  const s = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/v3/users/me') return json({ id: 1 });
    const car = (id: number) => ({ id, deviceId: id === 10 ? 'D10' : null });
    if (url.pathname === '/v3/users/1/cars') return json([10, 11, 12].map(car));
    if (url.pathname === '/v3/users/me/cars' && meCars === 'hangs') return undefined;
    if (url.pathname === '/v3/users/me/cars' && Array.isArray(meCars)) return json(meCars.map(car));
    if (url.pathname.endsWith('/trips')) lookups.push(url.pathname);
    if (url.pathname === '/v3/cars/10/trips') {
      const [begin, end] = ['begin', 'end'].map((k) => Date.parse(url.searchParams.get(k) ?? ''));
      return json(trips.filter((t) => Date.parse(t.beginDate) >= begin && Date.parse(t.endDate) <= end));
    }
    if (/^\/v3\/cars\/\d+\/trips$/.test(url.pathname)) return json([]);
    res.writeHead(404).end();
  });
  const { origin, close } = await listenOnLoopback(s);
  return { base: `${origin}/v3`, close, lookups };
}

const target = (baseUrl: string, data: Record<string, string> = {}) =>
  ({ name: 't', env: 'cloud', baseUrl, requestTimeoutMs: 2000, source: 't.yaml', data }) as unknown as Target;
/** What discovery fills in of the run, with the primary token. */
async function discover(base: string, data?: Record<string, string>) {
  const t = target(base, data);
  const redactor = new Redactor([]);
  const run: RunInProgress = { tokens: { full: 'tok' }, tokenNotes: {}, data: { ...t.data }, dataNotes: {}, warnings: [], choices: [] };
  await discoverData({ target: t, redactor, api: new ApiClient(t.baseUrl, t.requestTimeoutMs, redactor), run }, new Date(NOW));
  return run;
}

test("a car whose data stopped at the newest window's far edge: the window ends with its data, and holds weeks of it", async () => {
  // Trips from 50 days ago to 27.9 days ago: the newest 28 days hold one.
  const s = await server(50, 27.9);
  try {
    const found = await discover(s.base);
    expect(found.data.carId).toBe('10');
    const end = Date.parse(found.window!.end);
    expect(end).toBeLessThan(NOW - 27 * DAY);
    expect(end - Date.parse(found.window!.begin)).toBe(28 * DAY);
    expect(found.choices[0]).toMatch(/car 10 \(2[0-9] trips from/);
  } finally {
    await s.close();
  }
});

test('a car with recent data: the window ends now, as before', async () => {
  const s = await server(40, 1);
  try {
    const found = await discover(s.base);
    expect(Date.parse(found.window!.end)).toBe(NOW);
  } finally {
    await s.close();
  }
});

test('a second device for association by car gets a second car without a device; a second pair that repeats the first is refused, said', async () => {
  const s = await server(40, 1);
  try {
    const two = await discover(s.base, { deviceForCarId: 'D1', secondDeviceForCarId: 'D2' });
    expect([two.data.deviceCarId, two.data.secondDeviceCarId]).toEqual(['11', '12']);
    expect(two.warnings.join('\n')).not.toMatch(/one write lane/);
    const same = await discover(s.base, { deviceForCarId: 'D1', secondDeviceForCarId: 'D1' });
    expect(same.warnings.join('\n')).toMatch(/data\.secondDeviceForCarId is data\.deviceForCarId \(D1\): the device checks run in one write lane/);
  } finally {
    await s.close();
  }
});

test("the user's own list (GET /users/me/cars) starts the trip lookups early: used when it names the list by id's cars in its order, else the list by id's cars are looked at", async () => {
  // The same cars: each car's trips looked at once, the choice as the list by id gives it.
  const same = await server(40, 1, [10, 11, 12]);
  try {
    const found = await discover(same.base);
    expect(found.data.carId).toBe('10');
    expect([...same.lookups].sort()).toEqual(['/v3/cars/10/trips', '/v3/cars/11/trips', '/v3/cars/12/trips']);
  } finally {
    await same.close();
  }
  // Another list (car 10 left out): the list by id's cars are looked at, and its car with data chosen.
  const other = await server(40, 1, [11, 12]);
  try {
    const found = await discover(other.base);
    expect(found.data.carId).toBe('10');
    expect(found.choices[0]).toMatch(/car 10 \(/);
    expect(other.lookups).toContain('/v3/cars/10/trips');
  } finally {
    await other.close();
  }
});

test("nothing waits for the user's own list: one that does not answer costs discovery nothing", async () => {
  const s = await server(40, 1, 'hangs');
  try {
    const started = Date.now();
    const found = await discover(s.base);
    expect(found.data.carId).toBe('10');
    // The target's requestTimeoutMs is 2 s: discovery did not wait it out.
    expect(Date.now() - started).toBeLessThan(1500);
  } finally {
    await s.close();
  }
});
