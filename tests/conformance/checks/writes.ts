// Write routes, run only when the target allows writes: car creation, and the device lifecycle.
// Each check arranges the state it needs and puts the target back as it found it, so runs repeat.
import { expectContract, expectError, expectNoBody, expectObject, expectObjects, expectStatus, sameValue } from '../../../harness/assertions';
import { validCarBody, type CheckContext } from '../../../harness/check-context';
import { expandDeep, rawBody, unknownIdLike } from '../../../harness/templates';
import type { ApiResponse } from '../../../harness/api';
import { readRunState, writeRunState } from '../../../harness/run-state';
import { fail, NotRun, show } from '../../../harness/outcome';

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
  const created = expectEchoed(res, body);
  if (created.timezone !== 'Europe/Paris') {
    fail({ expected: 'timezone "Europe/Paris" (the default when the body gives none)', actual: show(created.timezone), pointer: '/timezone', exchange: res.exchange });
  }
  if (String(created.userId) !== userId) fail({ expected: `userId ${userId}`, actual: show(created.userId), pointer: '/userId', exchange: res.exchange });
  for (const listRoute of ['GET /users/me/cars', 'GET /users/{userId}/cars']) {
    const list = await ctx.call(route(ctx, listRoute));
    expectStatus(list, 200);
    if (!expectObjects(list, 'cars').some((c) => sameValue(c.id, created.id))) {
      fail({ expected: `the created car ${show(created.id)} in ${listRoute}`, actual: 'not listed', exchange: list.exchange });
    }
  }
  const single = await ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: String(created.id) } });
  expectStatus(single, 200, 'the created car at GET /cars/{id}');
  const car = expectObject(single, 'the created car');
  if (car.make !== body.make || car.model !== body.model) {
    fail({ expected: `GET /cars/${show(created.id)} with make ${show(body.make)} and model ${show(body.model)}`, actual: `make ${show(car.make)}, model ${show(car.model)}`, exchange: single.exchange });
  }
}

/** Every optional field of the creation body, answered back as sent. */
export async function carCreateFull(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const body = ctx.param<Record<string, unknown>>('body');
  const res = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body });
  expectStatus(res, 201, 'the documented success of car creation');
  expectContract(res, 'createdCar');
  expectEchoed(res, body);
}

/** The created car answers every field of the body as it was sent. */
function expectEchoed(res: ApiResponse, body: Record<string, unknown>): Item {
  const created = expectObject(res, 'the created car');
  for (const [field, value] of Object.entries(body)) {
    if (!sameValue(created[field], value)) fail({ expected: `${field} ${show(value)} as sent`, actual: show(created[field]), pointer: `/${field}`, exchange: res.exchange });
  }
  return created;
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
  return expectObject(res, 'the car record').deviceId;
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

export async function deviceForbidden(ctx: CheckContext): Promise<void> {
  ctx.token('otherUser'); // before anything changes: not run without a second user
  await withDevice(ctx, true, async () => {
    const res = await ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ctx.data('deviceForCarId') }, token: 'otherUser' });
    expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR' });
    const deviceId = await carDeviceId(ctx);
    if (deviceId !== ctx.data('deviceForCarId')) {
      fail({ expected: `after the refused dissociation, the car's deviceId is still ${show(ctx.data('deviceForCarId'))}`, actual: show(deviceId), pointer: '/deviceId' });
    }
  });
}

/** A pin of the same length that is not the device's. */
function wrongPin(pin: string): string {
  return [...pin].map((c) => (/\d/.test(c) ? String((Number(c) + 1) % 10) : c)).join('');
}

/** Why a device may refuse before this run failed three attempts, on a server that was not reset. */
function lockedBefore(): NotRun {
  return new NotRun(
    'data.lockableDeviceId refuses pin association (403) before this run spent three attempts on it: an earlier run may have locked it, ' +
      'and nothing documented unlocks a device. Give a device that was never locked as data.lockableDeviceId',
  );
}

export async function devicePinAssociate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('freeDeviceId');
  const pin = ctx.data('devicePin');
  await dissociate(ctx, 'freeDeviceId'); // frees it where dissociation undoes a user association (204 or 409: both fine)
  try {
    const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin } });
    // No documented request undoes a user association: on a server that keeps its state between
    // runs, the device an earlier run associated stays associated (409 "already associated").
    if (res.status === 409 && !ctx.run.freshState) {
      throw new NotRun('data.freeDeviceId is already associated (an earlier run associated it with the user, and no documented request undoes a user association): give a free device as data.freeDeviceId');
    }
    expectStatus(res, 204);
    expectNoBody(res);
  } finally {
    await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
  }
}

