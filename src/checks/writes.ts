// Write routes, run only when the target allows writes: car creation, and the device lifecycle.
// Each check arranges the state it needs, so runs repeat. The device checks free data.deviceForCarId
// first and leave it as their last step left it: the next one frees it anyway, and the run frees it
// once they are done (setup/device-release.ts); every other write is undone by the check that made it.
// In a run with a second device pair (setup/device-pair.ts), the checks marked `lane: second` get that
// pair's device and car for deviceForCarId and deviceCarId, and name those keys (ctx.dataName).
import {
  type ApiResponse,
  type CheckContext,
  ConformanceFailure,
  CREATED_CAR_PREFIX,
  deviceCars,
  type ErrorExpectation,
  exchangeCode,
  expandDeep,
  expectArray,
  expectContract,
  expectError,
  expectJson,
  expectNoBody,
  expectObject,
  expectObjects,
  expectStatus,
  fail,
  type FailureDetails,
  isSuiteCreatedCar,
  NotRun,
  rawBody,
  readRunState,
  restrictedAppTarget,
  sameValue,
  SCOPES,
  show,
  signInForCheck,
  statusMatches,
  together,
  unknownIdLike,
  unreadable,
  validCarBody,
  writeRunState,
} from '../check-api';

type Item = Record<string, unknown>;
const route = (ctx: CheckContext, id: string) => ctx.catalogue.route(id);

/** The requirement's documented error answer (requirements.yaml `expect`: the catalogue's error kinds follow it). */
function documented(ctx: CheckContext): ErrorExpectation {
  const expected = ctx.param<ErrorExpectation | undefined>('expect');
  if (!expected) throw new Error(`requirements.yaml: ${ctx.requirement.id} gives no "expect" (its documented error answer)`);
  return expected;
}

// ---------------------------------------------------------------- car creation

/**
 * "Create a car for this user", "Get all cars of a user" and "Get a car by id" (vehicle-data-service-v3.md
 * § Endpoints, Users and Cars): two cars created at the same moment (as two clients, or one that
 * retries, send them) are both among the user's cars, each under an id of its own (a car identifier
 * names one car) with the make and model it was created with, and GET /cars/{id} of each answers that
 * car: the make, model and name its list entry shows. A server that takes the next id and stores the
 * car as two steps gives both one id. The body is the profile's (the spec does not show one); the cars
 * are found in the spec's one detailed answer; GET /cars/{id} is read through the profile's car record.
 */
export async function coreCarCreate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const create = route(ctx, 'POST /users/{userId}/cars');
  // "Get all cars of a user" and "Get all cars of the connected user": a car created for the connected user is in both.
  const lists = [route(ctx, 'GET /users/{userId}/cars'), route(ctx, 'GET /users/me/cars')];
  const listCars = () =>
    Promise.all(
      lists.map(async (list) => {
        const res = await ctx.call(list);
        expectStatus(res, '2xx', `listing the user's cars (${list.method} ${list.path})`);
        return { route: `${list.method} ${list.path}`, cars: expectObjects(res, 'cars'), exchange: res.exchange };
      }),
    );
  const before = new Set((await listCars()).flatMap((l) => l.cars.map((c) => String(c.id))));
  const stamp = ctx.now().toString(36);
  const bodies: Array<Record<string, unknown>> = [1, 2].map((n) => ({
    ...validCarBody(ctx.now()),
    model: `Core ${n} ${stamp}`,
    name: `${CREATED_CAR_PREFIX} core ${n} ${stamp}`,
  }));
  const answers = await Promise.all(bodies.map((body) => ctx.call(create, { body })));
  // The body is the profile's (the spec shows none): both refused (4xx), it is CAR-CREATE's to judge.
  // One of two refused is not the body's doing: two distinct valid cars were sent.
  if (answers.every((res) => res.status >= 400 && res.status < 500)) {
    throw unreadable(`creating a car with the profile's body answered ${answers.map((r) => r.status).join(' and ')}`, 'CAR-CREATE');
  }
  for (const res of answers) expectStatus(res, '2xx', 'creating a car for the user (two sent together)');
  const after = await listCars();
  let cars: Item[] = [];
  for (const list of after) {
    const found = bodies.map((body) => list.cars.filter((c) => !before.has(String(c.id)) && c.model === body.model && c.make === body.make));
    found.forEach((listed, i) => {
      if (listed.length === 0) {
        fail({
          expected: `the car created with make ${show(bodies[i].make)} and model ${show(bodies[i].model)} among the user's cars at ${list.route} (two cars were created together)`,
          actual: 'not listed',
          exchange: list.exchange,
        });
      }
    });
    cars = found.map((c) => c[0]);
    if (sameValue(cars[0].id, cars[1].id)) {
      fail({
        expected: 'two cars created together have two distinct ids (a car identifier names one car)',
        actual: `both have id ${show(cars[0].id)} at ${list.route}`,
        exchange: list.exchange,
      });
    }
  }
  await Promise.all(cars.map((listed) => expectSameCarById(ctx, listed)));
}

