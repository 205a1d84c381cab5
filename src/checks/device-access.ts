// Who may change a device: the device scope is restricted (an application without it is refused on
// every device route), and a token cannot change the second user's devices or put its own on their
// cars. A server that wrongly makes such a write has it undone before the next request.
import {
  type ApiResponse,
  type CheckContext,
  ConformanceFailure,
  exchangeCode,
  expectArray,
  expectError,
  expectStatus,
  fail,
  type FailureDetails,
  NotRun,
  readRunState,
  restrictedAppTarget,
  sameValue,
  SCOPES,
  show,
  signInForCheck,
  statusMatches,
  together,
} from '../check-api';
import {
  ASSOCIATE_CAR,
  ASSOCIATE_PIN,
  carDeviceId,
  dissociate,
  DISSOCIATE,
  listedDeviceId,
  withDevice,
  withDeviceOnItsCar,
  withFreeDeviceAndCar,
} from './devices';
import { documented, type Item, route } from './write-checks';
import { PIN_ASSOCIATION } from './pin-attempts';

/**
 * "The scope required for these routes is restricted: it is not available to all applications"
 * (vehicle-data-service-v3.md § Endpoints, Devices; § Authentication): the primary user's token from
 * an application without devices_management, signed in asking for every scope (tokens.restrictedApp),
 * is refused with 403 AUTHORIZATION_ERROR (a missing scope) on each of the three device routes. Each
 * request is one only the scope can refuse, the spec placing no other error before it: a free device
 * and a car without one, both the user's (association by car); that device on that car
 * (dissociation); data.freeDeviceId, freed first, with its right pin (association by pin: never a
 * failed attempt). A server that grants the scope anyway makes the write: it is undone before the next
 * part on that device. The association by pin goes beside the association by car (other devices).
 */
export async function coreDeviceScopeRestricted(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const token = await ctx.early(restrictedAppToken);
  const restricted = { authorization: `Bearer ${token}` };
  const judge = new Judgement();
  // The pin part touches neither data.deviceForCarId nor data.deviceCarId: it goes beside the first
  // part, and both beside the request that shows the token is one the service knows. Reported in the
  // routes' order: association by car, dissociation, association by pin.
  const first = judge.reserve();
  const second = judge.reserve();
  const [me] = await together([
    ctx.call(route(ctx, 'GET /users/me'), restricted),
    judge.part(
      (part) =>
        withFreeDeviceAndCar(ctx, async () => {
          // A wrongful association is undone by the next part, which frees the device first (withDevice).
          part.scopeRefusal(
            `associating the free device ${ctx.data('deviceForCarId')} with car ${ctx.data('deviceCarId')}`,
            await ctx.call(route(ctx, ASSOCIATE_CAR), restricted),
          );
        }),
      first,
    ),
    judge.part(async (part) => {
      const device = ctx.data('freeDeviceId');
      const ids = { deviceId: device, pin: ctx.data('devicePin') };
      // Free for sure on a server reset before the run, before the run's own pin association of it.
      const surelyFree = ctx.run.freshState && readRunState<unknown>(ctx.run, PIN_ASSOCIATION, undefined) === undefined;
      await dissociate(ctx, 'freeDeviceId'); // frees it where dissociation undoes a user association (204 or 409: both fine)
      const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids, ...restricted });
      if (statusMatches(res.status, '2xx')) await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
      if (!surelyFree && !statusMatches(res.status, '2xx') && !isScopeRefusal(res)) {
        throw new NotRun(
          `associating data.freeDeviceId ${device} by its pin with the restricted token answered ${res.status}, and the device may be associated already ` +
            '(an earlier run, or this one, associated it with the user, and no documented request undoes that everywhere): only a free device shows the scope alone refusing it; give a device never associated as data.freeDeviceId',
        );
      }
      part.scopeRefusal(`associating the free device ${device} with the user by its right pin`, res);
    }),
  ]);
  // A token the service knows (authenticated, whatever its scopes): else its refusal proves nothing.
  if (me.status !== 200 && !(me.status === 403 && Array.isArray(me.json) && me.json.some((e) => (e as Item)?.type === 'AUTHORIZATION_ERROR'))) {
    throw new NotRun(
      `tokens.restrictedApp is not a token the service takes (GET /users/me answered ${me.status}): give a valid token of an application without devices_management`,
    );
  }
  await judge.part(
    (part) =>
      withDeviceOnItsCar(ctx, async () => {
        // A wrongful dissociation leaves the device free, as the next device check wants it.
        part.scopeRefusal(
          `dissociating device ${ctx.data('deviceForCarId')} from car ${ctx.data('deviceCarId')}`,
          await ctx.call(route(ctx, DISSOCIATE), restricted),
        );
      }),
    second,
  );
  judge.conclude(
    'each device route refuses the token of an application without devices_management with 403 AUTHORIZATION_ERROR: the scope is not available to all applications',
  );
}

