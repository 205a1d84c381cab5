// Members the client must not set (OWASP API3, mass assignment): a creation body offered the members
// of what the write creates that its documented request does not take - the created car's record
// (routes.yaml: the route's success contract) against the creation body (the requirement's
// `requestContract`), both read from contracts/schemas. Each is offered a value that would do harm
// if kept: another user's id, the id of their car, a device's serial, a date long ago. The server
// refuses the body or ignores them, and the resource shows it: the answer, the car read back, both
// users' lists. One creation offers them all; when it is refused, each is offered alone, so that a
// refusal of one member cannot hide another kept. The checks of both classes judge the same creations
// (the core ones: the car is the path's user's, under an id of its own, without the device offered).
import {
  type ApiResponse,
  type CheckContext,
  ConformanceFailure,
  CREATED_CAR_PREFIX,
  expectError,
  expectObjects,
  fail,
  type FailureDetails,
  isRfc3339DateTime,
  memberSchemas,
  type MemberSchema,
  NotRun,
  show,
  statusMatches,
  together,
  validCarBody,
} from '../check-api';
import { type Item, route } from './write-checks';

type Exchange = ApiResponse['exchange'];

const CREATE = 'POST /users/{userId}/cars';

/** One creation: the members it offered, its body, and the answer. */
interface Offer {
  /** The server's members offered (all of them, or one). */
  members: string[];
  /** What marks the car it creates, wherever it is listed (its model). */
  marker: string;
  body: Record<string, unknown>;
  res: ApiResponse;
  /** GET /cars/{id} of the car it created, when it answered one. */
  readBack?: ApiResponse;
}

/** What the creations left, read once they were answered. */
interface Offered {
  /** The server's members of the created record, with the value each was offered. */
  forged: Record<string, unknown>;
  offers: Offer[];
  /** GET /users/{userId}/cars (the primary user). */
  mine: ApiResponse;
  /** GET /users/{otherUserId}/cars with the second user's token, when there is one. */
  theirs?: ApiResponse;
  /** Every exchange, for the record of the check that did not send them. */
  exchanges: Exchange[];
}

/** The run's creations, made by the first of the two checks that needs them (both run in the users group's worker). */
const made = new Map<string, Promise<Offered>>();

/**
 * The creations of this run: made once (the first check to ask sends them), judged by both classes.
 * The second check's record gets their exchanges too.
 */
async function offered(ctx: CheckContext): Promise<Offered> {
  ctx.requireWrites();
  const key = ctx.run.stateDir;
  const mine = !made.has(key);
  if (mine) made.set(key, offer(ctx));
  const result = await made.get(key)!;
  if (!mine) {
    ctx.api.exchanges.push(...result.exchanges);
    ctx.warn('judged on the creations of the run (made by the first check that needed them)');
  }
  return result;
}

/** The members of the route's created record that its request body does not take, in the record's order. */
export function serverMembers(created: string, request: string): Map<string, MemberSchema> {
  const taken = memberSchemas(request);
  return new Map([...memberSchemas(created)].filter(([name]) => !taken.has(name)));
}

/**
 * The value a member is offered: the requirement's `forged` template (`@data(a,b)`: the first of the
 * run's ids a, b it has; an integer member gets it as a number), else one made from the member's
 * schema: a date long ago, a large integer, a marked string.
 */
function forgedValue(ctx: CheckContext, name: string, schema: MemberSchema): unknown {
  const template = ctx.param<Record<string, string> | undefined>('forged')?.[name];
  const integer = schema.types.includes('integer') && !schema.types.includes('string');
  const data = template && /^@data\(([^)]+)\)$/.exec(template);
  if (data) {
    const value = data[1]
      .split(',')
      .map((k) => ctx.run.data[k.trim() as keyof typeof ctx.run.data])
      .find((v) => v !== undefined && v !== '');
    if (value !== undefined) return integer && /^\d+$/.test(value) ? Number(value) : value;
  } else if (template !== undefined) return template;
  if (schema.format || name.toLowerCase().endsWith('date')) return '2001-02-03T04:05:06+00:00';
  if (integer || schema.types.includes('number')) return 987_654_321;
  return 'VDS-CONFORMANCE-FORGED';
}

