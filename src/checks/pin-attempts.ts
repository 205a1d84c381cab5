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
  readRunState,
  statusMatches,
  writeRunState,
} from '../check-api';
import { ASSOCIATE_PIN, dissociate, DISSOCIATE, expectSucceeded, route } from './devices';

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

export const PIN_ASSOCIATION = 'pin-association';

/**
 * Associates data.freeDeviceId with the user by its pin, once per run: no documented request undoes
 * a user association everywhere (a server may keep it: dissociation is "from its car"), so the
 * spec's requirement (a success) and the profile's (204, no body) judge the same answer. `whileLinked`
 * runs while the link the association made is there, before the device is freed again (what the
 * link leaves, tried by another user: device-state-cross-user.ts); it is not run when an earlier check
 * made the association (the link is gone), nor when the association did not succeed. Returns the
 * association's answer, and whether this call made it.
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
  if (res.status === 409 && !ctx.run.freshState) {
    throw new NotRun(
      'data.freeDeviceId is already associated (an earlier run associated it with the user, and no documented request undoes a user association): give a free device as data.freeDeviceId',
    );
  }
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
// it, and is recorded (src/setup/run-state.ts), in catalogue order: a wrong pin, two more wrong pins
// sent together (one of them by the second user, where there is one: the lock is the device's, not
// one user's), then the right pin (refused: locked), and a malformed pin last. Whether a malformed
// pin counts as a failed attempt is left open (variant malformed-pin-counts): sent last, it cannot
// make up for a wrong pin the server lost, so the lock is decided by wrong pins alone.

type PinKind = 'malformed' | 'wrong' | 'right';
interface PinAttempt {
  kind: PinKind;
  status: number;
  /** Sent with the second user's token (else the primary's). */
  byOtherUser?: boolean;
}
const PIN_ATTEMPTS = 'pin-attempts';
const MALFORMED_PIN = 'not-a-pin';

async function attemptPin(ctx: CheckContext, kind: PinKind, byOtherUser = false): Promise<ApiResponse> {
  const device = ctx.data('lockableDeviceId');
  const knownPin = ctx.run.data.lockableDevicePin;
  const pin = kind === 'malformed' ? MALFORMED_PIN : kind === 'right' ? ctx.data('lockableDevicePin') : wrongPin(knownPin ?? ctx.run.data.devicePin ?? '0000');
  const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin }, ...(byOtherUser ? { token: 'otherUser' as const } : {}) });
  writeRunState(ctx.run, PIN_ATTEMPTS, [...pinAttempts(ctx), { kind, status: res.status, ...(byOtherUser ? { byOtherUser } : {}) }]);
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

/** The first wrong pin: refused as a bad pin (400), the device not being locked yet. */
export async function devicePinWrong(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const before = failuresSoFar(ctx).possible;
  const res = await attemptPin(ctx, 'wrong');
  refusedBeforeThreeFailures(ctx, res, before);
  expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
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
  const needed = Math.max(0, 3 - before.certain);
  const twoUsers = Boolean(ctx.run.tokens.otherUser);
  if (!twoUsers) ctx.warn('tokens.otherUser is not available: every wrong pin was sent by the primary user (a lock counted per user would not show)');
  const answers = await Promise.all(Array.from({ length: needed }, (_, i) => attemptPin(ctx, 'wrong', twoUsers && i === needed - 1)));
  for (const res of answers) if (res.status !== 403) expectError(res, { status: 400, type: 'PARAMETERS_ERROR' });
  // In the order the server took them, a 403 may come only once three attempts had failed: those
  // before this batch (the malformed pin may have counted: the documents leave that open) and the
  // batch's own 400s.
  const wrongRefused = answers.filter((res) => res.status === 400).length;
  const early = answers.find((res) => res.status === 403 && before.possible + wrongRefused < 3);
  if (early) {
    refusedBeforeThreeFailures(ctx, early, before.possible);
    fail({
      expected: `each wrong pin is 400 while fewer than three attempts have failed (${before.certain} wrong${before.possible > before.certain ? ' and 1 malformed' : ''} before these ${answers.length}, sent together)`,
      actual: `statuses ${answers.map((res) => res.status).join(', ')}: locked too early`,
      exchange: early.exchange,
    });
  }
  for (const res of answers) if (res.status === 403) expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR' });
  const known = ctx.run.data.lockableDevicePin !== undefined;
  if (!known) ctx.warn('data.lockableDevicePin is not given: the locked device was tried with a wrong pin, not its right one');
  const locked = await attemptPin(ctx, known ? 'right' : 'wrong');
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
