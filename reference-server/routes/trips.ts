// Trips routes: the trip record, its locations (plain and GeoJSON LineString), signals and statistics.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { round } from '../data/geo';
import { asQuery, geojsonOrder, historyOrder, nameSelected, parseSignalNames } from '../http/params';
import { coordinates, locationView, pointView, signalView, tripStatView, tripView } from '../http/views';
import { latestOfEachName } from './cars';
import { sendGeoJson } from './geojson';
import { loadTrip } from './loaders';
import { register } from './register';

type TripRequest = FastifyRequest<{ Params: { tripId: string } }>;

export function tripsRoutes(ctx: AppContext) {
  const { store, faults, variants } = ctx;
  const load = (request: TripRequest, options?: { lowercaseMessage?: boolean }) => () => loadTrip(ctx, request.params.tripId, options);

  return async function plugin(app: FastifyInstance): Promise<void> {
    register(app, ctx, 'GET /trips/:tripId', (request: TripRequest) => ({
      load: load(request),
      // fault trip-by-id-latest-trip: the record read as the car's latest trip (the status query's), not the one asked.
      respond: (trip) => tripView(faults.has('trip-by-id-latest-trip') ? (store.history(trip.carId).trips.at(-1) ?? trip) : trip, ctx),
    }));

    register(app, ctx, 'GET /trips/:tripId/locations', (request: TripRequest) => ({
      load: load(request),
      respond: (trip) => historyOrder(trip.locations, variants).map((l) => locationView(l, ctx)),
    }));

    register(app, ctx, 'GET /trips/:tripId/locations.geojson', (request: TripRequest, reply: FastifyReply) => ({
      load: load(request),
      respond: (trip) => {
        // fault trip-geojson-drops-last-point: an off-by-one loop bound.
        const kept = faults.has('trip-geojson-drops-last-point') ? trip.locations.slice(0, -1) : trip.locations;
        // The LineString follows the order of the trip's locations (reversed under newest-first), or
        // the order driven (geojson-path-order).
        const locations = geojsonOrder(kept, variants);
        // fault trip-geojson-points: the car route's serializer reused.
        const body = faults.has('trip-geojson-points')
          ? locations.map((l) => pointView(l, ctx))
          : { type: 'LineString', coordinates: locations.map((l) => coordinates(l, ctx)) };
        return sendGeoJson(reply, body, ctx);
      },
    }));

    register(app, ctx, 'GET /trips/:tripId/signals', (request: TripRequest) => ({
      load: load(request),
      query: () => ({ names: parseSignalNames(asQuery(request.query), faults) }),
      respond: (trip, { names }) => {
        // fault trip-signals-unfiltered: the car's signal list without the trip's time window.
        const source = faults.has('trip-signals-unfiltered') ? store.history(trip.carId).signals : trip.signals;
        const filter = faults.has('name-filter-ignored') ? null : names;
        const named = source.filter((s) => nameSelected(filter, s.name, faults));
        // fault name-filter-latest-only: see the car signals route.
        const items = filter !== null && faults.has('name-filter-latest-only') ? latestOfEachName(named) : named;
        return historyOrder(items, variants).map((s) => signalView(s, ctx));
      },
    }));

    register(app, ctx, 'GET /trips/:tripId/stats', (request: TripRequest) => ({
      load: load(request),
      respond: (trip) => {
        const stats = [tripStatView('MILEAGE', trip, ctx), tripStatView('USED_TIME', trip, ctx)];
        // fault trip-stats-usedtime-minutes: the combined page converts the duration for display (minutes).
        if (faults.has('trip-stats-usedtime-minutes')) stats[1].value = round(trip.usedTime / 60, 2);
        // variant blindp-trip-stats-usedtime-first: the two statistics in the other order (the profile states none).
        return variants.has('blindp-trip-stats-usedtime-first') ? [stats[1], stats[0]] : stats;
      },
    }));

    register(app, ctx, 'GET /trips/:tripId/stats/mileage', (request: TripRequest) => ({
      load: load(request, { lowercaseMessage: true }),
      respond: (trip) => tripStatView('MILEAGE', trip, ctx),
    }));

    register(app, ctx, 'GET /trips/:tripId/stats/usedtime', (request: TripRequest) => ({
      load: load(request, { lowercaseMessage: true }),
      respond: (trip) => tripStatView('USED_TIME', trip, ctx),
    }));
  };
}