/** The creations: all the server's members at once, and each alone when that is refused; then both users' lists and each car by id. */
async function offer(ctx: CheckContext): Promise<Offered> {
  const create = route(ctx, CREATE);
  const members = serverMembers(create.success.contract!, ctx.param<string>('requestContract'));
  if (members.size === 0) throw new Error(`${CREATE}: its record has no member its request does not take (contracts/schemas)`);
  const forged = Object.fromEntries([...members].map(([name, schema]) => [name, forgedValue(ctx, name, schema)]));
  const stamp = ctx.now().toString(36);
  const bodyOf = (names: string[], label: string) => {
    const marker = `Members ${label} ${stamp}`;
    const body = { ...validCarBody(ctx.now()), model: marker, name: `${CREATED_CAR_PREFIX} ${marker}`.slice(0, 64) };
    for (const name of names) body[name as keyof typeof body] = forged[name] as string;
    return { members: names, marker, body };
  };
  const all = [...members.keys()];
  const first = bodyOf(all, 'all');
  const offers: Offer[] = [{ ...first, res: await ctx.call(create, { body: first.body }) }];
  // Refused as a whole: each member alone, so that a refusal of one cannot hide another kept (creations: together).
  if (offers[0].res.status >= 400 && offers[0].res.status < 500) {
    const alone = all.map((name) => bodyOf([name], name));
    const answers = await together(alone.map((o) => ctx.call(create, { body: o.body })));
    alone.forEach((o, i) => offers.push({ ...o, res: answers[i] }));
  }
  const byId = route(ctx, 'GET /cars/{carId}');
  const lists = route(ctx, 'GET /users/{userId}/cars');
  const otherUser = ctx.run.tokens.otherUser && ctx.run.data.otherUserId;
  const created = offers.map((o) => (statusMatches(o.res.status, '2xx') ? idOf(o.res) : undefined));
  const [mine, theirs, ...readBacks] = await together([
    ctx.call(lists),
    otherUser ? ctx.call(lists, { ids: { userId: ctx.run.data.otherUserId! }, token: 'otherUser' }) : Promise.resolve(undefined),
    ...created.map((id) => (id === undefined ? Promise.resolve(undefined) : ctx.call(byId, { ids: { carId: id } }))),
  ]);
  readBacks.forEach((r, i) => {
    if (r) offers[i].readBack = r;
  });
  return { forged, offers, mine, ...(theirs ? { theirs } : {}), exchanges: [...ctx.api.exchanges] };
}

function idOf(res: ApiResponse): string | undefined {
  const id = (res.json as Item | undefined)?.id;
  return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
}

/** The cars of a list answer, or NotRun saying whose list could not be read. */
function carsOf(res: ApiResponse, whose: string): Item[] {
  if (!statusMatches(res.status, '2xx')) throw new NotRun(`${whose} list of cars answered ${res.status}: the cars created cannot be found`);
  return expectObjects(res, `${whose} cars`);
}

/** Problems found, each a failure's details, reported together. */
class Findings {
  readonly problems: FailureDetails[] = [];

  add(expected: string, actual: string, exchange?: Exchange, pointer?: string): void {
    this.problems.push({ expected, actual, ...(exchange ? { exchange } : {}), ...(pointer ? { pointer } : {}) });
  }

  conclude(expected: string): void {
    if (!this.problems.length) return;
    fail({
      expected,
      actual: this.problems.map((p) => `\n          ${p.expected}, actual ${p.actual}`).join(''),
      exchange: this.problems.find((p) => p.exchange)?.exchange,
      ...(this.problems.length === 1 && this.problems[0].pointer ? { pointer: this.problems[0].pointer } : {}),
    });
  }
}

const offeredWhat = (o: Offer) => (o.members.length > 1 ? `the creation offering ${o.members.join(', ')}` : `the creation offering ${o.members[0]} alone`);

