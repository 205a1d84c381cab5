// Cross-user state on every write: what the primary user's device writes leave behind - their device
// on their car, a device linked to them by its pin - the second user's token can neither use nor
// undo. The catalogue names the state a requirement arranges (`left`) and the writes the second user
// tries on it (`attempts`: a device route, and for each of its parameters whether it names what was
// left or the second user's own); each is refused, and nothing changes. A write the server wrongly
// makes is undone once all are answered, before the reading that shows what changed. (The lock and
// its failure counter: DEV-PIN-LOCKOUT, whose wrong pins come from both users.)
import {
  type ApiResponse,
  type CheckContext,
  ConformanceFailure,
  type ErrorExpectation,
  expectError,
  expectObjects,
  expectStatus,
  fail,
  type FailureDetails,
  NotRun,
  sameValue,
  show,
  statusMatches,
  together,
} from '../check-api';
import { carDeviceId, withDevice } from './devices';
import { documented, type Item, route } from './write-checks';
import { associateByPinOnce } from './pin-attempts';

/** What the primary user's writes leave: their device on their car (association by car), or a device linked to them by its pin. */
type Left = 'device-on-car' | 'device-of-user';

/** Whose value fills a route parameter: what was left, or the second user's own (their device, their car without one). */
type Source = 'left' | 'theirs';

/** One write the second user's token tries (requirements.yaml `attempts`). */
interface Attempt {
  route: string;
  deviceId?: Source;
  carId?: Source;
  pin?: 'left';
  /** Where the documents allow another refusal than the requirement's `expect`. */
  expect?: ErrorExpectation;
}

/** What was left, as ids: its device (and that device's pin), its car. */
interface LeftIds {
  device: string;
  pin?: string;
  car?: string;
}

/** The second user's cars, read with their own token. */
async function theirCars(ctx: CheckContext): Promise<Item[]> {
  const res = await ctx.call(route(ctx, 'GET /users/{userId}/cars'), { ids: { userId: ctx.data('otherUserId') }, token: 'otherUser' });
  expectStatus(res, '2xx', 'the second user reading their own cars');
  return expectObjects(res, 'cars');
}

/**
 * The second user's token tries each of the requirement's writes on what the primary user's writes
 * left (requirements.yaml `left`): each refused with the documented answer (`expect`, or the attempt's
 * own), and afterwards nothing has changed: the second user's cars keep their devices, and a device
 * left on the primary user's car is still there.
 */
export async function deviceStateCrossUser(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.token('otherUser');
  ctx.data('otherUserId');
  const left = ctx.param<Left>('left');
  const attempts = ctx.param<Attempt[]>('attempts');
  for (const a of attempts) {
    if (!ctx.requirement.routes.includes(a.route))
      throw new Error(`requirements.yaml: ${ctx.requirement.id} tries ${a.route}, which its "where" does not judge`);
  }
  let before: Item[] = [];
  if (left === 'device-on-car') {
    await withDevice(
      ctx,
      true,
      () => tryAll(ctx, attempts, before, { device: ctx.data('deviceForCarId'), car: ctx.data('deviceCarId') }),
      async () => (before = await theirCars(ctx)),
    );
    return;
  }
  before = await theirCars(ctx);
  let tried = false;
  const { res, madeHere } = await associateByPinOnce(ctx, async () => {
    tried = true;
    await tryAll(ctx, attempts, before, { device: ctx.data('freeDeviceId'), pin: ctx.data('devicePin') });
  });
  if (!tried) {
    throw new NotRun(
      madeHere
        ? `the run's pin association of data.freeDeviceId answered ${res.status}: no link for the second user to try (CORE-DEVICE-PIN judges it)`
        : "the run's one pin association of data.freeDeviceId was made by an earlier check, and its link is gone (run this check before CORE-DEVICE-PIN and DEV-PIN-ASSOCIATE: catalogue order)",
    );
  }
}

/**
 * The attempts, sent together with the second user's token (on a conforming server none changes
 * anything, so no answer depends on another's), each judged; the wrongful writes undone; then what
 * was left, and the second user's cars, read again.
 */
