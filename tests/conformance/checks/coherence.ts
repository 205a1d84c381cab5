// Coherence across routes, only where it holds by definition: the same resource read through two
// routes is the same; a trip's statistics agree; GeoJSON carries exactly the locations' coordinates.
import { differingFields, expectJson, expectObject, expectObjects, expectStatus, sameNumber, sameUpToRounding, sameValue } from '../../../harness/assertions';
import { isSuiteCreatedCar, type CheckContext } from '../../../harness/check-context';
import { documentedOnly } from '../../../harness/contracts';
import { fail, NotRun, show } from '../../../harness/outcome';

type Item = Record<string, unknown>;
const CAR_FIELDS = ['id', 'name', 'make', 'model', 'year', 'numberPlate', 'deviceId', 'cardbId', 'creationDate', 'lastUpdateDate'];
const TRIP_SUMMARY_FIELDS = ['id', 'beginLocation', 'endLocation', 'beginDate', 'endDate'];
/** At most this many records are compared one by one, to keep a run short on large accounts. */
const SAMPLE = 10;

type CallOptions = Parameters<CheckContext['call']>[1];

async function answer(ctx: CheckContext, routeId: string, options: CallOptions = {}) {
  const route = ctx.catalogue.route(routeId);
  const res = await ctx.call(route, options);
  expectStatus(res, route.success.status, `reading ${routeId}`);
  return res;
}

