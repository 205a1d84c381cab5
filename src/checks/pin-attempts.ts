// Pin association (POST /devices/{deviceId}/associate?pin=...): the run's one association of
// data.freeDeviceId by its pin, and every attempt that counts towards the three-attempt lock, all on
// data.lockableDeviceId.
import {
  type ApiResponse,
  type CheckContext,
  expectError,
  expectNoBody,
  expectStatus,
  fail,
  NotRun,
  PIN_NEAR_MISS_WORDS,
  pinNearMisses,
  readRunState,
  statusMatches,
  writeRunState,
} from '../check-api';
import { ASSOCIATE_PIN, dissociate, DISSOCIATE, expectSucceeded } from './devices';
import { route } from './write-checks';

/** A pin of the same length that is not the device's. */
function wrongPin(pin: string): string {
  return [...pin].map((c) => (/\d/.test(c) ? String((Number(c) + 1) % 10) : c)).join('');
}

/** Why a device may refuse before this run failed three attempts, on a server that was not reset. */
function lockedBefore(): NotRun {
  return new NotRun(
    'data.lockableDeviceId refuses pin association (403) before this run spent three attempts on it: an earlier run may have locked it, ' +
      'and nothing documented unlocks a device. Give a device that was never locked as data.lockableDeviceId, with its pin as data.lockableDevicePin ' +
      '(on a server that keeps its state, one for each run)',
    'data.lockableDeviceId',
  );
}

export const PIN_ASSOCIATION = 'pin-association';

/**
 * The pin device answered 409 on a server that was not reset: an earlier run associated it (a server
 * may keep that link for good: nothing documented undoes a user association). Each run on such a
 * server needs a device never associated.
 */
function usedUp(ctx: CheckContext): NotRun {
  return new NotRun(
    `data.freeDeviceId ${ctx.data('freeDeviceId')} is already associated (an earlier run associated it with the user, and no documented request undoes a user association): ` +
      'give a device never associated as data.freeDeviceId, with its pin as data.devicePin (on a server that keeps its state, one for each run)',
    'data.freeDeviceId',
  );
}

/**
 * Associates data.freeDeviceId with the user by its pin, once per run: no documented request undoes
 * a user association everywhere (a server may keep it: dissociation is "from its car"), so the
 * spec's requirement (a success) and the profile's (204, no body) judge the same answer. It comes
 * before every other association of the device in the run (catalogue order: DEV-ASSOCIATED-BY-PIN
 * after it), since on a server that keeps a device's link to its user once it was on their car, any
 * earlier association would leave the device associated for good. `whileLinked` runs while the link
 * the association made is there, before the device is freed again (what the link leaves, tried by
 * another user: device-state-cross-user.ts); it is not run when an earlier check made the association
 * (the link is gone), nor when the association did not succeed. Returns the association's answer, and
 * whether this call made it.
 */
export async function associateByPinOnce(
  ctx: CheckContext,
  whileLinked?: (res: ApiResponse) => Promise<void>,
): Promise<{ res: ApiResponse; madeHere: boolean }> {
  const done = readRunState<ApiResponse | undefined>(ctx.run, PIN_ASSOCIATION, undefined);
  if (done) {
    ctx.api.exchanges.push(done.exchange);
    ctx.warn("judged on the answer to the run's one pin association of data.freeDeviceId (made by the first check that needed it)");
    return { res: done, madeHere: false };
  }
  const device = ctx.data('freeDeviceId');
  const pin = ctx.data('devicePin');
  await dissociate(ctx, 'freeDeviceId'); // frees it where dissociation undoes a user association (204 or 409: both fine)
  try {
    // The answer as ApiClient gave it (plain JSON), kept in the run's state for every check that judges it.
    const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin } });
    writeRunState(ctx.run, PIN_ASSOCIATION, res);
    if (whileLinked && statusMatches(res.status, '2xx')) await whileLinked(res);
    return { res, madeHere: true };
  } finally {
    await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
  }
}

/** Pin association: a success (the spec: expectStatus 2xx) or 204 with no body (the profile). */
export async function devicePinAssociate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const { res } = await associateByPinOnce(ctx);
  // No documented request undoes a user association: on a server that keeps its state between
  // runs, the device an earlier run associated stays associated (409 "already associated").
  if (res.status === 409 && !ctx.run.freshState) throw usedUp(ctx);
  const wanted = ctx.param<'2xx' | 204>('expectStatus');
  if (wanted === '2xx') {
    expectSucceeded(res, 'associating a free device with the user by its pin');
    return;
  }
  expectStatus(res, 204);
  expectNoBody(res);
}

