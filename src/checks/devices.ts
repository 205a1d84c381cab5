// The device routes' shared arrangements: which route is which, and the state a device check starts
// from. The device checks free data.deviceForCarId first and leave it as their last step left it: the
// next one frees it anyway, and the run frees it once they are done (setup/device-release.ts). In a
// run with a second device pair (setup/device-pair.ts), the checks marked `lane: second` get that
// pair's device and car for deviceForCarId and deviceCarId, and name those keys (ctx.dataName).
import {
  type ApiResponse,
  type CheckContext,
  expectError,
  expectObject,
  expectObjects,
  expectStatus,
  fail,
  NotRun,
  show,
  statusMatches,
  together,
} from '../check-api';
import { route } from './write-checks';

export const ASSOCIATE_CAR = 'POST /devices/{deviceId}/associate?carId={carId}';
export const ASSOCIATE_PIN = 'POST /devices/{deviceId}/associate?pin={pin}';
export const DISSOCIATE = 'POST /devices/{deviceId}/dissociate';

export function associate(ctx: CheckContext) {
  return ctx.call(route(ctx, ASSOCIATE_CAR));
}
export function dissociate(ctx: CheckContext, deviceKey: 'deviceForCarId' | 'freeDeviceId' = 'deviceForCarId') {
  return ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ctx.data(deviceKey) } });
}

/** The deviceId of data.deviceCarId as the user's car list shows it (the spec's one detailed answer). */
export async function listedDeviceId(ctx: CheckContext): Promise<unknown> {
  const res = await ctx.call(route(ctx, 'GET /users/{userId}/cars'));
  expectStatus(res, '2xx', "reading the user's cars");
  const carId = ctx.data('deviceCarId');
  const car = expectObjects(res, 'cars').find((c) => String(c.id) === carId);
  if (!car) fail({ expected: `car ${carId} (${ctx.dataName('deviceCarId')}) among the user's cars`, actual: 'not listed', exchange: res.exchange });
  return car.deviceId;
}

/** An answer that is not a success: when it is an error, its body must be the spec's before anything else. */
export function expectSucceeded(res: ApiResponse, what: string): void {
  if (res.status >= 400) expectError(res, { status: res.status, tip: 'any' });
  expectStatus(res, '2xx', what);
}

export async function carDeviceId(ctx: CheckContext): Promise<unknown> {
  const res = await ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: ctx.data('deviceCarId') } });
  expectStatus(res, 200, 'reading the associated car');
  return expectObject(res, 'the car record').deviceId;
}

/**
 * Runs `act` on data.deviceForCarId in a known state: freed first (whatever an earlier check or an
 * interrupted run left), then associated with data.deviceCarId if asked. The device is left as `act`
 * leaves it: the next device check frees it first, and the run frees it after them (file header).
 */
export async function withDevice(ctx: CheckContext, associated: boolean, act: () => Promise<void>, alongside?: () => Promise<unknown>): Promise<void> {
  ctx.requireWrites();
  // Free it, whatever an earlier check or an interrupted run left (204 or 409 are both fine here);
  // `alongside` is what the check reads or arranges meanwhile, touching neither the device nor its car.
  await together([dissociate(ctx), alongside?.()]);
  if (associated) {
    const res = await associate(ctx);
    if (res.status !== 204) {
      fail({
        expected: 'to arrange the check: associating a free device with a car without one answers 204',
        actual: `status ${res.status}`,
        exchange: res.exchange,
      });
    }
  }
  await act();
}

/** withDevice(free), on a car that has no device either (data.deviceCarId): else the check cannot be arranged. */
export async function withFreeDeviceAndCar(ctx: CheckContext, act: () => Promise<void>, alongside?: () => Promise<unknown>): Promise<void> {
  await withDevice(
    ctx,
    false,
    async () => {
      const before = await listedDeviceId(ctx);
      if (before !== null)
        throw new NotRun(`car ${ctx.data('deviceCarId')} (${ctx.dataName('deviceCarId')}) already has device ${show(before)}: give a car without a device`);
      await act();
    },
    alongside,
  );
}

/**
 * data.deviceForCarId on data.deviceCarId while `act` runs, for a core check: the association that
 * arranges it must succeed (any 2xx; its exact status is DEV-CAR-ASSOCIATE's), else the check is not
 * run. The device is left as `act` leaves it (withDevice).
 */
export async function withDeviceOnItsCar(ctx: CheckContext, act: () => Promise<void>): Promise<void> {
  await withFreeDeviceAndCar(ctx, async () => {
    const res = await associate(ctx);
    if (!statusMatches(res.status, '2xx')) {
      throw new NotRun(
        `to arrange the check, ${ctx.dataName('deviceForCarId')} is associated with ${ctx.dataName('deviceCarId')}: that answered ${res.status} (CORE-DEVICE-CAR judges that association)`,
      );
    }
    await act();
  });
}
