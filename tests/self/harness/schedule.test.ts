// Which checks run one after another (src/engine/schedule.ts writeLanes), from the catalogue: the device
// checks in one lane, or in two when the run has a second device pair (src/setup/device-pair.ts), every
// check of data.freeDeviceId then in the second (they share that device, in catalogue order); the pin
// attempts on data.lockableDeviceId in a lane of their own; each check that only creates cars alone.
// And what a check of the second lane reads for the first pair's keys (CheckContext.data, dataName).
import { expect, test } from '@playwright/test';
import { loadCatalogue, planChecks } from '../../../src/catalogue/catalogue';
import { CheckContext } from '../../../src/check-api';
import { writeLanes } from '../../../src/engine/schedule';
import type { RunContext } from '../../../src/setup/run-context';
import type { Target } from '../../../src/setup/target';
import type { ApiClient } from '../../../src/transport/api';
import { Redactor } from '../../../src/util/redact';

const CATALOGUE = loadCatalogue();
const PLANNED = planChecks(CATALOGUE);
const FIRST = { deviceForCarId: 'D1', deviceCarId: '5003' };
const BOTH = { ...FIRST, secondDeviceForCarId: 'D2', secondDeviceCarId: '5006' };
/** The procedures that use data.freeDeviceId: one device, so one lane. */
const FREE_DEVICE_CHECKS = new Set(['core-device-scope-restricted', 'device-associated-by-pin', 'device-pin-associate']);
const ids = (lane: Array<{ requirement: { id: string } }>) => lane.map((p) => p.requirement.id);

test("the device checks: one lane in catalogue order, or two with a second pair, the free device's checks in the second", () => {
  const devices = PLANNED.filter((p) => p.group === 'devices');
  const one = writeLanes(devices, FIRST);
  const two = writeLanes(devices, BOTH);
  const lockable = ['DEV-PIN-WRONG', 'DEV-PIN-LOCKOUT', 'DEV-PIN-MALFORMED'];
  expect(one.map(ids)).toContainEqual(lockable);
  expect(two.map(ids)).toContainEqual(lockable);
  expect(one).toHaveLength(2);
  expect(two).toHaveLength(3);
  const [single] = one.filter((l) => !ids(l).includes('DEV-PIN-WRONG'));
  // Without a second pair, the catalogue's order, all in one lane.
  expect(ids(single)).toEqual(devices.filter((p) => single.includes(p)).map((p) => p.requirement.id));
  const [first, second] = two.filter((l) => !ids(l).includes('DEV-PIN-WRONG'));
  expect([...ids(first), ...ids(second)].sort()).toEqual([...ids(single)].sort());
  expect(second.every((p) => p.requirement.lane === 'second')).toBe(true);
  expect(first.some((p) => p.requirement.lane === 'second')).toBe(false);
  for (const p of single) if (FREE_DEVICE_CHECKS.has(p.requirement.check)) expect(second, p.key).toContain(p);
  // Halves of about the same length: neither lane holds more than two thirds of the checks.
  expect(Math.max(first.length, second.length)).toBeLessThanOrEqual(Math.ceil((single.length * 2) / 3));
  // A second device without a second car (none discovered): one lane.
  expect(writeLanes(devices, { ...FIRST, secondDeviceForCarId: 'D2' })).toHaveLength(2);
  // A second pair that repeats the first's device or car (two lanes would meet on it): one lane.
  expect(writeLanes(devices, { ...BOTH, secondDeviceForCarId: 'D1' })).toHaveLength(2);
  expect(writeLanes(devices, { ...BOTH, secondDeviceCarId: '5003' })).toHaveLength(2);
});

test('each check that only creates cars is a lane of its own; a device check that creates a spare car stays in its lane', () => {
  const users = writeLanes(PLANNED.filter((p) => p.group === 'users'));
  expect(users.length).toBeGreaterThan(3);
  for (const lane of users) expect(lane).toHaveLength(1);
  const devices = writeLanes(PLANNED.filter((p) => p.group === 'devices'));
  expect(devices.flat().map((p) => p.requirement.id)).toContain('DEV-ASSOCIATED-OTHER-CAR');
});

test("a check of the second lane reads the second pair for the first pair's keys, and names them; without the pair, the first", () => {
  const target = { name: 't', env: 'cloud', baseUrl: 'http://127.0.0.1:9/v3', source: 't.yaml', data: {} } as unknown as Target;
  const ctxFor = (id: string, data: Record<string, string>) =>
    new CheckContext(
      target,
      { data, dataNotes: {}, tokens: {}, tokenNotes: {} } as unknown as RunContext,
      CATALOGUE,
      {} as ApiClient,
      new Redactor([]),
      CATALOGUE.requirements.find((r) => r.id === id)!,
    );
  const second = ctxFor('DEV-DISSOCIATE', BOTH);
  expect([second.data('deviceForCarId'), second.data('deviceCarId'), second.dataName('deviceCarId')]).toEqual(['D2', '5006', 'data.secondDeviceCarId']);
  const alone = ctxFor('DEV-DISSOCIATE', FIRST);
  expect([alone.data('deviceForCarId'), alone.data('deviceCarId'), alone.dataName('deviceCarId')]).toEqual(['D1', '5003', 'data.deviceCarId']);
  const first = ctxFor('DEV-CAR-ASSOCIATE', BOTH);
  expect([first.data('deviceForCarId'), first.dataName('deviceForCarId')]).toEqual(['D1', 'data.deviceForCarId']);
});