// ---------------------------------------------------------------- pin attempts (lockableDeviceId only)
//
// Failed pin attempts count towards the three-attempt lock and nothing documented resets them, so
// every attempt a run makes goes to data.lockableDeviceId, the device the target file offers for
// it, and is recorded (src/setup/run-state.ts), in catalogue order: a wrong pin, then the wrong pins
// still needed for the lock sent together (the last of them by the second user, where there is one:
// the lock is the device's, not one user's), then the right pin (refused: locked), and a malformed pin
// last. The wrong pins are the right pin's near-misses (check-api near-miss.ts), as a user mistypes it
// and an attacker guesses around it: first the pin with a leading zero (a server comparing pins as
// numbers takes it), then a digit changed, two swapped and every digit changed, together. A pin of
// another length may be malformed to a server whose pins have one length (the documents state none),
// and so, like a malformed pin (variant malformed-pin-counts), count or not: the lock is decided by
// the wrong pins of the pin's own length alone. Only one attempt of another length goes before them:
// each failure counted before the batch is one the batch needs not, and could make up for a failure
// a server lost (pin-lock-variants.test.ts); one digit more or one less would be two more.

/** wrong: surely a failed attempt (the pin's length); near: perhaps (another length); malformed; right. */
type PinKind = 'malformed' | 'wrong' | 'near' | 'right';
interface PinAttempt {
  kind: PinKind;
  status: number;
  /** Sent with the second user's token (else the primary's). */
  byOtherUser?: boolean;
}
const PIN_ATTEMPTS = 'pin-attempts';
const MALFORMED_PIN = 'not-a-pin';

/** A pin to try, and what it is (for a failure). */
interface PinToTry {
  kind: Exclude<PinKind, 'malformed' | 'right'>;
  pin: string;
  what: string;
}

/**
 * The wrong pins of the run: the first (of another length: the leading zero), then those of the pin's
 * own length, spent together. Without data.lockableDevicePin the right pin is unknown: they are
 * data.devicePin's digits shifted, of its length.
 */
function wrongPins(ctx: CheckContext): { first: PinToTry; sameLength: PinToTry[] } {
  const known = ctx.run.data.lockableDevicePin;
  if (known === undefined) {
    const wrong: PinToTry = { kind: 'wrong', pin: wrongPin(ctx.run.data.devicePin ?? '0000'), what: 'a wrong pin' };
    return { first: wrong, sameLength: [wrong, wrong, wrong] };
  }
  const misses = pinNearMisses(known);
  const zero = misses.find((m) => m.form === 'leading-zero')!;
  const sameLength: PinToTry[] = misses
    .filter((m) => m.sameLength)
    .map((m) => ({ kind: 'wrong', pin: m.value, what: `the pin with ${PIN_NEAR_MISS_WORDS[m.form]}` }));
  while (sameLength.length < 3) sameLength.push({ kind: 'wrong', pin: wrongPin(known), what: 'the pin with every digit changed' });
  return { first: { kind: 'near', pin: zero.value, what: `the pin with ${PIN_NEAR_MISS_WORDS['leading-zero']}` }, sameLength };
}

async function attemptPin(ctx: CheckContext, kind: 'malformed' | 'right' | PinToTry, byOtherUser = false): Promise<ApiResponse> {
  const device = ctx.data('lockableDeviceId');
  const pin = kind === 'malformed' ? MALFORMED_PIN : kind === 'right' ? ctx.data('lockableDevicePin') : kind.pin;
  const other = byOtherUser ? ctx.tokenIfGiven('otherUser') : undefined;
  const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin }, ...(other ? { authorization: `Bearer ${other}` } : {}) });
  const attempt: PinAttempt = { kind: typeof kind === 'string' ? kind : kind.kind, status: res.status, ...(byOtherUser ? { byOtherUser } : {}) };
  writeRunState(ctx.run, PIN_ATTEMPTS, [...pinAttempts(ctx), attempt]);
  return res;
}

function pinAttempts(ctx: CheckContext): PinAttempt[] {
  return readRunState<PinAttempt[]>(ctx.run, PIN_ATTEMPTS, []);
}

/** Failed attempts so far this run: wrong pins of the pin's length for sure, the others perhaps. */
function failuresSoFar(ctx: CheckContext): { certain: number; possible: number } {
  const refused = pinAttempts(ctx).filter((a) => a.status === 400);
  const certain = refused.filter((a) => a.kind === 'wrong').length;
  return { certain, possible: refused.filter((a) => a.kind !== 'right').length };
}

/** A wrong pin that associated the device: undone at once, and the check fails. */
async function wronglyAssociated(ctx: CheckContext, res: ApiResponse, what: string): Promise<never> {
  await ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ctx.data('lockableDeviceId') } }).catch(() => undefined);
  fail({
    expected: `${what} is a wrong pin: refused (400, or 403 once the device is locked)`,
    actual: `status ${res.status}: the device was associated`,
    exchange: res.exchange,
  });
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

