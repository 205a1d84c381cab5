// Write routes, run only when the target allows writes: car creation, and the device lifecycle.
// Each check arranges the state it needs and puts the target back as it found it, so runs repeat.
import { expectArray, expectContract, expectError, expectJson, expectNoBody, expectStatus, sameValue } from '../../../harness/assertions';
import { validCarBody, type CheckContext } from '../../../harness/check-context';
import { expandDeep, rawBody, unknownIdLike } from '../../../harness/templates';
import { fail, show } from '../../../harness/verdict';

type Item = Record<string, unknown>;
const route = (ctx: CheckContext, id: string) => ctx.catalogue.route(id);

// ---------------------------------------------------------------- car creation

export async function carCreate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const userId = ctx.data('userId');
  const body = validCarBody();
  const res = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body });
  expectStatus(res, 201, 'the documented success of car creation');
  expectContract(res, 'createdCar');
  const created = expectJson(res) as Item;
  for (const field of ['make', 'model', 'name'] as const) {
    if (created[field] !== body[field]) fail({ expected: `${field} ${show(body[field])} as sent`, actual: show(created[field]), pointer: `/${field}`, exchange: res.exchange });
  }
  if (created.timezone !== 'Europe/Paris') {
    fail({ expected: 'timezone "Europe/Paris" (the default when the body gives none)', actual: show(created.timezone), pointer: '/timezone', exchange: res.exchange });
  }
  if (String(created.userId) !== userId) fail({ expected: `userId ${userId}`, actual: show(created.userId), pointer: '/userId', exchange: res.exchange });
  for (const listRoute of ['GET /users/me/cars', 'GET /users/{userId}/cars']) {
    const list = await ctx.call(route(ctx, listRoute));
    expectStatus(list, 200);
    if (!(expectArray(list, 'cars') as Item[]).some((c) => sameValue(c.id, created.id))) {
      fail({ expected: `the created car ${show(created.id)} in ${listRoute}`, actual: 'not listed', exchange: list.exchange });
    }
  }
  const single = await ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: String(created.id) } });
  expectStatus(single, 200, 'the created car at GET /cars/{id}');
  const car = expectJson(single) as Item;
  if (car.make !== body.make || car.model !== body.model) {
    fail({ expected: `GET /cars/${show(created.id)} with make ${show(body.make)} and model ${show(body.model)}`, actual: `make ${show(car.make)}, model ${show(car.model)}`, exchange: single.exchange });
  }
}

export async function carCreateInvalid(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const bodies = ctx.param<Record<string, unknown>>('bodies');
  const problems: string[] = [];
  for (const [rule, template] of Object.entries(bodies)) {
    const raw = rawBody(template);
    const res = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), raw !== undefined ? { rawBody: raw } : { body: expandDeep(template) });
    try {
      expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
    } catch (err) {
      problems.push(`${rule}: ${(err as Error).message.split('\n').slice(0, 2).join('; ')}`);
    }
  }
  if (problems.length) {
    fail({ expected: '400 PARAMETERS_ERROR for every body that breaks a creation rule', actual: `${problems.length} of ${Object.keys(bodies).length} accepted or answered otherwise:\n          ${problems.join('\n          ')}` });
  }
}

// ---------------------------------------------------------------- devices

const ASSOCIATE_CAR = 'POST /devices/{deviceId}/associate?carId={carId}';
const ASSOCIATE_PIN = 'POST /devices/{deviceId}/associate?pin={pin}';
const DISSOCIATE = 'POST /devices/{deviceId}/dissociate';

function associate(ctx: CheckContext) {
  return ctx.call(route(ctx, ASSOCIATE_CAR));
}
function dissociate(ctx: CheckContext, deviceKey: 'deviceForCarId' | 'freeDeviceId' = 'deviceForCarId') {
  return ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ctx.data(deviceKey) } });
}

async function carDeviceId(ctx: CheckContext): Promise<unknown> {
  const res = await ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: ctx.data('deviceCarId') } });
  expectStatus(res, 200, 'reading the associated car');
  return (expectJson(res) as Item).deviceId;
}

/** Runs `act` on a device in a known state, and always leaves the device free afterwards. */
async function withDevice(ctx: CheckContext, associated: boolean, act: () => Promise<void>): Promise<void> {
  ctx.requireWrites();
  await dissociate(ctx); // free it, whatever an interrupted run left (204 or 409 are both fine here)
  if (associated) {
    const res = await associate(ctx);
    if (res.status !== 204) {
      fail({ expected: 'to arrange the check: associating a free device with a car without one answers 204', actual: `status ${res.status}`, exchange: res.exchange });
    }
  }
  try {
    await act();
  } finally {
    await dissociate(ctx).catch(() => undefined);
  }
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
    expectError(await associate(ctx), { status: 409, type: 'PARAMETERS_ERROR' });
  });
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
    expectError(await dissociate(ctx), { status: 409, type: 'PARAMETERS_ERROR' });
  });
}

/** A pin of the same length that is not the device's. */
function wrongPin(pin: string): string {
  return [...pin].map((c) => (/\d/.test(c) ? String((Number(c) + 1) % 10) : c)).join('');
}

export async function devicePinAssociate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('freeDeviceId');
  await dissociate(ctx, 'freeDeviceId');
  try {
    const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin: ctx.data('devicePin') } });
    expectStatus(res, 204);
    expectNoBody(res);
  } finally {
    await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
  }
}

export async function devicePinWrong(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('freeDeviceId');
  await dissociate(ctx, 'freeDeviceId');
  const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin: wrongPin(ctx.data('devicePin')) } });
  expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
}

/** Three failed attempts, then refusal: uses a device the target file says may be locked. */
export async function devicePinLockout(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('lockableDeviceId');
  const pin = ctx.run.data.devicePin ?? '0000';
  for (let attempt = 1; attempt <= 3; attempt++) {
    const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin: wrongPin(pin) } });
    if (res.status === 403) {
      fail({ expected: `attempt ${attempt} with a wrong pin is 400 (only after three failures is the device locked)`, actual: 'status 403', exchange: res.exchange });
    }
    expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
  }
  const locked = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin: wrongPin(pin) } });
  expectError(locked, { status: 403, type: 'AUTHORIZATION_ERROR' });
}

export async function deviceBadCar(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const carId = ctx.data('deviceCarId');
  await withDevice(ctx, false, async () => {
    const malformed = await ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { carId: 'not-a-car-id' } });
    expectError(malformed, { status: 400, type: 'PARAMETERS_ERROR' });
    const unknown = await ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { carId: unknownIdLike(carId) } });
    expectError(unknown, { status: [400, 404], type: 'PARAMETERS_ERROR' });
  });
}
