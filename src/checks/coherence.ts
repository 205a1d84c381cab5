// Coherence across routes, only where it holds by definition: the same resource read through two
// routes is the same; a trip's statistics agree; GeoJSON carries exactly the locations' coordinates;
// a route by id answers the record asked for, and a car's trip list that car's trips only.
import {
  type CheckContext,
  deviceCars,
  differingFields,
  documentedOnly,
  expectJson,
  expectObject,
  expectObjects,
  fail,
  isSuiteCreatedCar,
  NotRun,
  sameNumber,
  sameUpToRounding,
  sameValue,
  show,
  unreadable,
} from '../check-api';

type Item = Record<string, unknown>;
const CAR_FIELDS = ['id', 'name', 'make', 'model', 'year', 'numberPlate', 'deviceId', 'cardbId', 'creationDate', 'lastUpdateDate'];
const TRIP_SUMMARY_FIELDS = ['id', 'beginLocation', 'endLocation', 'beginDate', 'endDate'];
/** At most this many records are compared one by one, to keep a run short on large accounts. */
const SAMPLE = 10;

type CallOptions = Parameters<CheckContext['call']>[1];

/**
 * Reads that do not depend on each other go together: each item's read is sent now, and the answers
 * are judged in the items' order, so the first failure in that order is the check's, as if they had
 * been sent one after another (a distant server then costs the check one round trip, not one per item).
 */
function together<T, R>(items: T[], send: (item: T) => Promise<R>): Array<[T, Promise<R>]> {
  return items.map((item) => {
    const answer = send(item);
    // Judged later, or never (an earlier item failed the check): its failure is not an unhandled one.
    answer.catch(() => undefined);
    return [item, answer];
  });
}

/** A success of the route (the profile's status; any 2xx for a core requirement). */
async function answer(ctx: CheckContext, routeId: string, options: CallOptions = {}) {
  const route = ctx.catalogue.route(routeId);
  const res = await ctx.call(route, options);
  ctx.expectSuccess(res, route, `reading ${routeId}`);
  return res;
}

/**
 * Any JSON body of the route's success, its shape judged by the caller. Core checks read through this
 * one and call unreadable() on a shape only the profile gives; profile checks use the two below.
 */
