// The device lifecycle on the user's own devices and cars: association by car, dissociation, the
// conflicts (409) of a device already or not associated, two writes sent together, and a car that is
// not one (400/404). Each check arranges the state it needs (devices.ts withDevice), so runs repeat.
import {
  type ApiResponse,
  type CheckContext,
  deviceCars,
  expectError,
  expectNoBody,
  expectObjects,
  expectStatus,
  fail,
  isSuiteCreatedCar,
  NotRun,
  show,
  statusMatches,
  together,
  unknownIdLike,
  validCarBody,
} from '../check-api';
import { associate, carDeviceId, dissociate, expectSucceeded, listedDeviceId, withDevice, withFreeDeviceAndCar, ASSOCIATE_CAR, ASSOCIATE_PIN } from './devices';
import { documented, type Item, route } from './write-checks';

/**
 * The device lifecycle as the spec states it: associating a free device with a car succeeds and the
 * car's deviceId is then the device's serial; dissociating it succeeds and the car's deviceId is null
 * (vehicle-data-service-v3.md § Car record, deviceId; § Endpoints, Devices). Read in the user's car list.
 */
export async function coreDeviceCar(ctx: CheckContext): Promise<void> {
  const device = ctx.data('deviceForCarId');
  await withFreeDeviceAndCar(ctx, async () => {
    expectSucceeded(await associate(ctx), 'associating a free device with a car without one');
    const associated = await listedDeviceId(ctx);
    if (associated !== device)
      fail({ expected: `the car's deviceId is the serial number of the associated device, ${show(device)}`, actual: show(associated), pointer: '/deviceId' });
    expectSucceeded(await dissociate(ctx), 'dissociating the device from its car');
    const dissociated = await listedDeviceId(ctx);
    if (dissociated !== null)
      fail({ expected: "the car's deviceId is null once it has no associated device", actual: show(dissociated), pointer: '/deviceId' });
  });
}

export async function deviceCarAssociate(ctx: CheckContext): Promise<void> {
  await withDevice(ctx, false, async () => {
    const res = await associate(ctx);
    expectStatus(res, 204);
    expectNoBody(res);
    const deviceId = await carDeviceId(ctx);
    if (deviceId !== ctx.data('deviceForCarId')) {
      fail({ expected: `the car's deviceId is the device's serial ${show(ctx.data('deviceForCarId'))}`, actual: show(deviceId), pointer: '/deviceId' });
    }
  });
}

export async function deviceCarAssociateAgain(ctx: CheckContext): Promise<void> {
  await withDevice(ctx, true, async () => {
    expectError(await associate(ctx), documented(ctx));
  });
}

/**
 * Sends one write twice at once: exactly one may succeed, and the other must get the requirement's
 * documented error (a server that checks and then writes in two steps lets both through).
 */
async function exactlyOneOfTwo(ctx: CheckContext, send: () => Promise<ApiResponse>, what: { expected: string; twice: string }): Promise<void> {
  const answers = await Promise.all([send(), send()]);
  const succeeded = answers.filter((res) => statusMatches(res.status, '2xx'));
  if (succeeded.length !== 1) {
    fail({
      expected: what.expected,
      actual: `statuses ${answers.map((res) => res.status).join(' and ')}${succeeded.length === 2 ? `: both succeeded, the device was ${what.twice}` : ''}`,
      exchange: (succeeded[1] ?? answers[1]).exchange,
    });
  }
  expectError(
    answers.find((res) => res !== succeeded[0])!,
    documented(ctx),
  );
}

/**
 * Two associations of one free device with one car, sent together (as two clients, or one that
 * retries, send them): exactly one succeeds and the other finds the device already associated (409,
 * v3-profile.md § Errors, Devices), and the car's deviceId is then the device. A server that checks
 * "already associated?" and writes the link as two steps lets both through. The exact success status
 * is DEV-CAR-ASSOCIATE's.
 */