/**
 * A car the run creates for the primary user is that user's like any other: the second user's token
 * is refused it on every car route the requirement judges, with the answer another user's car gets
 * (v3-profile.md § Errors: 403 "Token can't access this car", as ERR-CAR-FORBIDDEN asks of a seeded
 * car). A server whose owner check relies on something only the seeded cars have fails here.
 */
export async function createdCarForbidden(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.token('otherUser');
  const body = { ...validCarBody(ctx.now()), model: 'Cross-user check' };
  const res = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body });
  if (res.status >= 400 && res.status < 500) throw unreadable(`creating a car with the profile's body answered ${res.status}`, 'CAR-CREATE');
  expectStatus(res, '2xx', 'creating a car for the primary user');
  const id = expectObject(res, 'the created car').id;
  if (typeof id !== 'number' && typeof id !== 'string') throw unreadable("the created car has no id (the profile's created-car record)", 'CAR-CREATE');
  const expected = documented(ctx);
  const judged = ctx.requirement.routes.map((r) => route(ctx, r));
  const answers = await Promise.all(judged.map((r) => ctx.call(r, { ids: { carId: String(id) }, token: 'otherUser' })));
  const wrong: Array<{ route: string; details: FailureDetails }> = [];
  answers.forEach((answer, i) => {
    try {
      expectError(answer, expected);
    } catch (err) {
      if (!(err instanceof ConformanceFailure)) throw err;
      wrong.push({ route: `${judged[i].method} ${judged[i].path}`, details: err.details });
    }
  });
  if (wrong.length) {
    const [first] = wrong;
    fail({
      ...first.details,
      expected: `the car ${show(id)} the run created for the primary user, asked for with the second user's token: ${first.details.expected}`,
      actual: `${first.route}: ${first.details.actual}${
        wrong.length > 1
          ? `; and ${wrong.length - 1} more route(s): ${wrong
              .slice(1)
              .map((w) => w.route)
              .join(', ')}`
          : ''
      }`,
    });
  }
}

/** GET /cars/{id} of a listed car answers that car: its id names one car, whichever route reads it. */
async function expectSameCarById(ctx: CheckContext, listed: Item): Promise<void> {
  const res = await ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: String(listed.id) } });
  expectStatus(res, '2xx', `getting the created car ${show(listed.id)} by its id`);
  const car = res.json as Item | undefined;
  if (!car || typeof car !== 'object' || Array.isArray(car) || !['make', 'model', 'name'].every((f) => f in car)) {
    throw unreadable("GET /cars/{carId} answers no car record with make, model and name (the profile's car record)", 'RESP-CONTRACT');
  }
  const differ = ['make', 'model', 'name'].filter((f) => !sameValue(car[f], listed[f]));
  if (differ.length) {
    fail({
      expected: `GET /cars/${show(listed.id)} answers the car the user's list shows under that id: ${differ.map((f) => `${f} ${show(listed[f])}`).join(', ')} (a car identifier names one car)`,
      actual: differ.map((f) => `${f} ${show(car[f])}`).join(', '),
      exchange: res.exchange,
    });
  }
}

