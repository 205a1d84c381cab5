// Coherence across routes, only where it holds by definition: the same resource read through two
// routes is the same; a trip's statistics agree; GeoJSON carries exactly the locations' coordinates.
import { differingFields, expectJson, expectStatus, sameNumber, sameUpToRounding, sameValue } from '../../../harness/assertions';
import { CREATED_CAR_PREFIX, type CheckContext } from '../../../harness/check-context';
import { fail, NotRun, show } from '../../../harness/outcome';

type Item = Record<string, unknown>;
const CAR_FIELDS = ['id', 'name', 'make', 'model', 'year', 'numberPlate', 'deviceId', 'cardbId', 'creationDate', 'lastUpdateDate'];
const TRIP_SUMMARY_FIELDS = ['id', 'beginLocation', 'endLocation', 'beginDate', 'endDate'];
/** At most this many records are compared one by one, to keep a run short on large accounts. */
const SAMPLE = 10;

async function read(ctx: CheckContext, routeId: string, options: Parameters<CheckContext['call']>[1] = {}): Promise<unknown> {
  const route = ctx.catalogue.route(routeId);
  const res = await ctx.call(route, options);
  expectStatus(res, route.success.status, `reading ${routeId}`);
  return expectJson(res);
}

/** Cars the suite itself creates during the run may appear between two reads: leave them out. */
function stableCars(list: unknown): Item[] {
  return (Array.isArray(list) ? (list as Item[]) : []).filter((c) => c.make !== CREATED_CAR_PREFIX && !String(c.name ?? '').startsWith(CREATED_CAR_PREFIX));
}

export async function meCars(ctx: CheckContext): Promise<void> {
  const me = (await read(ctx, 'GET /users/me')) as Item;
  const viaMe = stableCars(await read(ctx, 'GET /users/me/cars'));
  const viaId = stableCars(await read(ctx, 'GET /users/{userId}/cars', { ids: { userId: String(me.id) } }));
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
  const me = (await read(ctx, 'GET /users/me')) as Item;
  const byId = (await read(ctx, 'GET /users/{userId}', { ids: { userId: String(me.id) } })) as Item;
  const diff = differingFields(me, byId, Object.keys(me));
  if (diff.length) {
    fail({ expected: `/users/${show(me.id)} is the connected user of /users/me`, actual: `differs in ${diff.map((f) => `${f} (${show(me[f])} vs ${show(byId[f])})`).join(', ')}` });
  }
}

export async function carListItems(ctx: CheckContext): Promise<void> {
  const list = stableCars(await read(ctx, 'GET /users/{userId}/cars'))
    // The device checks change this car's deviceId while the run goes on.
    .filter((c) => String(c.id) !== ctx.run.data.deviceCarId);
  if (list.length === 0) throw new NotRun('the user has no car to compare');
  for (const car of list.slice(0, SAMPLE)) {
    const single = (await read(ctx, 'GET /cars/{carId}', { ids: { carId: String(car.id) } })) as Item;
    const diff = differingFields(car, single, CAR_FIELDS);
    if (diff.length) {
      fail({ expected: `car ${show(car.id)} of the list equals GET /cars/${show(car.id)}`, actual: `differs in ${diff.map((f) => `${f} (${show(car[f])} vs ${show(single[f])})`).join(', ')}` });
    }
  }
}

export async function tripListItems(ctx: CheckContext): Promise<void> {
  const trips = (await read(ctx, 'GET /cars/{carId}/trips', { query: ctx.window() })) as Item[];
  if (!Array.isArray(trips) || trips.length === 0) throw new NotRun('no trip in the data window');
  for (const summary of trips.slice(0, SAMPLE)) {
    const trip = (await read(ctx, 'GET /trips/{tripId}', { ids: { tripId: String(summary.id) } })) as Item;
    const diff = differingFields(summary, trip, TRIP_SUMMARY_FIELDS);
    if (diff.length) {
      fail({ expected: `trip ${show(summary.id)} of the car's list has the same summary fields at GET /trips/{id}`, actual: `differs in ${diff.map((f) => `${f} (${show(summary[f])} vs ${show(trip[f])})`).join(', ')}` });
    }
  }
}