export async function deviceCarAssociateRace(ctx: CheckContext): Promise<void> {
  const device = ctx.data('deviceForCarId');
  await withDevice(ctx, false, async () => {
    await exactlyOneOfTwo(ctx, () => associate(ctx), {
      expected: 'of two associations of one free device with one car sent together, exactly one succeeds; the other finds the device already associated (409)',
      twice: 'associated twice',
    });
    const deviceId = await carDeviceId(ctx);
    if (deviceId !== device)
      fail({ expected: `after the two associations, the car's deviceId is the device's serial ${show(device)}`, actual: show(deviceId), pointer: '/deviceId' });
  });
}

/**
 * Two dissociations of one associated device sent together: exactly one succeeds and the other finds
 * the device no longer associated (409, v3-profile.md § Errors, Devices), and the car's deviceId is
 * then null. A server that checks "associated?" and clears the link as two steps lets both through.
 * The exact success status is DEV-DISSOCIATE's.
 */
export async function deviceDissociateRace(ctx: CheckContext): Promise<void> {
  await withDevice(ctx, true, async () => {
    await exactlyOneOfTwo(ctx, () => dissociate(ctx), {
      expected: 'of two dissociations of one associated device sent together, exactly one succeeds; the other finds the device not associated (409)',
      twice: 'dissociated twice',
    });
    const deviceId = await carDeviceId(ctx);
    if (deviceId !== null) fail({ expected: "after the two dissociations, the car's deviceId is null", actual: show(deviceId), pointer: '/deviceId' });
  });
}

/**
 * "Associate a device that is already associated: 409" (v3-profile.md § Errors, Devices), the second
 * association naming another car: data.deviceForCarId on data.deviceCarId is associated with a second
 * car of the user that has no device, and is refused with 409; the device stays on its car. The second
 * car is one the suite created (never another of the user's own cars): one listed without a device,
 * else one created now. Nothing else is wrong with the request (the car is the user's and free, the
 * device the user's), so no order of checks the documents leave open decides the answer. A wrongful
 * move is undone at once.
 */
export async function deviceAssociatedOtherCar(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('deviceForCarId');
  // The second car is found (or created) while the device is put on its car: neither touches the other.
  let otherCar = '';
  await withDevice(
    ctx,
    true,
    async () => {
      const res = await ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { carId: otherCar } });
      await expectRefusedAndKept(ctx, res, device, { asked: `associated with another car ${otherCar} of the user`, refused: 'association' }, () =>
        dissociate(ctx).catch(() => undefined),
      );
    },
    async () => (otherCar = await spareCar(ctx)),
  );
}

/**
 * A second association of `device`, already on data.deviceCarId: refused with the requirement's
 * documented error (a wrongful success is undone by `undo`, then failed), and the device stays on the car.
 */
async function expectRefusedAndKept(
  ctx: CheckContext,
  res: ApiResponse,
  device: string,
  what: { asked: string; refused: string },
  undo?: () => Promise<unknown>,
): Promise<void> {
  const car = ctx.data('deviceCarId');
  if (statusMatches(res.status, '2xx')) {
    await undo?.();
    fail({
      expected: `device ${device}, already on car ${car}, refused when ${what.asked}: 409`,
      actual: `status ${res.status}: the device was associated again`,
      exchange: res.exchange,
    });
  }
  expectError(res, documented(ctx));
  const deviceId = await carDeviceId(ctx);
  if (deviceId !== device)
    fail({
      expected: `after the refused ${what.refused}, the device stays on car ${car}: its deviceId ${show(device)}`,
      actual: show(deviceId),
      pointer: '/deviceId',
    });
}

/**
 * A car of the primary user without a device, other than data.deviceCarId, that the suite created: one
 * listed (created by this run or an earlier one), else one created now (a created car has none).
 * Not run when there is none and creating one does not succeed.
 */