export async function carCreate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const userId = ctx.data('userId');
  const body = validCarBody(ctx.now());
  const res = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body });
  expectStatus(res, 201, 'the documented success of car creation');
  expectContract(res, 'createdCar');
  const created = expectEchoed(res, body);
  if (created.timezone !== 'Europe/Paris') {
    fail({
      expected: 'timezone "Europe/Paris" (the default when the body gives none)',
      actual: show(created.timezone),
      pointer: '/timezone',
      exchange: res.exchange,
    });
  }
  if (String(created.userId) !== userId) fail({ expected: `userId ${userId}`, actual: show(created.userId), pointer: '/userId', exchange: res.exchange });
  // The three readings go together, judged in turn.
  const listRoutes = ['GET /users/me/cars', 'GET /users/{userId}/cars'];
  const [single, ...lists] = await together([
    ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: String(created.id) } }),
    ...listRoutes.map((r) => ctx.call(route(ctx, r))),
  ]);
  for (const [i, list] of lists.entries()) {
    expectStatus(list, 200);
    if (!expectObjects(list, 'cars').some((c) => sameValue(c.id, created.id))) {
      fail({ expected: `the created car ${show(created.id)} in ${listRoutes[i]}`, actual: 'not listed', exchange: list.exchange });
    }
  }
  expectStatus(single, 200, 'the created car at GET /cars/{id}');
  const car = expectObject(single, 'the created car');
  if (car.make !== body.make || car.model !== body.model) {
    fail({
      expected: `GET /cars/${show(created.id)} with make ${show(body.make)} and model ${show(body.model)}`,
      actual: `make ${show(car.make)}, model ${show(car.model)}`,
      exchange: single.exchange,
    });
  }
}

/**
 * A car created with the requirement's body (CAR-CREATE-FULL: every optional field, each text at its
 * upper bound of 64 characters, in other scripts; CAR-CREATE-BOUNDS: each text at its lower bound,
 * name and numberPlate empty) is accepted (201) and answered back exactly as sent, and read back the
 * same at GET /cars/{id} and in the user's list (text is compared as sent: a server that stores or
 * decodes it in another character set, or cuts it short, shows here). Only the Basic Multilingual
 * Plane is used at a bound, where every reading of "characters" (code points, UTF-16 units) agrees.
 */
export async function carCreateReadBack(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const body = expandDeep(ctx.param<Record<string, unknown>>('body'), new Date(ctx.now()));
  const res = await ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body });
  expectStatus(res, 201, 'the documented success of car creation');
  expectContract(res, 'createdCar');
  const created = expectEchoed(res, body);
  const carFields = ['make', 'model', 'name', 'year', 'numberPlate'].filter((f) => f in body);
  // Both readings go together, judged in turn.
  const [single, list] = await together([
    ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: String(created.id) } }),
    ctx.call(route(ctx, 'GET /users/{userId}/cars')),
  ]);
  expectStatus(single, 200, 'the created car at GET /cars/{id}');
  expectFields(single, expectJson(single) as Item, body, carFields, `GET /cars/${show(created.id)}`);
  expectStatus(list, 200, "the user's cars");
  const listed = (expectArray(list, 'cars') as Item[]).find((c) => sameValue(c.id, created.id));
  if (!listed) fail({ expected: `the created car ${show(created.id)} in the user's list`, actual: 'not listed', exchange: list.exchange });
  expectFields(list, listed, body, carFields, "the user's list");
}

/**
 * The car record's fields that "may be null" (vehicle-data-service-v3.md § Car record: model,
 * numberPlate): an empty text sent there may read back as null, which the documents leave open.
 */