/** 403 AUTHORIZATION_ERROR with an error array: a refusal for a missing scope, as the spec words it. */
function isScopeRefusal(res: ApiResponse): boolean {
  try {
    expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR', tip: 'any' });
    return true;
  } catch (err) {
    if (err instanceof ConformanceFailure) return false;
    throw err;
  }
}

/**
 * A check made of parts, each judged on its own: every part runs (so that every wrongful write is
 * made and undone, and every answer judged), then the failures, else the parts that could not be
 * arranged (not run), decide.
 */
class Judgement {
  /** Each part's findings, in the order the parts were started (parts may run side by side). */
  private readonly parts: Part[] = [];

  /** A part's place in the report, taken before parts that start earlier but are reported after it. */
  reserve(): Part {
    const part = new Part();
    this.parts.push(part);
    return part;
  }

  async part(run: (part: Part) => Promise<void>, part = this.reserve()): Promise<void> {
    try {
      await run(part);
    } catch (err) {
      if (err instanceof ConformanceFailure) part.problems.push(err.details);
      else if (err instanceof NotRun) part.notShown.push(err.message);
      else throw err;
    }
  }

  private get problems(): FailureDetails[] {
    return this.parts.flatMap((p) => p.problems);
  }

  private get notShown(): string[] {
    return this.parts.flatMap((p) => p.notShown);
  }

  conclude(expected: string): void {
    if (this.problems.length) {
      fail({
        expected,
        actual: this.problems.map((p) => `\n          ${p.expected}, actual ${p.actual}`).join(''),
        exchange: this.problems.find((p) => p.exchange)?.exchange,
      });
    }
    if (this.notShown.length) throw new NotRun(this.notShown.join('; '));
  }
}

/** One part of a Judgement: what it found. */
class Part {
  readonly problems: FailureDetails[] = [];
  readonly notShown: string[] = [];

  /** The answer is the spec's refusal for a missing scope; a success is named as the write it made. */
  scopeRefusal(what: string, res: ApiResponse): void {
    if (statusMatches(res.status, '2xx')) {
      this.problems.push({ expected: `${what}: expected 403 AUTHORIZATION_ERROR`, actual: `status ${res.status}: it was done`, exchange: res.exchange });
      return;
    }
    try {
      expectError(res, { status: 403, type: 'AUTHORIZATION_ERROR', tip: 'any' });
    } catch (err) {
      if (!(err instanceof ConformanceFailure)) throw err;
      this.problems.push({ ...err.details, expected: `${what}: expected ${err.details.expected}` });
    }
  }
}

/** tokens.restrictedApp, else one signed in for now: started before the check's turn in its lane (checks/index.ts EARLY). */
export async function restrictedAppToken(ctx: CheckContext): Promise<string> {
  ctx.requireWrites();
  return ctx.run.tokens.restrictedApp ?? (await signInThroughRestrictedApp(ctx));
}

/**
 * The primary user signs in through the second application's page asking for every scope, and the
 * code is exchanged with that application's credentials: what the sign-in grants is the point, so it
 * is never minted through a test-control API.
 */
async function signInThroughRestrictedApp(ctx: CheckContext): Promise<string> {
  const o = ctx.target.oauth ?? {};
  const missing = [
    ...(['restrictedClientId', 'restrictedClientSecret'] as const).filter((k) => !o[k]),
    ...(['username', 'password'] as const).filter((k) => !o[k]),
  ];
  if (missing.length)
    throw new NotRun(
      `needs tokens.restrictedApp, or oauth.${missing.join(', oauth.')} in ${ctx.target.source} to sign in through a second application without devices_management`,
      'tokens.restrictedApp',
    );
  const app = restrictedAppTarget(ctx.target);
  const signed = await ctx.withBrowser((browser) =>
    signInForCheck(ctx.run, browser, app, { username: o.username!, password: o.password!, scope: SCOPES.join(' ') }),
  );
  if (!signed.code)
    throw new NotRun(`signing in through oauth.restrictedClientId gave no code: ${ctx.redactor.redact(signed.problem ?? 'the redirect carried no code')}`);
  ctx.redactor.add(signed.code);
  const token = await exchangeCode(ctx.api, app, signed.code).catch((err: Error) => {
    throw new NotRun(`exchanging the second application's code failed: ${ctx.redactor.redact(err.message)}`);
  });
  ctx.redactor.add(token.access_token, token.refresh_token);
  return token.access_token;
}

export async function deviceForbidden(ctx: CheckContext): Promise<void> {
  ctx.token('otherUser'); // before anything changes: not run without a second user
  await withDevice(ctx, true, async () => {
    const res = await ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ctx.data('deviceForCarId') }, token: 'otherUser' });
    expectError(res, documented(ctx));
    const deviceId = await carDeviceId(ctx);
    if (deviceId !== ctx.data('deviceForCarId')) {
      fail({
        expected: `after the refused dissociation, the car's deviceId is still ${show(ctx.data('deviceForCarId'))}`,
        actual: show(deviceId),
        pointer: '/deviceId',
      });
    }
  });
}

