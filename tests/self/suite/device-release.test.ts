// The device checks free data.deviceForCarId before arranging what they need and do not clean up
// after themselves (checks/devices.ts): the run frees it once they are done (src/setup/device-release.ts), so
// the target is left as the run found it, the device free, whether the whole lane ran or one check of
// it. Read back from the reference after each in-process run (src/engine/in-process.ts): no car of the
// user carries the device. Without the release, DEV-CAR-ASSOCIATE alone leaves it on data.deviceCarId
// (seen failing so); the whole lane happens to end with checks that leave it free (its order is the
// catalogue's), as a selection, --last-failed or a stop after --max-failures need not.
// With a second device pair (the local target's data.secondDeviceForCarId, the reference's car 5006
// discovered for it: src/setup/device-pair.ts), the checks of the second lane act on that pair, both
// devices are freed, and the device checks' outcomes are those of a run in one lane (the pair left out).
import { expect, test } from '@playwright/test';
import { keysPattern } from '../../../src/catalogue/selection';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { carDevices } from '../../../src/setup/device-pair';
import { loadTarget } from '../../../src/setup/target';
import { startReference, type Reference } from '../../../scripts/reference-process';

test.setTimeout(120_000);

let reference: Reference;
test.beforeAll(async () => {
  reference = await startReference();
});
test.afterAll(async () => reference?.stop());

/** The cars of the user that list one of the run's devices, read with the run's token after it ended (none: both free). */
async function carsWithTheDevices(run: InProcessRun): Promise<string[]> {
  const { data, tokens } = run.context;
  const target = loadTarget(reference.targetFile);
  const res = await fetch(`${target.baseUrl}/users/${data.userId}/cars`, { headers: { authorization: `Bearer ${tokens.full}` } });
  expect(res.status).toBe(200);
  const cars = (await res.json()) as Array<{ id: unknown; deviceId: unknown }>;
  expect(cars.length).toBeGreaterThan(0);
  return cars.filter((c) => carDevices(data).includes(String(c.deviceId))).map((c) => `car ${String(c.id)} carries ${String(c.deviceId)}`);
}

test('after one check that leaves the device associated (DEV-CAR-ASSOCIATE), the run leaves the devices free, as it found them', async () => {
  const run = await runInProcess({ target: loadTarget(reference.targetFile), selection: { grep: new RegExp(keysPattern(['DEV-CAR-ASSOCIATE'])) } });
  expect(run.certificate.counts.checks.failed, run.console).toBe(0);
  expect(run.certificate.counts.checks.passed).toBeGreaterThan(0);
  expect(carDevices(run.context.data)).toHaveLength(2);
  expect(await carsWithTheDevices(run)).toEqual([]);
});

test("after the device checks of the write lanes, the devices are free; the second lane's checks act on the second pair, and every device check ends as in one lane", async () => {
  const devices = { selection: { grep: /@devices/ } };
  const two = await runInProcess({ target: loadTarget(reference.targetFile), ...devices });
  expect(two.certificate.counts.checks.failed, two.console).toBe(0);
  expect(await carsWithTheDevices(two)).toEqual([]);
  // The next run resets the reference: its tokens are new.
  const alone = loadTarget(reference.targetFile);
  delete alone.data.secondDeviceForCarId;
  const one = await runInProcess({ target: alone, ...devices });
  expect(two.context.data.secondDeviceCarId).toBe('5006');
  expect(one.context.data.secondDeviceCarId).toBeUndefined();
  const outcomes = (run: InProcessRun) => Object.fromEntries(run.records.map((r) => [r.key, `${r.status}${r.reason ? `: ${r.reason}` : ''}`]));
  expect(outcomes(two)).toEqual(outcomes(one));
  // Which device each run's DEV-DISSOCIATE (lane: second) and DEV-CAR-ASSOCIATE (the first lane) acted on.
  const devicesOf = (run: InProcessRun, key: string) => [
    ...new Set(run.records.find((r) => r.key === key)!.exchanges.flatMap((e) => /\/devices\/([^/?]+)/.exec(e.url)?.[1] ?? [])),
  ];
  expect(devicesOf(two, 'DEV-DISSOCIATE')).toEqual([two.context.data.secondDeviceForCarId]);
  expect(devicesOf(one, 'DEV-DISSOCIATE')).toEqual([one.context.data.deviceForCarId]);
  expect(devicesOf(two, 'DEV-CAR-ASSOCIATE')).toEqual([two.context.data.deviceForCarId]);
});