const NULLABLE_TEXT: ReadonlySet<string> = new Set(['model', 'numberPlate']);

/** A field of a car record holds what the body sent (an empty text or null where the field may be null). */
function readsAsSent(field: string, value: unknown, sent: unknown): boolean {
  return sameValue(value, sent) || (sent === '' && value === null && NULLABLE_TEXT.has(field));
}

/** The record holds each of `fields` as the body sent it. */
function expectFields(res: ApiResponse, record: Item, body: Record<string, unknown>, fields: string[], where: string): void {
  for (const field of fields) {
    if (!readsAsSent(field, record[field], body[field])) {
      fail({
        expected: `${where}: ${field} ${show(body[field])} as it was created`,
        actual: show(record[field]),
        pointer: `/${field}`,
        exchange: res.exchange,
      });
    }
  }
}

/** The created car answers every field of the body as it was sent. */
function expectEchoed(res: ApiResponse, body: Record<string, unknown>): Item {
  const created = expectObject(res, 'the created car');
  for (const [field, value] of Object.entries(body)) {
    if (!readsAsSent(field, created[field], value))
      fail({ expected: `${field} ${show(value)} as sent`, actual: show(created[field]), pointer: `/${field}`, exchange: res.exchange });
  }
  return created;
}

export async function carCreateInvalid(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const bodies = ctx.param<Record<string, unknown>>('bodies');
  const problems: string[] = [];
  // Each body is refused and creates nothing (a wrongly accepted one creates a car no other body
  // depends on): they go together, judged in the catalogue's order.
  const rules = Object.entries(bodies);
  const answers = await together(
    rules.map(([, template]) => {
      const raw = rawBody(template);
      return ctx.call(route(ctx, 'POST /users/{userId}/cars'), raw !== undefined ? { rawBody: raw } : { body: expandDeep(template, new Date(ctx.now())) });
    }),
  );
  for (const [i, [rule]] of rules.entries()) {
    const res = answers[i];
    try {
      expectError(res, documented(ctx));
    } catch (err) {
      problems.push(`${rule}: ${(err as Error).message.split('\n').slice(0, 2).join('; ')}`);
    }
  }
  if (problems.length) {
    fail({
      expected: '400 PARAMETERS_ERROR for every body that breaks a creation rule',
      actual: `${problems.length} of ${Object.keys(bodies).length} accepted or answered otherwise:\n          ${problems.join('\n          ')}`,
    });
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

/** The deviceId of data.deviceCarId as the user's car list shows it (the spec's one detailed answer). */
async function listedDeviceId(ctx: CheckContext): Promise<unknown> {
  const res = await ctx.call(route(ctx, 'GET /users/{userId}/cars'));
  expectStatus(res, '2xx', "reading the user's cars");
  const carId = ctx.data('deviceCarId');
  const car = expectObjects(res, 'cars').find((c) => String(c.id) === carId);
  if (!car) fail({ expected: `car ${carId} (${ctx.dataName('deviceCarId')}) among the user's cars`, actual: 'not listed', exchange: res.exchange });
  return car.deviceId;
}

/** An answer that is not a success: when it is an error, its body must be the spec's before anything else. */
function expectSucceeded(res: ApiResponse, what: string): void {
  if (res.status >= 400) expectError(res, { status: res.status, tip: 'any' });
  expectStatus(res, '2xx', what);
}

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
            '(an earlier run, or this one, associated it with the user, and no documented request undoes that everywhere): only a free device shows the scope alone refusing it; give a free device as data.freeDeviceId',
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

async function carDeviceId(ctx: CheckContext): Promise<unknown> {
  const res = await ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: ctx.data('deviceCarId') } });
  expectStatus(res, 200, 'reading the associated car');
  return expectObject(res, 'the car record').deviceId;
}

