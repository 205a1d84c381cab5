// The device checks free data.deviceForCarId before arranging what they need and do not clean up
// after themselves (writes.ts): the run frees it once they are done (src/setup/device-release.ts), so
// the target is left as the run found it, the device free, whether the whole lane ran or one check of
// it. Read back from the reference after each in-process run (src/engine/in-process.ts): no car of the
// user carries the device. Without the release, DEV-CAR-ASSOCIATE alone leaves it on data.deviceCarId
// (seen failing so); the whole lane happens to end with checks that leave it free (its order is the
// catalogue's), as a selection, --last-failed or a stop after --max-failures need not.
import { expect, test } from '@playwright/test';
import { keysPattern } from '../../../src/catalogue/selection';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { loadTarget } from '../../../src/setup/target';
import { startReference, type Reference } from '../../../scripts/reference-process';

test.setTimeout(120_000);

let reference: Reference;
test.beforeAll(async () => {
  reference = await startReference();
});
test.afterAll(async () => reference?.stop());

/** The car of the user that lists the run's device, read with the run's token after it ended (none: free). */
async function carWithTheDevice(run: InProcessRun): Promise<unknown> {
  const { data, tokens } = run.context;
  const target = loadTarget(reference.targetFile);
  const res = await fetch(`${target.baseUrl}/users/${data.userId}/cars`, { headers: { authorization: `Bearer ${tokens.full}` } });
  expect(res.status).toBe(200);
  const cars = (await res.json()) as Array<{ id: unknown; deviceId: unknown }>;
  expect(cars.length).toBeGreaterThan(0);
  return cars.find((c) => c.deviceId === data.deviceForCarId)?.id;
}

for (const [what, grep] of [
  ['the device checks of the write lane', /@devices/],
  ['one check that leaves the device associated (DEV-CAR-ASSOCIATE)', new RegExp(keysPattern(['DEV-CAR-ASSOCIATE']))],
] as const) {
  test(`after ${what}, the run leaves the device free, as it found it`, async () => {
    const run = await runInProcess({ target: loadTarget(reference.targetFile), selection: { grep } });
    expect(run.certificate.counts.checks.failed, run.console).toBe(0);
    expect(run.certificate.counts.checks.passed).toBeGreaterThan(0);
    expect(await carWithTheDevice(run), `a car still carries device ${run.context.data.deviceForCarId}`).toBeUndefined();
  });
}
