// Cars routes: the car record, its status, location history (plain and GeoJSON), signal history,
// trips and the two statistics. Every list is in ascending date order (but under newest-first).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formatRfc3339 } from '../clock';
import type { AppContext } from '../context';
import { round } from '../data/geo';
import type { Car, Signal, Trip } from '../data/types';
import { parametersError } from '../http/errors';
import {
  applyLimit,
  asQuery,
  geojsonOrder,
  historyOrder,
  inRange,
  nameSelected,
  parseInclusive,
  parseInitialValue,
  parseLimit,
  parseRange,
  parseSignalNames,
  Range,
} from '../http/params';
import { carStatView, carView, locationView, pointView, signalView, StatType, statusView, tripSummaryView } from '../http/views';
import { sendGeoJson } from './geojson';
import { loadCar } from './loaders';
import { register, type Steps } from './register';

type CarRequest = FastifyRequest<{ Params: { carId: string } }>;

/** Trips that began and ended inside the range: the default of /trips and the basis of the stats. */
function tripsWithin(trips: readonly Trip[], range: Range): Trip[] {
  return trips.filter((t) => inRange(t.beginDate, range) && inRange(t.endDate, range));
}

/**
 * Trips that began or ended inside the range (inclusive=true); `endOnly` (fault inclusive-end-only):
 * those that ended in it; `anyOverlap` (fault inclusive-ignores-range): an overlap test written with OR
 * (began before end, or ended after begin), which every trip passes.
 */
function tripsTouching(trips: readonly Trip[], range: Range, { endOnly = false, anyOverlap = false } = {}): Trip[] {
  if (anyOverlap) return trips.filter((t) => t.beginDate <= range.end || t.endDate >= range.begin);
  return trips.filter((t) => (inRange(t.beginDate, range) && !endOnly) || inRange(t.endDate, range));
}

/** The latest signal of each name (fault name-filter-latest-only), in the list's order. */
export function latestOfEachName(signals: readonly Signal[]): Signal[] {
  const latest = new Map<string, Signal>();
  for (const s of signals) latest.set(s.name, s);
  const kept = new Set(latest.values());
  return signals.filter((s) => kept.has(s));
}