/**
 * "Create a car for this user" (vehicle-data-service-v3.md § Endpoints, Users): whatever else the
 * body offers - the second user as userId, their car's id as id - the car is created for the user
 * of the path, under an id of its own, or not at all. The second user's list (their token) holds no
 * car of these creations, and their car whose id was offered is still theirs, not replaced; each car
 * created is among the primary user's cars, under another id than the one offered. Judged on the
 * resources, whatever the answers' statuses (the body and the member names are the profile's).
 */
export async function coreCarCreateOwner(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  ctx.token('otherUser');
  ctx.data('otherUserId');
  const { forged, offers, mine, theirs } = await offered(ctx);
  if (!theirs) throw new NotRun("the second user's cars were not read (needs tokens.otherUser and data.otherUserId)");
  const myCars = carsOf(mine, "the primary user's");
  const theirCars = carsOf(theirs, "the second user's");
  const findings = new Findings();
  for (const o of offers) {
    const forThem = theirCars.find((c) => c.model === o.marker);
    if (forThem) findings.add(`${offeredWhat(o)} creates no car of the second user`, `their list holds it, car ${show(forThem.id)}`, theirs.exchange);
    if (!statusMatches(o.res.status, '2xx')) continue;
    const listed = myCars.filter((c) => c.model === o.marker);
    if (listed.length === 0 && !forThem)
      findings.add(`the car ${offeredWhat(o)} created (${o.res.status}) among the primary user's cars`, 'not listed', mine.exchange);
    const kept = listed.find((c) => 'id' in forged && String(c.id) === String(forged.id));
    if (kept)
      findings.add(`the car ${offeredWhat(o)} created has an id of its own`, `it has the offered id ${show(kept.id)}, the second user's car's`, mine.exchange);
  }
  // Their car whose id was offered is still theirs, and still itself.
  const theirCar = 'id' in forged ? String(forged.id) : undefined;
  if (theirCar && theirCar === ctx.run.data.otherCarId) {
    const still = theirCars.find((c) => String(c.id) === theirCar);
    const replaced = offers.find((o) => still?.model === o.marker);
    if (!still) findings.add(`the second user's car ${theirCar}, whose id was offered, still among their cars`, 'not listed', theirs.exchange);
    else if (replaced) findings.add(`the second user's car ${theirCar} unchanged`, `it is now the car ${offeredWhat(replaced)} created`, theirs.exchange);
  }
  findings.conclude("a car created for this user (the path's) under an id of its own, or none: nothing created for, or taken from, the second user");
}

/**
 * "deviceId: Serial number of the associated device. Null when the car has no associated device"
 * (vehicle-data-service-v3.md § Car record), and a device is associated with a car through the device
 * routes, whose scope is not available to all applications (§ Endpoints, Devices): a creation whose
 * body also offers a device's serial as deviceId (the second user's device where the run knows one)
 * creates a car without that device. Judged on the car in the user's list (the spec's one detailed
 * answer), at GET /cars/{id} and as answered, whatever their statuses: a creation refused shows no car
 * to judge, and a car not listed is CORE-CAR-CREATE-OWNER's. Another deviceId, or null, is not judged
 * here (the profile's CAR-CREATE-SERVER-MEMBERS wants null): only a device the client named.
 */