async function read(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<unknown> {
  return expectJson(await answer(ctx, routeId, options));
}

/** One record: anything but a JSON object fails here, before a member of it is read (profile checks). */
async function readRecord(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<Item> {
  return expectObject(await answer(ctx, routeId, options), `the record of ${routeId}`);
}

/** A list of records: anything but an array of JSON objects fails here, before a member is read (profile checks). */
async function readList(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<Item[]> {
  return expectObjects(await answer(ctx, routeId, options), `the records of ${routeId}`);
}

/** The connected user's id, read from /users/me through the profile's field name (user.id). */
async function connectedUserId(ctx: CheckContext, options: CallOptions = {}): Promise<string> {
  return idOf((await read(ctx, 'GET /users/me', options)) as Item);
}

/** A user record's id, read through the profile's field name (user.id). */
function idOf(me: Item): string {
  if (!me || typeof me !== 'object' || Array.isArray(me) || (typeof me.id !== 'number' && typeof me.id !== 'string')) {
    throw unreadable("GET /users/me has no id member (the profile's user record)", 'RESP-CONTRACT');
  }
  return String(me.id);
}

/** Cars the suite itself creates during the run may appear between two reads: leave them out. */
function stableCars(list: Item[]): Item[] {
  return list.filter((c) => !isSuiteCreatedCar(c));
}

/** A car list read by a core check: not a list of records is the profile's to judge (RESP-CONTRACT). */
async function readCars(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<Item[]> {
  const list = await read(ctx, routeId, options);
  if (!Array.isArray(list) || list.some((c) => !c || typeof c !== 'object' || Array.isArray(c))) {
    throw unreadable(`${routeId} is not an array of car records (the profile's car list)`, 'RESP-CONTRACT');
  }
  return stableCars(list as Item[]);
}

/**
 * The device checks associate devices with data.deviceCarId (and data.secondDeviceCarId: setup/device-pair.ts)
 * and dissociate them while the run goes on (in another worker, the route groups side by side): between
 * two reads such a car's deviceId, and the lastUpdateDate such a
 * change moves, may differ on a conforming server. Their other fields, and every other car, are compared
 * (COH-ME-CARS, COH-CAR-LIST-ITEM).
 */
const DEVICE_CAR_CHANGES = new Set(['deviceId', 'lastUpdateDate']);

function changedByTheRun(ctx: CheckContext, car: Item, field: string): boolean {
  return DEVICE_CAR_CHANGES.has(field) && deviceCars(ctx.run.data).includes(String(car.id));
}

/**
 * The two lists are read one after the other, so anything that writes between them (another route
 * group's checks side by side, a car the server wrongly accepted from CAR-CREATE-INVALID, another client
 * of a shared server) can make them differ on a conforming server. A difference is a failure only when
 * the two lists, read again, differ the same way: a server that lists the user's cars differently on
 * the two routes does so every time.
 */
export async function meCars(ctx: CheckContext): Promise<void> {
  const me = { id: await connectedUserId(ctx) };
  const first = await meCarsDifference(ctx, me.id);
  if (!first) return;
  const again = await meCarsDifference(ctx, me.id);
  if (again && sameValue(again, first)) fail(again);
}

/** How /users/me/cars and /users/{me.id}/cars differ, read one after the other; undefined when they agree. */
async function meCarsDifference(ctx: CheckContext, meId: string): Promise<{ expected: string; actual: string } | undefined> {
  const viaMe = await readCars(ctx, 'GET /users/me/cars');
  const viaId = await readCars(ctx, 'GET /users/{userId}/cars', { ids: { userId: meId } });
  const ids = (l: Item[]) => l.map((c) => String(c.id)).sort();
  if (!sameValue(ids(viaMe), ids(viaId))) {
    return { expected: `/users/me/cars and /users/${show(meId)}/cars list the same cars`, actual: `ids ${show(ids(viaMe))} vs ${show(ids(viaId))}` };
  }
  const byId = new Map(viaId.map((c) => [String(c.id), c]));
  for (const car of viaMe) {
    const diff = differingFields(car, byId.get(String(car.id))!, CAR_FIELDS).filter((f) => !changedByTheRun(ctx, car, f));
    if (diff.length) return { expected: `car ${show(car.id)} identical in both lists`, actual: `differs in ${diff.join(', ')}` };
  }
  return undefined;
}

/**
 * "Get the connected user" and "Get a specific user", and the user record (vehicle-data-service-v3.md
 * § Other resources: "the user carries an identifier, a last name, a first name"): the primary user's
 * token and the second user's read two different users at /users/me, each is the user GET /users/{id}
 * answers to that same token (a server answering one user to everyone, or each token another user,
 * shows here), and every one of these records carries its last and first name as text. The field
 * names are the profile's (id, lastName, firstName): a record without them is the profile's to judge.
 * The user's cars are COH-ME-CARS'.
 */
export async function coreMe(ctx: CheckContext): Promise<void> {
  const primary = await connectedUser(ctx);
  const other = await connectedUser(ctx, { token: 'otherUser' });
  if (primary.id === other.id) {
    fail({ expected: "GET /users/me answers the connected user: two users' tokens read two users", actual: `both read user ${show(primary.id)}` });
  }
  for (const [me, token] of [
    [primary, 'full'],
    [other, 'otherUser'],
  ] as const) {
    const user = (await read(ctx, 'GET /users/{userId}', { ids: { userId: me.id }, token })) as Item;
    if (String(user?.id) !== me.id) {
      fail({ expected: `GET /users/${me.id} is user ${me.id}, the connected user of /users/me for the same token (${token})`, actual: `id ${show(user?.id)}` });
    }
    expectNames(user, `GET /users/${me.id} (${token})`);
  }
}

/** The connected user of /users/me: its id, read through the profile's field name, and its names judged. */
async function connectedUser(ctx: CheckContext, options: CallOptions = {}): Promise<{ id: string }> {
  const me = (await read(ctx, 'GET /users/me', options)) as Item;
  const id = idOf(me);
  expectNames(me, `GET /users/me (${options.token ?? 'full'})`);
  return { id };
}

/** A user record carries a last and a first name (the profile's lastName and firstName), each a text. */
function expectNames(user: Item, where: string): void {
  for (const field of ['lastName', 'firstName']) {
    if (!(field in user)) throw unreadable(`${where} has no ${field} member (the profile's user record)`, 'RESP-CONTRACT');
    if (typeof user[field] !== 'string') {
      fail({
        expected: `${where}: the user's ${field === 'lastName' ? 'last' : 'first'} name, a text (the user carries a last name and a first name)`,
        actual: `${field} ${show(user[field])}`,
        pointer: `/${field}`,
      });
    }
  }
}

export async function meUser(ctx: CheckContext): Promise<void> {
  const me = await readRecord(ctx, 'GET /users/me');
  const byId = await readRecord(ctx, 'GET /users/{userId}', { ids: { userId: String(me.id) } });
  // The user's documented fields: members the documents do not show may differ from answer to answer.
  const diff = differingFields(me, byId, Object.keys(documentedOnly('user', me) as Item));
  if (diff.length) {
    fail({
      expected: `/users/${show(me.id)} is the connected user of /users/me`,
      actual: `differs in ${diff.map((f) => `${f} (${show(me[f])} vs ${show(byId[f])})`).join(', ')}`,
    });
  }
}

export async function carListItems(ctx: CheckContext): Promise<void> {
  const list = stableCars(await readList(ctx, 'GET /users/{userId}/cars'));
  if (list.length === 0) throw new NotRun('the user has no car to compare');
  for (const [car, read] of together(list.slice(0, SAMPLE), (c) => readRecord(ctx, 'GET /cars/{carId}', { ids: { carId: String(c.id) } }))) {
    const single = await read;
    // What the device checks change on their cars while the run goes on is left out (changedByTheRun).
    const diff = differingFields(car, single, CAR_FIELDS).filter((f) => !changedByTheRun(ctx, car, f));
    if (diff.length) {
      fail({
        expected: `car ${show(car.id)} of the list equals GET /cars/${show(car.id)}`,
        actual: `differs in ${diff.map((f) => `${f} (${show(car[f])} vs ${show(single[f])})`).join(', ')}`,
      });
    }
  }
}

/** The ids of a car's trips over the data window, read through the profile's field name (trip summary id). */
async function tripIdsOf(ctx: CheckContext, carId: string): Promise<string[]> {
  const trips = (await read(ctx, 'GET /cars/{carId}/trips', { ids: { carId }, query: ctx.window() })) as Item[];
  if (!Array.isArray(trips)) throw unreadable("GET /cars/{carId}/trips is not an array (the profile's trip list)", 'RESP-CONTRACT');
  const ids = trips.map((t) => t?.id);
  if (ids.some((id) => typeof id !== 'string' && typeof id !== 'number')) {
    throw unreadable("a trip of the list has no id member (the profile's trip summary)", 'RESP-CONTRACT');
  }
  return ids.map(String);
}

/**
 * The ids of the user's cars, read in the spec's one detailed answer (GET /users/{userId}/cars: car
 * records, whose id the spec states), the user's own cars before those the suite created. A list that
 * is not one is CORE-CAR-RECORD's to fail.
 */
async function userCarIds(ctx: CheckContext): Promise<string[]> {
  const list = await read(ctx, 'GET /users/{userId}/cars');
  if (!Array.isArray(list) || list.some((c) => !c || typeof c !== 'object' || (typeof (c as Item).id !== 'number' && typeof (c as Item).id !== 'string'))) {
    throw new NotRun(
      "GET /users/{userId}/cars is not an array of car records with ids, so this check cannot read the user's cars; CORE-CAR-RECORD judges that list",
    );
  }
  const cars = list as Item[];
  return [...stableCars(cars), ...cars.filter((c) => isSuiteCreatedCar(c))].map((c) => String(c.id));
}

/**
 * "The trips made by cars", "Get car trips": each trip of a car's list is a trip of the service (GET
 * /trips/{id} answers it), and a trip of that car: no other car of the user lists it over the same
 * range (a trip is made by one car). A user with one car is tried on the first part only, with a warning.
 */
export async function coreCarTrips(ctx: CheckContext): Promise<void> {
  const carId = ctx.data('carId');
  const ids = await tripIdsOf(ctx, carId);
  if (ids.length === 0) throw new NotRun('no trip in the data window');
  const reads = together(ids.slice(0, SAMPLE), (id) => read(ctx, 'GET /trips/{tripId}', { ids: { tripId: id } }));
  // The user's cars are read beside them, and judged after them, as before.
  const [[, userCars]] = together([carId], () => userCarIds(ctx));
  for (const [, answer] of reads) await answer;
  const others = (await userCars).filter((id) => id !== carId).slice(0, 8);
  if (others.length === 0) {
    ctx.warn('the user has one car: that its trips are listed for no other car cannot be observed');
    return;
  }
  const listed = new Set(ids);
  const { begin, end } = ctx.window();
  for (const [other, theirs] of together(others, (o) => tripIdsOf(ctx, o))) {
    const shared = (await theirs).filter((id) => listed.has(id));
    if (shared.length) {
      fail({
        expected: `each trip listed for the one car that made it: GET /cars/{carId}/trips ("Get car trips") of cars ${carId} and ${other} share no trip (begin=${begin}, end=${end})`,
        actual: `${shared.length} trip(s) listed for both, e.g. ${show(shared[0])}`,
      });
    }
  }
}

/** What each route by id answers, and where the ids to ask it come from. */
const BY_ID: Record<string, { param: string; resource: string; ids: (ctx: CheckContext) => Promise<string[]> }> = {
  'GET /cars/{carId}': { param: 'carId', resource: 'car', ids: userCarIds },
  'GET /trips/{tripId}': { param: 'tripId', resource: 'trip', ids: (ctx) => tripIdsOf(ctx, ctx.data('carId')) },
};

/**
 * "Get a car by id", "Get a trip by id": the record answered is the one asked for - its id is the id of
 * the path (read through the profile's field name, id). Several of the user's cars, several trips of
 * the data window are asked, not only the run's: a server answering another record of the same user
 * (the first car, the latest trip) shows on the others.
 */
export async function coreById(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const { param, resource, ids: idsOf } = BY_ID[route.route];
  const ids = (await idsOf(ctx)).slice(0, SAMPLE);
  if (ids.length === 0) throw new NotRun(`no ${resource} to ask for (${resource === 'car' ? 'the user has no car' : 'no trip in the data window'})`);
  for (const [id, answer] of together(ids, (i) => read(ctx, route.route, { ids: { [param]: i } }))) {
    const record = (await answer) as Item;
    if (!record || typeof record !== 'object' || Array.isArray(record) || (typeof record.id !== 'number' && typeof record.id !== 'string')) {
      throw unreadable(`${route.route} answered no record with an id member (the profile's ${resource} record)`, 'RESP-CONTRACT');
    }
    if (String(record.id) !== id) {
      fail({
        expected: `${route.route} with ${param}=${id} ("${route.purpose}"): ${resource} ${id}, the one asked for`,
        actual: `${resource} with id ${show(record.id)}`,
      });
    }
  }
}

export async function tripListItems(ctx: CheckContext): Promise<void> {
  const trips = await readList(ctx, 'GET /cars/{carId}/trips', { query: ctx.window() });
  if (trips.length === 0) throw new NotRun('no trip in the data window');
  for (const [summary, answer] of together(trips.slice(0, SAMPLE), (s) => readRecord(ctx, 'GET /trips/{tripId}', { ids: { tripId: String(s.id) } }))) {
    const trip = await answer;
    // Compared on the summary's documented members, the locations' included.
    const diff = differingFields(documentedOnly('tripSummary', summary) as Item, documentedOnly('tripSummary', trip) as Item, TRIP_SUMMARY_FIELDS);
    if (diff.length) {
      fail({
        expected: `trip ${show(summary.id)} of the car's list has the same summary fields at GET /trips/{id}`,
        actual: `differs in ${diff.map((f) => `${f} (${show(summary[f])} vs ${show(trip[f])})`).join(', ')}`,
      });
    }
  }
}

/** Trips whose statistics are compared: a few of the data window, else the run's trip. */
async function tripsToCompare(ctx: CheckContext): Promise<string[]> {
  if (!ctx.run.window) return [ctx.data('tripId')];
  const trips = await readList(ctx, 'GET /cars/{carId}/trips', { query: ctx.window() });
  const ids = trips.slice(0, 3).map((t) => String(t.id));
  return ids.length ? ids : [ctx.data('tripId')];
}

export async function tripStats(ctx: CheckContext): Promise<void> {
  for (const tripId of await tripsToCompare(ctx)) {
    const ids = { tripId };
    const [trip, stats, mileage, usedTime] = await Promise.all([
      readRecord(ctx, 'GET /trips/{tripId}', { ids }),
      readList(ctx, 'GET /trips/{tripId}/stats', { ids }),
      readRecord(ctx, 'GET /trips/{tripId}/stats/mileage', { ids }),
      readRecord(ctx, 'GET /trips/{tripId}/stats/usedtime', { ids }),
    ]);
    const entry = (type: string) => stats.find((s) => s.type === type)?.value;
    const compare = [
      ['mileage', trip.mileage, 'stats MILEAGE', entry('MILEAGE'), 'stats/mileage', mileage.value, 'km'],
      ['usedTime', trip.usedTime, 'stats USED_TIME', entry('USED_TIME'), 'stats/usedtime', usedTime.value, 's'],
    ] as const;
    for (const [field, value, entryName, entryValue, routeName, routeValue, unit] of compare) {
      const actual = `${field} ${show(value)}, ${entryName} ${show(entryValue)}, ${routeName} ${show(routeValue)}`;
      // One quantity in one unit (km, seconds) on every route; the precision each route writes it
      // with is not documented: only a difference rounding to whole units cannot explain fails.
      if (!sameUpToRounding(value, entryValue) || !sameUpToRounding(value, routeValue)) {
        fail({ expected: `trip ${show(trip.id)}: ${field}, its ${entryName} entry and ${routeName} are the same quantity in ${unit}`, actual });
      }
      if (!sameNumber(value, entryValue) || !sameNumber(value, routeValue)) ctx.warn(`trip ${show(trip.id)}: ${actual} (agree only up to rounding)`);
    }
  }
}

/**
 * GeoJSON carries exactly the locations' positions: one [longitude, latitude] per location. Neither
 * document states an order (of a list, or of the positions against the list: a LineString may run in
 * the order driven while the list is newest first), so the positions are matched as a multiset, and
 * another order only warns.
 */
function compareCoordinates(ctx: CheckContext, locations: Item[], coordinates: unknown[], what: string): void {
  if (locations.some((l) => typeof l?.longitude !== 'number' || typeof l?.latitude !== 'number')) {
    throw unreadable("a location has no numeric longitude and latitude (the profile's location record)", 'RESP-CONTRACT');
  }
  if (locations.length !== coordinates.length) {
    fail({ expected: `${what}: one position per location (${locations.length})`, actual: `${coordinates.length} positions` });
  }
  const position = (i: number) => (Array.isArray(coordinates[i]) ? (coordinates[i] as unknown[]) : []);
  const isAt = (p: unknown[], l: Item) => sameNumber(p[0], l.longitude) && sameNumber(p[1], l.latitude);
  if (locations.every((l, i) => isAt(position(i), l))) return;
  const unmatched = unmatchedPositions(
    locations,
    coordinates.map((_, i) => position(i)),
    isAt,
  );
  if (unmatched.length) {
    const i = unmatched[0];
    const swapped = locations.findIndex((l) => isAt([position(i)[1], position(i)[0]], l));
    fail({
      expected: `${what}: every position is the [longitude, latitude] of one of the ${locations.length} locations`,
      actual:
        `position ${i} = ${show(coordinates[i])} is none of them${swapped >= 0 ? ` (it is [latitude, longitude] of location ${swapped})` : ''}` +
        `${unmatched.length > 1 ? `; ${unmatched.length} positions match no location` : ''}`,
      pointer: `/${i}`,
    });
  }
  ctx.warn(`${what}: the positions are the locations' in another order (neither document states an order)`);
}

/** The indexes of positions matching no location, each location matched once (exact keys first, then isAt). */
function unmatchedPositions(locations: Item[], positions: unknown[][], isAt: (p: unknown[], l: Item) => boolean): number[] {
  return matchPositions(locations, positions, isAt).positions;
}

/**
 * Positions matched with locations one to one (exact keys first, then up to rounding noise): the
 * indexes of the positions and of the locations left unmatched.
 */
function matchPositions(locations: Item[], positions: unknown[][], isAt: (p: unknown[], l: Item) => boolean): { positions: number[]; locations: number[] } {
  const key = (lon: unknown, lat: unknown) => JSON.stringify([lon, lat]);
  const byKey = new Map<string, number[]>();
  locations.forEach((l, i) => byKey.set(key(l.longitude, l.latitude), [...(byKey.get(key(l.longitude, l.latitude)) ?? []), i]));
  const inexact: number[] = [];
  positions.forEach((p, i) => {
    const left = byKey.get(key(p[0], p[1]));
    if (left?.length) left.shift();
    else inexact.push(i);
  });
  // Locations not matched exactly, matched up to rounding noise (a route writing fewer decimals).
  const remaining = [...byKey.values()].flat().sort((a, b) => a - b);
  const unmatched = inexact.filter((i) => {
    const at = remaining.findIndex((l) => isAt(positions[i], locations[l]));
    if (at < 0) return true;
    remaining.splice(at, 1);
    return false;
  });
  return { positions: unmatched, locations: remaining };
}

/**
 * Over one range, the car GeoJSON holds other locations than the locations route when one of the two
 * routes does not apply the range (the profile's query parameter, QUERY-RANGE and QUERY-RANGE-GEOJSON
 * judge it): GeoJSON positions beyond the locations, or locations missing from it that lie outside the
 * range. Only a difference the range cannot explain is this core requirement's to fail.
 */
function rangeDifference(locations: Item[], coordinates: unknown[], range: { begin: string; end: string }): string | undefined {
  const positions = coordinates.map((c) => (Array.isArray(c) ? c : []));
  const isAt = (p: unknown[], l: Item) => sameNumber(p[0], l.longitude) && sameNumber(p[1], l.latitude);
  const left = matchPositions(locations, positions, isAt);
  if (left.positions.length > 0 && left.locations.length === 0)
    return `the GeoJSON holds ${left.positions.length} position(s) more than the locations route over the same range`;
  const outside = (i: number) => {
    const t = Date.parse(String(locations[i].date));
    return t < Date.parse(range.begin) || t > Date.parse(range.end);
  };
  if (left.positions.length === 0 && left.locations.length > 0 && left.locations.every(outside)) {
    return `the locations route holds ${left.locations.length} location(s) outside the range, which the GeoJSON leaves out`;
  }
  return undefined;
}

/**
 * The car GeoJSON is the car's location history in another format (the spec), compared with the
 * locations route over the data window. The range is the profile's (the spec shows no query
 * parameter): a server that does not honour it on one of the two routes is QUERY-RANGE-GEOJSON's (or
 * QUERY-RANGE's) to fail, never this core requirement. So when the two answers over the window differ,
 * the two routes are compared as they answer without any parameter; only a difference there too that
 * no range explains fails.
 */
export async function geojsonCar(ctx: CheckContext): Promise<void> {
  const query = ctx.window();
  const [locations, geojson] = await Promise.all([
    read(ctx, 'GET /cars/{carId}/locations', { query }) as Promise<Item[]>,
    read(ctx, 'GET /cars/{carId}/locations.geojson', { query }),
  ]);
  if (!Array.isArray(locations) || locations.length === 0) throw new NotRun('no location in the data window');
  const coordinates = geojsonPoints(geojson);
  if (!samePositions(locations, coordinates)) {
    const [plain, plainGeojson] = await Promise.all([read(ctx, 'GET /cars/{carId}/locations'), read(ctx, 'GET /cars/{carId}/locations.geojson')]);
    if (Array.isArray(plain) && plain.length > 0 && samePositions(plain as Item[], geojsonPoints(plainGeojson))) {
      compareCoordinates(ctx, plain as Item[], geojsonPoints(plainGeojson), 'car locations.geojson (without begin and end)');
      return;
    }
    const rangeProblem = rangeDifference(locations, coordinates, query);
    if (rangeProblem) throw unreadable(`${rangeProblem}: one of the two routes does not apply begin and end`, 'QUERY-RANGE-GEOJSON (or QUERY-RANGE)');
  }
  compareCoordinates(ctx, locations, coordinates, 'car locations.geojson');
}

/** The positions of the car GeoJSON (the profile's array of Points), or not run naming RESP-CONTRACT. */
function geojsonPoints(geojson: unknown): unknown[] {
  if (!Array.isArray(geojson) || geojson.some((p) => !Array.isArray((p as Item)?.coordinates))) {
    throw unreadable("the car GeoJSON is not an array of objects with coordinates (the profile's array of Points)", 'RESP-CONTRACT');
  }
  return geojson.map((p) => (p as Item).coordinates);
}

/** One position per location and each the [longitude, latitude] of one of them (any order, up to rounding). */
function samePositions(locations: Item[], coordinates: unknown[]): boolean {
  if (locations.length !== coordinates.length) return false;
  const positions = coordinates.map((c) => (Array.isArray(c) ? c : []));
  const left = matchPositions(locations, positions, (p, l) => sameNumber(p[0], l.longitude) && sameNumber(p[1], l.latitude));
  return left.positions.length === 0 && left.locations.length === 0;
}

export async function geojsonTrip(ctx: CheckContext): Promise<void> {
  const locations = (await read(ctx, 'GET /trips/{tripId}/locations')) as Item[];
  const line = (await read(ctx, 'GET /trips/{tripId}/locations.geojson')) as Item;
  if (!Array.isArray(locations)) throw unreadable("the trip locations are not an array (the profile's array of location)", 'RESP-CONTRACT');
  if (!Array.isArray(line?.coordinates)) throw unreadable("the trip GeoJSON has no coordinates array (the profile's LineString)", 'RESP-CONTRACT');
  compareCoordinates(ctx, locations, line.coordinates as unknown[], 'trip locations.geojson');
}

/**
 * "The locations / signals of the car during the trip": dated within the trip, to the second (a route
 * may write its dates with another precision: the trip's in whole seconds, its items' with fractions).
 */
export async function tripWindow(ctx: CheckContext): Promise<void> {
  const trip = (await read(ctx, 'GET /trips/{tripId}')) as Item;
  const begin = Math.floor(Date.parse(String(trip?.beginDate)) / 1000) * 1000;
  const end = Math.floor(Date.parse(String(trip?.endDate)) / 1000) * 1000 + 999;
  if (Number.isNaN(begin) || Number.isNaN(end)) throw unreadable("the trip has no beginDate and endDate dates (the profile's trip record)", 'RESP-CONTRACT');
  for (const routeId of ['GET /trips/{tripId}/locations', 'GET /trips/{tripId}/signals']) {
    const items = (await read(ctx, routeId)) as Item[];
    if (!Array.isArray(items)) throw unreadable(`${routeId} is not an array (the profile's records)`, 'RESP-CONTRACT');
    if (items.some((item) => Number.isNaN(Date.parse(String(item?.date)))))
      throw unreadable(`an item of ${routeId} has no date (the profile's records)`, 'RESP-CONTRACT');
    items.forEach((item, i) => {
      const t = Date.parse(String(item.date));
      if (!(t >= begin && t <= end)) {
        fail({
          expected: `${routeId}: items dated during trip ${show(trip.id)} (${show(trip.beginDate)} .. ${show(trip.endDate)})`,
          actual: `item ${i} dated ${show(item.date)}`,
          pointer: `/${i}/date`,
        });
      }
    });
  }
}