async function tryAll(ctx: CheckContext, attempts: Attempt[], before: Item[], left: LeftIds): Promise<void> {
  // Their car without a device (else the one the run's data names) and their device, where it is.
  const theirCar = before.find((c) => c.deviceId === null) ?? before.find((c) => String(c.id) === ctx.run.data.otherCarId);
  const theirDevice = ctx.run.data.otherDeviceId;
  const homeOfTheirDevice = before.find((c) => c.deviceId === theirDevice);
  const fill = (a: Attempt): Record<string, string> | string => {
    const ids: Record<string, string> = {};
    if (a.deviceId) {
      const device = a.deviceId === 'left' ? left.device : theirDevice;
      if (!device) return 'data.otherDeviceId (a device of the second user)';
      ids.deviceId = device;
    }
    if (a.carId) {
      const car = a.carId === 'left' ? left.car : theirCar && String(theirCar.id);
      if (!car) return a.carId === 'left' ? 'a car of the primary user holding the device' : 'a car of the second user (data.otherCarId)';
      ids.carId = car;
    }
    if (a.pin) {
      if (!left.pin) return "the left device's pin";
      ids.pin = left.pin;
    }
    return ids;
  };
  const sendable = attempts.map((a) => ({ a, ids: fill(a) }));
  const unsent = sendable.filter((s) => typeof s.ids === 'string').map((s) => `${s.a.route} (needs ${s.ids as string})`);
  const sent = sendable.filter((s): s is { a: Attempt; ids: Record<string, string> } => typeof s.ids !== 'string');
  if (sent.length === 0) throw new NotRun(`no write of the second user could be sent: ${unsent.join('; ')}`);
  if (unsent.length) ctx.warn(`not sent: ${unsent.join('; ')}`);
  const answers = await together(sent.map((s) => ctx.call(route(ctx, s.a.route), { ids: s.ids, token: 'otherUser' })));
  const problems: FailureDetails[] = [];
  const undo = new Set<() => Promise<unknown>>();
  answers.forEach((res: ApiResponse, i) => {
    const { a, ids } = sent[i];
    const what = `the second user's token: ${a.route.replace(/\{(\w+)\}/g, (_m, p: string) => ids[p] ?? `{${p}}`)}`;
    try {
      expectError(res, a.expect ?? documented(ctx));
    } catch (err) {
      if (!(err instanceof ConformanceFailure)) throw err;
      problems.push({ ...err.details, expected: `${what}: expected ${err.details.expected}` });
      if (statusMatches(res.status, '2xx') && ids.deviceId) undo.add(() => giveBack(ctx, ids.deviceId, homeOfTheirDevice));
    }
  });
  for (const u of undo) await u();
  // Nothing changed: their cars keep their devices; the device left on the primary user's car is still there.
  const [after, onCar] = await together([theirCars(ctx), left.car ? carDeviceId(ctx) : Promise.resolve(undefined)]);
  for (const car of before) {
    const now = after.find((c) => sameValue(c.id, car.id));
    if (now && now.deviceId !== car.deviceId)
      problems.push({ expected: `afterwards: the second user's car ${show(car.id)} keeps its deviceId ${show(car.deviceId)}`, actual: show(now.deviceId) });
  }
  if (left.car && onCar !== left.device)
    problems.push({ expected: `afterwards: device ${left.device} still on the primary user's car ${left.car}`, actual: `deviceId ${show(onCar)}` });
  if (problems.length) {
    fail({
      expected: "what the primary user's writes left is neither used nor undone by the second user: each of their writes refused, and nothing changed",
      actual: problems.map((p) => `\n          ${p.expected}, actual ${p.actual}`).join(''),
      exchange: problems.find((p) => p.exchange)?.exchange,
    });
  }
}

/**
 * A device the second user's write wrongly moved is freed with their token (it is theirs now, or was),
 * and their own device put back on its car; the primary user's device is then free, as the next
 * device check frees it anyway.
 */
async function giveBack(ctx: CheckContext, device: string, homeOfTheirDevice: Item | undefined): Promise<void> {
  const dissociate = route(ctx, 'POST /devices/{deviceId}/dissociate');
  await ctx.call(dissociate, { ids: { deviceId: device }, token: 'otherUser' }).catch(() => undefined);
  if (device === ctx.run.data.otherDeviceId && homeOfTheirDevice) {
    await ctx
      .call(route(ctx, 'POST /devices/{deviceId}/associate?carId={carId}'), {
        ids: { deviceId: device, carId: String(homeOfTheirDevice.id) },
        token: 'otherUser',
      })
      .catch(() => undefined);
  }
}