async function spareCar(ctx: CheckContext): Promise<string> {
  // Never a car of the device checks (either pair's: they associate devices with it meanwhile).
  ctx.data('deviceCarId'); // not run without one
  const theirs = deviceCars(ctx.run.data);
  const res = await ctx.call(route(ctx, 'GET /users/{userId}/cars'));
  expectStatus(res, 200, "reading the user's cars");
  const spare = expectObjects(res, 'cars').find((c) => isSuiteCreatedCar(c) && c.deviceId === null && !theirs.includes(String(c.id)));
  if (spare) return String(spare.id);
  const created = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body: validCarBody(ctx.now()) });
  const id = statusMatches(created.status, '2xx') ? (created.json as Item | undefined)?.id : undefined;
  if (typeof id !== 'number' && typeof id !== 'string') {
    throw new NotRun(
      `needs a second car of the user without a device (one the suite created): creating one answered ${created.status}${id === undefined ? '' : ' without an id'} (CAR-CREATE judges car creation)`,
    );
  }
  return String(id);
}

/**
 * "Associate a device that is already associated: 409" (v3-profile.md § Errors, Devices), the second
 * association by pin: data.freeDeviceId is put on data.deviceCarId, then associated with the user by
 * its right pin, and refused with 409; it stays on the car. A right pin on a device that is the user's
 * leaves only the conflict (a wrong pin would leave 400 or 409 to an order the documents do not
 * state), and counts as no failed attempt. Runs after the run's pin association of the device
 * (catalogue order): a server may keep a device's link to its user once it was on their car
 * (dissociation is "from its car": variant dissociate-keeps-user-link), and the pin association needs
 * the device never associated, while this check needs only a device of the user that can go on their
 * car. A wrongful link is undone at once by the dissociation that takes the device off the car afterwards.
 */
export async function deviceAssociatedByPin(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('freeDeviceId');
  const pin = ctx.data('devicePin');
  const car = ctx.data('deviceCarId');
  // data.freeDeviceId is freed beside data.deviceForCarId, where dissociation undoes a user association (204 or 409: both fine).
  await withFreeDeviceAndCar(
    ctx,
    async () => {
      const put = await ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { deviceId: device } });
      if (!statusMatches(put.status, '2xx')) {
        await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
        throw new NotRun(
          `to arrange the check, data.freeDeviceId ${device} is associated with car ${car}: that answered ${put.status} ` +
            "(the device was associated with the user by its pin before: this server may not put a device associated with its user on the user's car); " +
            'DEV-CAR-ASSOCIATE judges association by car',
        );
      }
      try {
        const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin } });
        await expectRefusedAndKept(ctx, res, device, { asked: 'associated with the user by its pin', refused: 'pin association' });
      } finally {
        await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
      }
    },
    () => dissociate(ctx, 'freeDeviceId'),
  );
}

export async function deviceDissociate(ctx: CheckContext): Promise<void> {
  await withDevice(ctx, true, async () => {
    const res = await dissociate(ctx);
    expectStatus(res, 204);
    expectNoBody(res);
    const deviceId = await carDeviceId(ctx);
    if (deviceId !== null) fail({ expected: "the car's deviceId is null after dissociation", actual: show(deviceId), pointer: '/deviceId' });
  });
}

export async function deviceDissociateAgain(ctx: CheckContext): Promise<void> {
  await withDevice(ctx, false, async () => {
    expectError(await dissociate(ctx), documented(ctx));
  });
}

export async function deviceBadCar(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const carId = ctx.data('deviceCarId');
  await withDevice(ctx, false, async () => {
    // Both refused, neither changes anything: they go together, judged in turn.
    const [malformed, unknown] = await together([
      ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { carId: 'not-a-car-id' } }),
      ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { carId: unknownIdLike(carId) } }),
    ]);
    expectError(malformed, { status: 400, type: 'PARAMETERS_ERROR' });
    expectError(unknown, { status: [400, 404], type: 'PARAMETERS_ERROR' });
  });
}