export function carsRoutes(ctx: AppContext) {
  const { store, faults, variants } = ctx;
  const now = () => ctx.now();
  const load = (request: CarRequest) => () => loadCar(ctx, request.params.carId);

  /** The range of a route taking limit: begin/end with their defaults. */
  const rangeOf = (q: ReturnType<typeof asQuery>, limit: number | null): Range =>
    // fault limit-skips-default-range: a "latest n" shortcut when only limit is given: the whole history up to now.
    faults.has('limit-skips-default-range') && limit !== null && q.begin === undefined && q.end === undefined
      ? { begin: Number.NEGATIVE_INFINITY, end: now() }
      : parseRange(q, now(), ctx);
  /** The query of the two location routes: the range, then the limit. */
  const rangeAndLimit = (request: CarRequest) => () => {
    const q = asQuery(request.query);
    const limit = parseLimit(q, ctx);
    return { range: rangeOf(q, limit), limit };
  };
  /** A history's items in the range, then the limit (fault limit-before-range: the limit first, on the whole history). */
  const inRangeLimited = <T extends { date: number }>(items: readonly T[], range: Range, limit: number | null): T[] =>
    faults.has('limit-before-range')
      ? applyLimit(items, limit, variants).filter((i) => inRange(i.date, range))
      : applyLimit(
          items.filter((i) => inRange(i.date, range)),
          limit,
          variants,
        );
  /**
   * The history of the car a route answers about: the path's car, the one the owner check passed. Fault
   * blind-query-carid-overrides-path: read through a helper that prefers a legacy ?carId= (as v2 clients
   * sent it) over the path, after the owner check ran on the path's car.
   */
  const historyOf = (car: Car, request: CarRequest) => {
    const legacy = asQuery(request.query).carId;
    const other = faults.has('blind-query-carid-overrides-path') && typeof legacy === 'string' ? store.car(Number(legacy)) : undefined;
    return store.history(other ? other.id : car.id);
  };
  const locationsIn = (car: Car, request: CarRequest, range: Range) => historyOf(car, request).locations.filter((l) => inRange(l.date, range));

  /** The two car stats routes: one sum over the trips of the range, of the mileage or the used time. */
  const stat =
    (type: StatType) =>
    (request: CarRequest): Steps<Car, { range: Range; initialValue: number }> => ({
      load: load(request),
      query: () => {
        const q = asQuery(request.query);
        return { range: parseRange(q, now(), ctx), initialValue: parseInitialValue(q) };
      },
      respond: (car, { range: asked, initialValue }) => {
        // fault car-stats-range-ignored: the statistic is always that of the default range (this month).
        const range = faults.has('car-stats-range-ignored') ? parseRange({}, now(), ctx) : asked;
        const all = historyOf(car, request).trips;
        // fault car-stats-all-time: the range is parsed but never applied.
        const trips = faults.has('car-stats-all-time') ? [...all] : tripsWithin(all, range);
        // variant stats-no-data-404: a range without trips has no statistic (decision table: 0 or 404).
        if (trips.length === 0 && variants.has('stats-no-data-404'))
          throw parametersError(404, 'Statistics not found', 'Give a range in which the car made trips');
        const sum = trips.reduce((acc, t) => acc + (type === 'MILEAGE' ? t.mileage : t.usedTime), 0);
        // fault initial-value-ignored: the offset is parsed and dropped.
        // fault initial-value-ignored-with-range: the offset is dropped when begin or end is given (another query path).
        const ranged = ['begin', 'end'].some((k) => asQuery(request.query)[k] !== undefined);
        // fault initial-value-parse-int: the offset read as an integer (parseInt), its fraction dropped (reached only with a fraction).
        const read = !Number.isInteger(initialValue) && faults.has('initial-value-parse-int') ? Math.trunc(initialValue) : initialValue;
        const offset = faults.has('initial-value-ignored') || (ranged && faults.has('initial-value-ignored-with-range')) ? 0 : read;
        // A range without trips answers 0 + initialValue (profile decision: 0 or 404 both conform).
        // fault car-usedtime-ms: the used time summed from a column of milliseconds.
        const value = type === 'MILEAGE' ? round(sum + offset, 3) : (faults.has('car-usedtime-ms') ? sum * 1000 : sum) + offset;
        return carStatView(type, value, range.begin, range.end, ctx);
      },
    });

  return async function plugin(app: FastifyInstance): Promise<void> {
    register(app, ctx, 'GET /cars/:carId', (request: CarRequest) => ({
      load: load(request),
      // fault car-by-id-first-car: the lookup keeps the owner check and answers the owner's first car.
      respond: (car) => carView(faults.has('car-by-id-first-car') ? store.carsOfUser(car.userId)[0] : car, ctx),
    }));

    register(app, ctx, 'GET /cars/:carId/status', (request: CarRequest) => ({
      load: load(request),
      respond: (car) => statusView(historyOf(car, request), now(), ctx),
    }));

    register(app, ctx, 'GET /cars/:carId/locations', (request: CarRequest) => ({
      load: load(request),
      query: rangeAndLimit(request),
      respond: (car, { range: asked, limit }) => {
        // fault locations-end-ignored: the filter reads begin only.
        const range = faults.has('locations-end-ignored') ? { begin: asked.begin, end: now() } : asked;
        // fault limit-ignored: the parsed limit is never applied.
        const items = faults.has('limit-ignored') ? locationsIn(car, request, range) : inRangeLimited(historyOf(car, request).locations, range, limit);
        return historyOrder(items, variants).map((l) => locationView(l, ctx));
      },
    }));

    register(app, ctx, 'GET /cars/:carId/locations.geojson', (request: CarRequest, reply: FastifyReply) => ({
      load: load(request),
      query: rangeAndLimit(request),
      respond: (car, { range, limit }) => {
        // faults limit-ignored / geojson-limit-ignored: the GeoJSON variant drops the limit.
        const ignore = faults.has('limit-ignored') || faults.has('geojson-limit-ignored');
        // fault geojson-range-ignored: the GeoJSON variant reads the whole history, whatever begin and end.
        const all = historyOf(car, request).locations;
        // fault geojson-range-default-only: the GeoJSON variant reads the default range, whatever begin and end.
        const located = faults.has('geojson-range-ignored')
          ? all
          : locationsIn(car, request, faults.has('geojson-range-default-only') ? parseRange({}, now(), ctx) : range);
        const items = ignore ? located : faults.has('limit-before-range') ? inRangeLimited(all, range, limit) : applyLimit(located, limit, variants);
        const points = geojsonOrder(items, variants).map((l) => pointView(l, ctx));
        // fault car-geojson-feature-collection: "proper" GeoJSON instead of the documented array.
        const body = faults.has('car-geojson-feature-collection')
          ? { type: 'FeatureCollection', features: points.map((geometry) => ({ type: 'Feature', geometry, properties: {} })) }
          : points;
        return sendGeoJson(reply, body, ctx);
      },
    }));

    register(app, ctx, 'GET /cars/:carId/signals', (request: CarRequest) => ({
      load: load(request),
      query: () => {
        const q = asQuery(request.query);
        const limit = parseLimit(q, ctx);
        return { range: rangeOf(q, limit), limit, names: parseSignalNames(q, faults) };
      },
      respond: (car, { range, limit, names }) => {
        // fault name-filter-ignored: the name list is parsed but not applied.
        const filter = faults.has('name-filter-ignored') ? null : names;
        const named = historyOf(car, request).signals.filter((s) => nameSelected(filter, s.name, faults));
        let items = named.filter((s) => inRange(s.date, range));
        // fault name-filter-latest-only: the name filter reuses the status query (latest value per name).
        if (filter !== null && faults.has('name-filter-latest-only')) items = latestOfEachName(items);
        // fault limit-before-range: the limit taken from the whole (named) history, then the range.
        const page = faults.has('limit-ignored')
          ? items
          : faults.has('limit-before-range')
            ? inRangeLimited(named, range, limit)
            : filter !== null && faults.has('limit-per-signal-name')
              ? // fault limit-per-signal-name: with names, the limit is applied to each name's signals.
                [...filter].flatMap((name) =>
                  applyLimit(
                    items.filter((s) => s.name === name),
                    limit,
                    variants,
                  ),
                )
              : applyLimit(items, limit, variants);
        return historyOrder(page, variants).map((s) => signalView(s, ctx));
      },
    }));

    register(app, ctx, 'GET /cars/:carId/trips', (request: CarRequest) => ({
      load: load(request),
      query: () => {
        const q = asQuery(request.query);
        return { range: parseRange(q, now(), ctx), inclusive: parseInclusive(q) };
      },
      respond: (car, { range: asked, inclusive }) => {
        // fault trips-end-ignored: the filter reads begin only.
        const range = faults.has('trips-end-ignored') ? { begin: asked.begin, end: now() } : asked;
        // fault inclusive-inverted: the boolean read the wrong way round.
        const touching = faults.has('inclusive-inverted') ? !inclusive : inclusive;
        // fault car-trips-all-user-cars: the query filters on the car's owner, not on the car.
        const trips = faults.has('car-trips-all-user-cars')
          ? store
              .carsOfUser(car.userId)
              .flatMap((c) => store.history(c.id).trips)
              .sort((a, b) => a.beginDate - b.beginDate)
          : historyOf(car, request).trips;
        // car trips take no limit; applyLimit gives the default page size of the default-page-size variant.
        // fault inclusive-end-only: inclusive=true adds the trips that ended in the range, not those that began in it.
        // fault inclusive-ignores-range: inclusive=true's overlap test is written with OR.
        const options = { endOnly: faults.has('inclusive-end-only'), anyOverlap: faults.has('inclusive-ignores-range') };
        const page = applyLimit(touching ? tripsTouching(trips, range, options) : tripsWithin(trips, range), null, variants);
        return historyOrder(page, variants).map((t) => {
          const view = tripSummaryView(t, ctx);
          // fault trip-list-dates-shifted: the list's beginDate converted as if it were Paris winter time (+01:00).
          if (faults.has('trip-list-dates-shifted')) view.beginDate = formatRfc3339(t.beginDate - 3600 * 1000);
          // fault trip-list-ids-uppercase: the list writes ids in upper case, which GET /trips/{id} (case-sensitive) does not find.
          if (faults.has('trip-list-ids-uppercase')) view.id = t.id.toUpperCase();
          return view;
        });
      },
    }));

    register(app, ctx, 'GET /cars/:carId/stats/mileage', stat('MILEAGE'));
    register(app, ctx, 'GET /cars/:carId/stats/usedtime', stat('USED_TIME'));
  };
}