/**
 * Runs `act` on data.deviceForCarId in a known state: freed first (whatever an earlier check or an
 * interrupted run left), then associated with data.deviceCarId if asked. The device is left as `act`
 * leaves it: the next device check frees it first, and the run frees it after them (file header).
 */
async function withDevice(ctx: CheckContext, associated: boolean, act: () => Promise<void>, alongside?: () => Promise<unknown>): Promise<void> {
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
async function withFreeDeviceAndCar(ctx: CheckContext, act: () => Promise<void>, alongside?: () => Promise<unknown>): Promise<void> {
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
async function withDeviceOnItsCar(ctx: CheckContext, act: () => Promise<void>): Promise<void> {
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
 * state), and counts as no failed attempt. Runs before the run's pin association of the device
 * (catalogue order), while it is free; a wrongful link is undone at once by the dissociation that
 * frees the device afterwards.
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
            '(a server that keeps its state may have it associated with the user by an earlier run); give a free device as data.freeDeviceId',
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

const PIN_ASSOCIATION = 'pin-association';

/**
 * Associates data.freeDeviceId with the user by its pin, once per run: no documented request undoes
 * a user association everywhere (a server may keep it: dissociation is "from its car"), so the
 * spec's requirement (a success) and the profile's (204, no body) judge the same answer.
 */
async function associateByPinOnce(ctx: CheckContext): Promise<ApiResponse> {
  const done = readRunState<ApiResponse | undefined>(ctx.run, PIN_ASSOCIATION, undefined);
  if (done) {
    ctx.api.exchanges.push(done.exchange);
    ctx.warn("judged on the answer to the run's one pin association of data.freeDeviceId (made by the first check that needed it)");
    return done;
  }
  const device = ctx.data('freeDeviceId');
  const pin = ctx.data('devicePin');
  await dissociate(ctx, 'freeDeviceId'); // frees it where dissociation undoes a user association (204 or 409: both fine)
  try {
    // The answer as ApiClient gave it (plain JSON), kept in the run's state for every check that judges it.
    const res = await ctx.call(route(ctx, ASSOCIATE_PIN), { ids: { deviceId: device, pin } });
    writeRunState(ctx.run, PIN_ASSOCIATION, res);
    return res;
  } finally {
    await dissociate(ctx, 'freeDeviceId').catch(() => undefined);
  }
}

/** Pin association: a success (the spec: expectStatus 2xx) or 204 with no body (the profile). */
export async function devicePinAssociate(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const res = await associateByPinOnce(ctx);
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
// sent together, then the right pin (refused: locked), and a malformed pin last. Whether a malformed
// pin counts as a failed attempt is left open (variant malformed-pin-counts): sent last, it cannot
// make up for a wrong pin the server lost, so the lock is decided by wrong pins alone.

type PinKind = 'malformed' | 'wrong' | 'right';
interface PinAttempt {
  kind: PinKind;
  status: number;
}
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
 * them): each is refused with 400 until three attempts have failed; then even the right pin is 403.
 * A server that counts failures as read-then-write loses the concurrent ones, and never locks.
 */
export async function devicePinLockout(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.data('lockableDeviceId');
  // On a server that keeps its state, the run's first attempt already met an earlier run's lock: spend no more.
  if (!ctx.run.freshState && pinAttempts(ctx).some((a) => a.status === 403)) throw lockedBefore();
  const before = failuresSoFar(ctx);
  const answers = await Promise.all(Array.from({ length: Math.max(0, 3 - before.certain) }, () => attemptPin(ctx, 'wrong')));
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
      expected: `after three failed attempts (${answers.length} of them sent together), the device refuses pin association: 403 AUTHORIZATION_ERROR, even for the right pin`,
      actual: `status ${locked.status}: the device was associated (were the failures sent together all counted?)`,
      exchange: locked.exchange,
    });
  }
  expectError(locked, { status: 403, type: 'AUTHORIZATION_ERROR' });
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