export async function coreCarCreateDevice(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const { forged, offers, mine } = await offered(ctx);
  const serial = forged.deviceId;
  if (typeof serial !== 'string' || !serial) throw new Error(`${CREATE}: deviceId is not among the members offered (forged, contracts/schemas)`);
  const myCars = statusMatches(mine.status, '2xx') && Array.isArray(mine.json) ? (mine.json as Item[]) : [];
  const findings = new Findings();
  for (const o of offers.filter((offer) => offer.members.includes('deviceId') && statusMatches(offer.res.status, '2xx'))) {
    const readBack = o.readBack && statusMatches(o.readBack.status, '2xx') ? o.readBack : undefined;
    const readings: Array<[string, unknown, ApiResponse | undefined]> = [
      ["the user's list (GET /users/{userId}/cars)", myCars.find((c) => c?.model === o.marker), mine],
      ['GET /cars/{id}', readBack?.json, readBack],
      ['the answer', o.res.json, o.res],
    ];
    for (const [where, record, res] of readings) {
      const deviceId = record && typeof record === 'object' ? (record as Item).deviceId : undefined;
      if (deviceId === serial)
        findings.add(
          `${offeredWhat(o)}: the car in ${where} has no device (none was associated through the device routes)`,
          `deviceId ${show(deviceId)}, the serial the body offered`,
          res?.exchange,
          '/deviceId',
        );
    }
  }
  findings.conclude(`a car created from a body offering deviceId ${show(serial)} does not have that device: a device is associated through the device routes`);
}

/**
 * The created car's members its creation body does not take are the server's (the suite's decision,
 * docs/REQUIREMENTS.md § Decisions of the suite): each creation offering them is refused (a 4xx with
 * the error array) or keeps none - the answer and the car read back at GET /cars/{id} hold the
 * server's values: userId the path's user, deviceId null (no device was associated), and no member
 * the offered value. A server error is neither.
 */
export async function carCreateServerMembers(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const { forged, offers } = await offered(ctx);
  const findings = new Findings();
  for (const o of offers) {
    if (o.res.status >= 400 && o.res.status < 500) {
      try {
        expectError(o.res, { status: o.res.status });
      } catch (err) {
        if (!(err instanceof ConformanceFailure)) throw err;
        findings.add(`${offeredWhat(o)} refused with the error array: ${err.details.expected}`, err.details.actual, o.res.exchange);
      }
      continue;
    }
    if (!statusMatches(o.res.status, '2xx')) {
      findings.add(`${offeredWhat(o)} refused (4xx) or created with the server's own values`, `status ${o.res.status}`, o.res.exchange);
      continue;
    }
    const answer = o.res.json as Item | undefined;
    const readBack = o.readBack && statusMatches(o.readBack.status, '2xx') ? (o.readBack.json as Item | undefined) : undefined;
    if (o.readBack && !readBack)
      findings.add(`the car ${offeredWhat(o)} created, read back at GET /cars/{id}`, `status ${o.readBack.status}`, o.readBack.exchange);
    for (const [where, record, res] of [
      ['the answer', answer, o.res],
      ['the car read back', readBack, o.readBack],
    ] as Array<[string, Item | undefined, ApiResponse | undefined]>) {
      if (!record || typeof record !== 'object') continue;
      for (const member of o.members.filter((m) => m in record)) {
        // The documents say what two of them hold on a new car: the path's user; no device until one is associated.
        if (member === 'userId' && String(record.userId) !== ctx.data('userId'))
          findings.add(
            `${offeredWhat(o)}: ${where} is a car of the path's user ${ctx.data('userId')}`,
            `userId ${show(record.userId)}`,
            res?.exchange,
            '/userId',
          );
        else if (member === 'deviceId' && record.deviceId !== null)
          findings.add(`${offeredWhat(o)}: ${where} has no device (none was associated)`, `deviceId ${show(record.deviceId)}`, res?.exchange, '/deviceId');
        else if (member !== 'userId' && member !== 'deviceId' && isOffered(record[member], forged[member]))
          findings.add(`${offeredWhat(o)}: ${where} holds the server's ${member}`, `the offered ${show(record[member])}`, res?.exchange, `/${member}`);
      }
    }
  }
  findings.conclude(`the members of a created car its body does not take (${Object.keys(forged).join(', ')}) refused or left to the server`);
}

/** A member holds the value offered: the same instant for a date, the same text or number otherwise. */
function isOffered(value: unknown, forged: unknown): boolean {
  if (typeof value === 'string' && typeof forged === 'string' && isRfc3339DateTime(value) && isRfc3339DateTime(forged))
    return Date.parse(value) === Date.parse(forged);
  return value !== null && value !== undefined && String(value) === String(forged);
}