/** Trips whose statistics are compared: a few of the data window, else the run's trip. */
async function tripsToCompare(ctx: CheckContext): Promise<string[]> {
  if (!ctx.run.window) return [ctx.data('tripId')];
  const trips = (await read(ctx, 'GET /cars/{carId}/trips', { query: ctx.window() })) as Item[];
  const ids = Array.isArray(trips) ? trips.slice(0, 3).map((t) => String(t.id)) : [];
  return ids.length ? ids : [ctx.data('tripId')];
}

export async function tripStats(ctx: CheckContext): Promise<void> {
  for (const tripId of await tripsToCompare(ctx)) {
    const ids = { tripId };
    const [trip, stats, mileage, usedTime] = (await Promise.all([
      read(ctx, 'GET /trips/{tripId}', { ids }),
      read(ctx, 'GET /trips/{tripId}/stats', { ids }),
      read(ctx, 'GET /trips/{tripId}/stats/mileage', { ids }),
      read(ctx, 'GET /trips/{tripId}/stats/usedtime', { ids }),
    ])) as [Item, Item[], Item, Item];
    const entry = (type: string) => (Array.isArray(stats) ? stats.find((s) => s.type === type)?.value : undefined);
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

function compareCoordinates(locations: Item[], coordinates: unknown[], what: string): void {
  if (locations.length !== coordinates.length) {
    fail({ expected: `${what}: one position per location (${locations.length})`, actual: `${coordinates.length} positions` });
  }
  locations.forEach((l, i) => {
    const position = coordinates[i] as unknown[];
    if (!Array.isArray(position) || !sameNumber(position[0], l.longitude) || !sameNumber(position[1], l.latitude)) {
      fail({
        expected: `${what}: position ${i} is [longitude, latitude] of location ${i} = [${show(l.longitude)}, ${show(l.latitude)}]`,
        actual: show(position),
        pointer: `/${i}`,
      });
    }
  });
}

export async function geojsonCar(ctx: CheckContext): Promise<void> {
  const query = ctx.window();
  const locations = (await read(ctx, 'GET /cars/{carId}/locations', { query })) as Item[];
  if (!Array.isArray(locations) || locations.length === 0) throw new NotRun('no location in the data window');
  const geojson = await read(ctx, 'GET /cars/{carId}/locations.geojson', { query });
  if (!Array.isArray(geojson)) fail({ expected: 'an array of GeoJSON Points', actual: show(geojson) });
  compareCoordinates(locations, geojson.map((p) => (p as Item)?.coordinates), 'car locations.geojson');
}

export async function geojsonTrip(ctx: CheckContext): Promise<void> {
  const locations = (await read(ctx, 'GET /trips/{tripId}/locations')) as Item[];
  const line = (await read(ctx, 'GET /trips/{tripId}/locations.geojson')) as Item;
  if (!Array.isArray(locations)) fail({ expected: 'an array of locations', actual: show(locations) });
  if (!Array.isArray(line?.coordinates)) fail({ expected: 'a GeoJSON LineString with coordinates', actual: show(line) });
  compareCoordinates(locations, line.coordinates as unknown[], 'trip locations.geojson');
}

/** "The locations / signals of the car during the trip": dated within the trip. */
export async function tripWindow(ctx: CheckContext): Promise<void> {
  const trip = (await read(ctx, 'GET /trips/{tripId}')) as Item;
  const begin = Date.parse(String(trip.beginDate));
  const end = Date.parse(String(trip.endDate));
  for (const routeId of ['GET /trips/{tripId}/locations', 'GET /trips/{tripId}/signals']) {
    const items = (await read(ctx, routeId)) as Item[];
    if (!Array.isArray(items)) fail({ expected: `${routeId}: an array`, actual: show(items) });
    items.forEach((item, i) => {
      const t = Date.parse(String(item.date));
      if (!(t >= begin && t <= end)) {
        fail({ expected: `${routeId}: items dated during trip ${show(trip.id)} (${show(trip.beginDate)} .. ${show(trip.endDate)})`, actual: `item ${i} dated ${show(item.date)}`, pointer: `/${i}/date` });
      }
    });
  }
}
