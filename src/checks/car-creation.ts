// Car creation (POST /users/{userId}/cars), run only when the target allows writes: what is created
// is listed and read back as it was sent, and what the profile refuses creates nothing. There is no
// documented way to delete a car: the cars a run creates stay (their names say the suite made them).
import {
  type ApiResponse,
  type CheckContext,
  ConformanceFailure,
  CREATED_CAR_PREFIX,
  expandDeep,
  expectArray,
  expectContract,
  expectError,
  expectJson,
  expectObject,
  expectObjects,
  expectStatus,
  type ErrorExpectation,
  fail,
  type FailureDetails,
  rawBody,
  sameValue,
  show,
  together,
  unreadable,
  validCarBody,
} from '../check-api';
import { documented, type Item, route } from './write-checks';

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

/**
 * A field of a car record holds what the body sent: the same value; for a text, a canonically
 * equivalent one (a store may keep text in NFC or NFD: decision D-TEXT-CHARACTERS, the Unicode
 * Standard's conformance clause C6); an empty text or null where the field may be null.
 */
function readsAsSent(field: string, value: unknown, sent: unknown): boolean {
  if (sameValue(value, sent) || (sent === '' && value === null && NULLABLE_TEXT.has(field))) return true;
  return typeof value === 'string' && typeof sent === 'string' && value.normalize('NFC') === sent.normalize('NFC');
}

/** A code point as Unicode writes it (U+1F697), or the text's end. */
const codePoint = (c: string | undefined) => (c === undefined ? 'the end' : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);

/** Where a text read back first differs from the one sent, by code point: a store's '?', an entity, a character dropped. */
function firstDifference(sent: unknown, read: unknown): string {
  if (typeof sent !== 'string' || typeof read !== 'string') return '';
  const [a, b] = [[...sent], [...read]];
  const at = a.findIndex((c, i) => c !== b[i]);
  const i = at === -1 ? a.length : at;
  return ` (${b.length} characters for ${a.length} sent; the first that differs, number ${i + 1}: ${codePoint(a[i])} sent, ${codePoint(b[i])} read)`;
}

/** The record holds each of `fields` as the body sent it. */
function expectFields(res: ApiResponse, record: Item, body: Record<string, unknown>, fields: string[], where: string): void {
  for (const field of fields) {
    if (!readsAsSent(field, record[field], body[field])) {
      fail({
        expected: `${where}: ${field} ${show(body[field])} as it was created`,
        actual: `${show(record[field])}${firstDifference(body[field], record[field])}`,
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
      fail({
        expected: `${field} ${show(value)} as sent`,
        actual: `${show(created[field])}${firstDifference(value, created[field])}`,
        pointer: `/${field}`,
        exchange: res.exchange,
      });
  }
  return created;
}

/** The car record's texts, judged as sent wherever the car is read. */
const TEXT_FIELDS = ['make', 'model', 'name', 'numberPlate'];

/**
 * Texts kept as sent, whatever their characters (decision D-TEXT-CHARACTERS): each of the
 * requirement's bodies creates a car (201, the created-car record, each text as sent), and the car
 * read back at GET /cars/{id} and in both lists of the user's cars holds each text as sent. Where the
 * requirement gives `expect` (characters a text need not hold), a body may instead be refused with
 * that answer, and creates nothing. The creations go together (each makes a car of its own), then
 * every reading; each body is judged on its own, every problem reported.
 */
export async function carCreateTexts(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const refusal = ctx.param<ErrorExpectation | undefined>('expect');
  const bodies = Object.entries(ctx.param<Record<string, Record<string, unknown>>>('bodies')).map(([what, template]) => ({
    what,
    body: expandDeep(template, new Date(ctx.now())),
  }));
  const answers = await together(bodies.map(({ body }) => ctx.call(route(ctx, 'POST /users/{userId}/cars'), { body })));
  const problems: string[] = [];
  let exchange: ApiResponse['exchange'] | undefined;
  /** Runs a judgement of one body, its failure a problem of the check. */
  const judged = <T>(what: string, judge: () => T): T | undefined => {
    try {
      return judge();
    } catch (err) {
      if (!(err instanceof ConformanceFailure)) throw err;
      exchange ??= err.details.exchange;
      problems.push(`${what}: expected ${err.details.expected}, actual ${err.details.actual}`);
      return undefined;
    }
  };
  const created: Array<{ what: string; body: Record<string, unknown>; id: unknown }> = [];
  answers.forEach((res, i) => {
    const { what, body } = bodies[i];
    if (refusal && res.status >= 400 && res.status < 500) {
      judged(what, () => expectError(res, refusal));
      return;
    }
    const car = judged(what, () => {
      expectStatus(res, 201, `the documented success of car creation${refusal ? ', or the documented refusal' : ''}`);
      expectContract(res, 'createdCar');
      return expectEchoed(res, body);
    });
    if (car) created.push({ what, body, id: car.id });
  });
  const listRoutes = ['GET /users/{userId}/cars', 'GET /users/me/cars'];
  const [lists, singles] = await together([
    together(listRoutes.map((r) => ctx.call(route(ctx, r)))),
    together(created.map((c) => ctx.call(route(ctx, 'GET /cars/{carId}'), { ids: { carId: String(c.id) } }))),
  ]);
  created.forEach(({ what, body, id }, i) => {
    const fields = TEXT_FIELDS.filter((f) => f in body);
    judged(what, () => {
      expectStatus(singles[i], 200, `the created car ${show(id)} at GET /cars/{id}`);
      expectFields(singles[i], expectObject(singles[i], 'the created car'), body, fields, `GET /cars/${show(id)}`);
    });
    listRoutes.forEach((listRoute, l) =>
      judged(what, () => {
        expectStatus(lists[l], 200, `the user's cars (${listRoute})`);
        const listed = expectObjects(lists[l], 'cars').find((c) => sameValue(c.id, id));
        if (!listed) fail({ expected: `the created car ${show(id)} in ${listRoute}`, actual: 'not listed', exchange: lists[l].exchange });
        expectFields(lists[l], listed, body, fields, listRoute);
      }),
    );
  });
  if (problems.length) {
    fail({
      expected: `each text as sent, for every body: ${bodies.map((b) => b.what).join('; ')}`,
      actual: `${problems.length} problem(s):\n          ${problems.join('\n          ')}`,
      exchange,
    });
  }
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