/** Any JSON body of the route's success (its shape is judged by the caller). */
async function read(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<unknown> {
  return expectJson(await answer(ctx, routeId, options));
}

/** One record: anything but a JSON object fails here, before a member of it is read. */
async function readRecord(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<Item> {
  return expectObject(await answer(ctx, routeId, options), `the record of ${routeId}`);
}

/** A list of records: anything but an array of JSON objects fails here, before a member is read. */
async function readList(ctx: CheckContext, routeId: string, options: CallOptions = {}): Promise<Item[]> {
  return expectObjects(await answer(ctx, routeId, options), `the records of ${routeId}`);
}

/** Cars the suite itself creates during the run may appear between two reads: leave them out. */
function stableCars(list: Item[]): Item[] {
  return list.filter((c) => !isSuiteCreatedCar(c));
}

export async function meCars(ctx: CheckContext): Promise<void> {
  const me = await readRecord(ctx, 'GET /users/me');
  const viaMe = stableCars(await readList(ctx, 'GET /users/me/cars'));
  const viaId = stableCars(await readList(ctx, 'GET /users/{userId}/cars', { ids: { userId: String(me.id) } }));
  const ids = (l: Item[]) => l.map((c) => String(c.id)).sort();
  if (!sameValue(ids(viaMe), ids(viaId))) {
    fail({ expected: `/users/me/cars and /users/${show(me.id)}/cars list the same cars`, actual: `ids ${show(ids(viaMe))} vs ${show(ids(viaId))}` });
  }
  const byId = new Map(viaId.map((c) => [String(c.id), c]));
  for (const car of viaMe) {
    const diff = differingFields(car, byId.get(String(car.id))!, CAR_FIELDS).filter((f) => !(f === 'deviceId' && String(car.id) === ctx.run.data.deviceCarId));
    if (diff.length) fail({ expected: `car ${show(car.id)} identical in both lists`, actual: `differs in ${diff.join(', ')}` });
  }
}

export async function meUser(ctx: CheckContext): Promise<void> {
  const me = await readRecord(ctx, 'GET /users/me');
  const byId = await readRecord(ctx, 'GET /users/{userId}', { ids: { userId: String(me.id) } });
  // The user's documented fields: members the documents do not show may differ from answer to answer.
  const diff = differingFields(me, byId, Object.keys(documentedOnly('user', me) as Item));
  if (diff.length) {
    fail({ expected: `/users/${show(me.id)} is the connected user of /users/me`, actual: `differs in ${diff.map((f) => `${f} (${show(me[f])} vs ${show(byId[f])})`).join(', ')}` });
  }
}

export async function carListItems(ctx: CheckContext): Promise<void> {
  const list = stableCars(await readList(ctx, 'GET /users/{userId}/cars'))
    // The device checks change this car's deviceId while the run goes on.
    .filter((c) => String(c.id) !== ctx.run.data.deviceCarId);
  if (list.length === 0) throw new NotRun('the user has no car to compare');
  for (const car of list.slice(0, SAMPLE)) {
    const single = await readRecord(ctx, 'GET /cars/{carId}', { ids: { carId: String(car.id) } });
    const diff = differingFields(car, single, CAR_FIELDS);
    if (diff.length) {
      fail({ expected: `car ${show(car.id)} of the list equals GET /cars/${show(car.id)}`, actual: `differs in ${diff.map((f) => `${f} (${show(car[f])} vs ${show(single[f])})`).join(', ')}` });
    }
  }
}

export async function tripListItems(ctx: CheckContext): Promise<void> {
  const trips = await readList(ctx, 'GET /cars/{carId}/trips', { query: ctx.window() });
  if (trips.length === 0) throw new NotRun('no trip in the data window');
  for (const summary of trips.slice(0, SAMPLE)) {
    const trip = await readRecord(ctx, 'GET /trips/{tripId}', { ids: { tripId: String(summary.id) } });
    // Compared on the summary's documented members, the locations' included.
    const diff = differingFields(documentedOnly('tripSummary', summary) as Item, documentedOnly('tripSummary', trip) as Item, TRIP_SUMMARY_FIELDS);
    if (diff.length) {
      fail({ expected: `trip ${show(summary.id)} of the car's list has the same summary fields at GET /trips/{id}`, actual: `differs in ${diff.map((f) => `${f} (${show(summary[f])} vs ${show(trip[f])})`).join(', ')}` });
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
  if (locations.length !== coordinates.length) {
    fail({ expected: `${what}: one position per location (${locations.length})`, actual: `${coordinates.length} positions` });
  }
  const position = (i: number) => (Array.isArray(coordinates[i]) ? (coordinates[i] as unknown[]) : []);
  const isAt = (p: unknown[], l: Item) => sameNumber(p[0], l.longitude) && sameNumber(p[1], l.latitude);
  if (locations.every((l, i) => isAt(position(i), l))) return;
  const unmatched = unmatchedPositions(locations, coordinates.map((_, i) => position(i)), isAt);
  if (unmatched.length) {
    const i = unmatched[0];
    const swapped = locations.findIndex((l) => isAt([position(i)[1], position(i)[0]], l));
    fail({
      expected: `${what}: every position is the [longitude, latitude] of one of the ${locations.length} locations`,
      actual: `position ${i} = ${show(coordinates[i])} is none of them${swapped >= 0 ? ` (it is [latitude, longitude] of location ${swapped})` : ''}` +
        `${unmatched.length > 1 ? `; ${unmatched.length} positions match no location` : ''}`,
      pointer: `/${i}`,
    });
  }
  ctx.warn(`${what}: the positions are the locations' in another order (neither document states an order)`);
}

/** The indexes of positions matching no location, each location matched once (exact keys first, then isAt). */
function unmatchedPositions(locations: Item[], positions: unknown[][], isAt: (p: unknown[], l: Item) => boolean): number[] {
  const key = (lon: unknown, lat: unknown) => JSON.stringify([lon, lat]);
  const byKey = new Map<string, number>();
  for (const l of locations) byKey.set(key(l.longitude, l.latitude), (byKey.get(key(l.longitude, l.latitude)) ?? 0) + 1);
  const inexact: number[] = [];
  positions.forEach((p, i) => {
    const k = key(p[0], p[1]);
    const left = byKey.get(k) ?? 0;
    if (left > 0) byKey.set(k, left - 1);
    else inexact.push(i);
  });
  // Locations not matched exactly, matched up to rounding noise (a route writing fewer decimals).
  const remaining = locations.filter((l) => {
    const k = key(l.longitude, l.latitude);
    const left = byKey.get(k) ?? 0;
    if (left === 0) return false;
    byKey.set(k, left - 1);
    return true;
  });
  return inexact.filter((i) => {
    const at = remaining.findIndex((l) => isAt(positions[i], l));
    if (at < 0) return true;
    remaining.splice(at, 1);
    return false;
  });
}

export async function geojsonCar(ctx: CheckContext): Promise<void> {
  const query = ctx.window();
  const locations = await readList(ctx, 'GET /cars/{carId}/locations', { query });
  if (locations.length === 0) throw new NotRun('no location in the data window');
  const geojson = await read(ctx, 'GET /cars/{carId}/locations.geojson', { query });
  if (!Array.isArray(geojson)) fail({ expected: 'an array of GeoJSON Points', actual: show(geojson) });
  compareCoordinates(ctx, locations, geojson.map((p) => (p as Item)?.coordinates), 'car locations.geojson');
}

export async function geojsonTrip(ctx: CheckContext): Promise<void> {
  const locations = await readList(ctx, 'GET /trips/{tripId}/locations');
  const line = (await read(ctx, 'GET /trips/{tripId}/locations.geojson')) as Item | null;
  if (!Array.isArray(line?.coordinates)) fail({ expected: 'a GeoJSON LineString with coordinates', actual: show(line) });
  compareCoordinates(ctx, locations, line.coordinates as unknown[], 'trip locations.geojson');
}

/**
 * "The locations / signals of the car during the trip": dated within the trip, to the second (a route
 * may write its dates with another precision: the trip's in whole seconds, its items' with fractions).
 */
export async function tripWindow(ctx: CheckContext): Promise<void> {
  const trip = await readRecord(ctx, 'GET /trips/{tripId}');
  const begin = Math.floor(Date.parse(String(trip.beginDate)) / 1000) * 1000;
  const end = Math.floor(Date.parse(String(trip.endDate)) / 1000) * 1000 + 999;
  for (const routeId of ['GET /trips/{tripId}/locations', 'GET /trips/{tripId}/signals']) {
    const items = await readList(ctx, routeId);
    items.forEach((item, i) => {
      const t = Date.parse(String(item.date));
      if (!(t >= begin && t <= end)) {
        fail({ expected: `${routeId}: items dated during trip ${show(trip.id)} (${show(trip.beginDate)} .. ${show(trip.endDate)})`, actual: `item ${i} dated ${show(item.date)}`, pointer: `/${i}/date` });
      }
    });
  }
}