// ---------------------------------------------------------------- pin attempts (lockableDeviceId only)
//
// Failed pin attempts count towards the three-attempt lock and nothing documented resets them, so
// every attempt a run makes goes to data.lockableDeviceId, the device the target file offers for
// it, and is recorded (harness/run-state.ts): a malformed pin (which may or may not count: the
// documents do not say), a wrong pin, two more wrong pins, then the right pin.

type PinKind = 'malformed' | 'wrong' | 'right';
interface PinAttempt { kind: PinKind; status: number }
const PIN_ATTEMPTS = 'pin-attempts';
const MALFORMED_PIN = 'not-a-pin';

async function attemptPin(ctx: CheckContext, kind: PinKind): Promise<ApiResponse> {
  const device = ctx.data('lockableDeviceId');
  const knownPin = ctx.run.data.lockableDevicePin;
  const pin = kind === 'malformed' ? MALFORMED_PIN : kind === 'right' ? ctx.data('lockableDevicePin') : wrongPin(knownPin ?? ctx.run.data.devicePin ?? '0000');
  const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin } });
  writeRunState(ctx.run, PIN_ATTEMPTS, [...pinAttempts(ctx), { kind, status: res.status }]);
  return res;
}

function pinAttempts(ctx: CheckContext): PinAttempt[] {
  return readRunState<PinAttempt[]>(ctx.run, PIN_ATTEMPTS, []);
}

/** Failed attempts so far this run: wrong pins for sure, malformed ones perhaps. */
function failuresSoFar(ctx: CheckContext): { certain: number; possible: number } {
  const refused = pinAttempts(ctx).filter((a) => a.status === 400);
  const certain = refused.filter((a) => a.kind === 'wrong').length;
  return { certain, possible: certain + refused.filter((a) => a.kind === 'malformed').length };
}

/**
 * A 403 before this run failed three attempts: on a server reset before the run, the device locked
 * too early (a failure); on one that keeps its state, an earlier run may have locked it (not run).
 */
function refusedBeforeThreeFailures(ctx: CheckContext, res: ApiResponse, failuresBefore: number): boolean {
  if (res.status !== 403 || failuresBefore >= 3) return false;
  if (!ctx.run.freshState) throw lockedBefore();
  return true;
}

/** One attempt that must be refused as a bad pin (400), the device not being locked yet. */
async function expectBadPin(ctx: CheckContext, kind: 'malformed' | 'wrong'): Promise<void> {
  ctx.requireWrites();
  const before = failuresSoFar(ctx).possible;
  const res = await attemptPin(ctx, kind);
  refusedBeforeThreeFailures(ctx, res, before);
  expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
}

export async function devicePinMalformed(ctx: CheckContext): Promise<void> {
  await expectBadPin(ctx, 'malformed');
}

export async function devicePinWrong(ctx: CheckContext): Promise<void> {
  await expectBadPin(ctx, 'wrong');
}

/** Wrong pins until three have failed, each refused with 400; then even the right pin is 403. */
export async function devicePinLockout(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.data('lockableDeviceId');
  while (failuresSoFar(ctx).certain < 3) {
    const before = failuresSoFar(ctx);
    const res = await attemptPin(ctx, 'wrong');
    if (res.status === 403) {
      // Locked once three attempts failed, counting the malformed pin (the documents leave that open).
      if (before.possible >= 3) break;
      refusedBeforeThreeFailures(ctx, res, before.possible);
      fail({
        expected: `a wrong pin is 400 while fewer than three attempts have failed (${before.certain} wrong${before.possible > before.certain ? ' and 1 malformed' : ''} so far)`,
        actual: `status 403: locked too early`,
        exchange: res.exchange,
      });
    }
    expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
  }
  const known = ctx.run.data.lockableDevicePin !== undefined;
  if (!known) ctx.warn('data.lockableDevicePin is not given: the locked device was tried with a wrong pin, not its right one');
  const locked = await attemptPin(ctx, known ? 'right' : 'wrong');
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