/** The first wrong pin: refused as a bad pin (400), the device not being locked yet. */
export async function devicePinWrong(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const before = failuresSoFar(ctx).possible;
  const { first } = wrongPins(ctx);
  const res = await attemptPin(ctx, first);
  if (statusMatches(res.status, '2xx')) await wronglyAssociated(ctx, res, first.what);
  refusedBeforeThreeFailures(ctx, res, before);
  expectError(res, { status: 400, type: 'PARAMETERS_ERROR', why: first.what });
}

/**
 * A malformed pin, sent last: 400 PARAMETERS_ERROR. Once this run's attempts have locked the device,
 * 403 AUTHORIZATION_ERROR is right too: the decided order of checks (auth, scope, existence, access,
 * then query parameters) does not say whether the lock is an access check, so a server may refuse a
 * locked device before it reads the pin (variant pin-lock-before-format). Before three failures, a
 * 403 is a lock too early (on a server that keeps its state, an earlier run's lock: not run).
 */
export async function devicePinMalformed(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const before = failuresSoFar(ctx).possible;
  // Locked by this run: three attempts failed, or the lockout check saw the device refuse (a 403).
  const locked = before >= 3 || pinAttempts(ctx).some((a) => a.status === 403);
  const res = await attemptPin(ctx, 'malformed');
  if (res.status === 403 && locked) {
    expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR' });
    return;
  }
  refusedBeforeThreeFailures(ctx, res, before);
  expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
}

/**
 * The wrong pins still needed for three failures, sent together (as an attacker guessing pins sends
 * them), the last of them with the second user's token where there is one (an attacker with two
 * accounts): each is refused with 400 until three attempts have failed; then even the right pin is
 * 403. A server that counts failures as read-then-write loses the concurrent ones, and one that counts
 * them per user as well as per device never adds the second user's: neither locks.
 */
export async function devicePinLockout(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.data('lockableDeviceId');
  // On a server that keeps its state, the run's first attempt already met an earlier run's lock: spend no more.
  if (!ctx.run.freshState && pinAttempts(ctx).some((a) => a.status === 403)) throw lockedBefore();
  const before = failuresSoFar(ctx);
  // The wrong pins of the pin's length still needed for three sure failures (those after the ones spent),
  // the last of them by the second user where there is one.
  const spent = pinAttempts(ctx).filter((a) => a.kind === 'wrong').length;
  const pins = wrongPins(ctx).sameLength.slice(spent, spent + Math.max(0, 3 - before.certain));
  const twoUsers = Boolean(ctx.tokenIfGiven('otherUser'));
  if (!twoUsers) ctx.warn('tokens.otherUser is not available: every wrong pin was sent by the primary user (a lock counted per user would not show)');
  const answers = await Promise.all(pins.map((p, i) => attemptPin(ctx, p, twoUsers && i === pins.length - 1)));
  const accepted = answers.findIndex((res) => statusMatches(res.status, '2xx'));
  if (accepted >= 0) await wronglyAssociated(ctx, answers[accepted], pins[accepted].what);
  answers.forEach((res, i) => {
    if (res.status !== 403) expectError(res, { status: 400, type: 'PARAMETERS_ERROR', why: pins[i].what });
  });
  // In the order the server took them, a 403 may come only once three attempts had failed: those
  // before this batch (the malformed pin may have counted: the documents leave that open) and the
  // batch's own 400s.
  const wrongRefused = answers.filter((res) => res.status === 400).length;
  const early = answers.find((res) => res.status === 403 && before.possible + wrongRefused < 3);
  if (early) {
    refusedBeforeThreeFailures(ctx, early, before.possible);
    fail({
      expected: `each wrong pin is 400 while fewer than three attempts have failed (${before.certain} wrong${before.possible > before.certain ? ` and ${before.possible - before.certain} malformed` : ''} before these ${answers.length}, sent together)`,
      actual: `statuses ${answers.map((res) => res.status).join(', ')}: locked too early`,
      exchange: early.exchange,
    });
  }
  for (const res of answers) if (res.status === 403) expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR' });
  const known = ctx.run.data.lockableDevicePin !== undefined;
  if (!known) ctx.warn('data.lockableDevicePin is not given: the locked device was tried with a wrong pin, not its right one');
  const locked = await attemptPin(ctx, known ? 'right' : wrongPins(ctx).first);
  if (statusMatches(locked.status, '2xx')) {
    await ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ctx.data('lockableDeviceId') } }).catch(() => undefined); // undone at once
    fail({
      expected: `after three failed attempts (${answers.length} of them sent together${twoUsers ? ', the last by the second user' : ''}), the device refuses pin association: 403 AUTHORIZATION_ERROR, even for the right pin`,
      actual: `status ${locked.status}: the device was associated (were the failures sent together all counted${twoUsers ? ", the second user's too" : ''}?)`,
      exchange: locked.exchange,
    });
  }
  expectError(locked, { status: 403, type: 'AUTHORIZATION_ERROR' });
}