/** The second user's cars, read with their own token in the spec's one detailed answer. */
async function otherUsersCars(ctx: CheckContext): Promise<Item[]> {
  const res = await ctx.call(route(ctx, 'GET /users/{userId}/cars'), { ids: { userId: ctx.data('otherUserId') }, token: 'otherUser' });
  expectStatus(res, '2xx', 'the second user reading their own cars');
  return expectArray(res, 'cars') as Item[];
}

/**
 * "Token cannot access the user: 403 AUTHORIZATION_ERROR" (v3-profile.md § Errors, Devices) on the
 * writes a token could make across users: (1) its free device put on the second user's car, (2) the
 * second user's device put on its car, (3) the second user's device dissociated. Each is refused with
 * 403, never 409 (the decision on the order of checks puts access right after existence: a token
 * learns nothing of the state of a device that is not its user's), and nothing changes: the second
 * user's cars, read with their token, keep their devices, and the primary car stays without one.
 * The car of (1) is one of theirs without a device where there is one (then only the access check
 * can refuse the request). The three are sent together (on a conforming server none changes
 * anything, so none depends on another's answer; a server that wrongly makes one fails whatever the
 * others answer); a write the server wrongly makes is undone once they are answered, before the
 * reading that shows whether anything changed, and the target is left as found.
 */
export async function deviceCrossUser(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.token('otherUser');
  const ownDevice = ctx.data('deviceForCarId');
  const ownCar = ctx.data('deviceCarId');
  const otherDevice = ctx.data('otherDeviceId');
  const asOtherUser = { token: 'otherUser' as const };
  // Their cars are read while the primary device is freed: neither touches the other.
  let before: Item[] = [];
  await withFreeDeviceAndCar(
    ctx,
    async () => {
      const theirCar = before.find((c) => c.deviceId === null) ?? before.find((c) => String(c.id) === ctx.run.data.otherCarId);
      if (!theirCar)
        throw new NotRun(`the second user (data.otherUserId ${ctx.data('otherUserId')}) lists no car: give a second user with a car (data.otherCarId)`);
      const theirCarId = String(theirCar.id);
      // Where their device is (when it is on one of their cars), to give it back after a wrongful write.
      const homeOfTheirDevice = before.find((c) => c.deviceId === otherDevice);
      const giveTheirDeviceBack = async () => {
        await ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: otherDevice } }).catch(() => undefined);
        if (homeOfTheirDevice)
          await ctx
            .call(route(ctx, ASSOCIATE_CAR), { ids: { deviceId: otherDevice, carId: String(homeOfTheirDevice.id) }, ...asOtherUser })
            .catch(() => undefined);
      };
      const problems: FailureDetails[] = [];
      const undo = new Set<() => Promise<unknown>>();
      /** The answer is the profile's refusal; a wrongful success is undone (`undoIt`) once all are answered. */
      const refused = (what: string, res: ApiResponse, undoIt: () => Promise<unknown>) => {
        try {
          expectError(res, documented(ctx));
        } catch (err) {
          if (!(err instanceof ConformanceFailure)) throw err;
          problems.push({ ...err.details, expected: `${what}: expected ${err.details.expected}` });
          if (statusMatches(res.status, '2xx')) undo.add(undoIt);
        }
      };
      // The three go together: each is refused where nothing has changed, so no answer depends on another.
      const [ownOnTheirs, theirsOnOwn, theirsOff] = await together([
        ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { carId: theirCarId } }),
        ctx.call(route(ctx, ASSOCIATE_CAR), { ids: { deviceId: otherDevice } }),
        ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: otherDevice } }),
      ]);
      refused(`associating the primary user's free device ${ownDevice} with the second user's car ${theirCarId}`, ownOnTheirs, () =>
        ctx.call(route(ctx, DISSOCIATE), { ids: { deviceId: ownDevice }, ...asOtherUser }).catch(() => undefined),
      );
      refused(`associating the second user's device ${otherDevice} with the primary user's car ${ownCar}`, theirsOnOwn, giveTheirDeviceBack);
      refused(`dissociating the second user's device ${otherDevice}`, theirsOff, giveTheirDeviceBack);
      for (const u of undo) await u();
      // Nothing changed, the refused requests included.
      const [after, mine] = await together([otherUsersCars(ctx), listedDeviceId(ctx)]);
      for (const car of before) {
        const now = after.find((c) => sameValue(c.id, car.id));
        if (now && now.deviceId !== car.deviceId)
          problems.push({
            expected: `afterwards: expected the second user's car ${show(car.id)} to keep its deviceId ${show(car.deviceId)}`,
            actual: show(now.deviceId),
          });
      }
      if (mine !== null)
        problems.push({ expected: `afterwards: expected the primary user's car ${ownCar} to stay without a device`, actual: `deviceId ${show(mine)}` });
      if (problems.length) {
        fail({
          expected: 'every write across users refused with 403 AUTHORIZATION_ERROR (token cannot access the user), and nothing changed',
          actual: problems.map((p) => `\n          ${p.expected}, actual ${p.actual}`).join(''),
          exchange: problems.find((p) => p.exchange)?.exchange,
        });
      }
    },
    async () => (before = await otherUsersCars(ctx)),
  );
}
