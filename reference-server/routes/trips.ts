// Trips routes: the trip record, its locations (plain and GeoJSON LineString), signals and statistics.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runRoute } from '../auth/guard';
import type { AppContext } from '../context';
import { round } from '../data/geo';
import { asQuery, parseSignalNames } from '../http/params';
import { coordinates, locationView, pointView, signalView, tripStatView, tripView } from '../http/views';
import { sendGeoJson } from './geojson';
import { loadTrip } from './loaders';

type TripRequest = FastifyRequest<{ Params: { tripId: string } }>;

export function tripsRoutes(ctx: AppContext) {
  const { store, faults } = ctx;
  const load = (request: TripRequest, options?: { lowercaseMessage?: boolean }) => () => loadTrip(ctx, request.params.tripId, options);

  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/trips/:tripId', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId',
        load: load(request),
        respond: (trip) => tripView(trip, faults),
      }),
    );

    app.get('/trips/:tripId/locations', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId/locations',
        load: load(request),
        respond: (trip) => trip.locations.map((l) => locationView(l, faults)),
      }),
    );

    app.get('/trips/:tripId/locations.geojson', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId/locations.geojson',
        load: load(request),
        respond: (trip) => {
          // fault trip-geojson-drops-last-point: an off-by-one loop bound.
          const locations = faults.has('trip-geojson-drops-last-point') ? trip.locations.slice(0, -1) : trip.locations;
          // fault trip-geojson-points: the car route's serializer reused.
          const body = faults.has('trip-geojson-points')
            ? locations.map((l) => pointView(l, faults))
            : { type: 'LineString', coordinates: locations.map((l) => coordinates(l, faults)) };
          return sendGeoJson(reply, body, faults);
        },
      }),
    );

    app.get('/trips/:tripId/signals', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId/signals',
        load: load(request),
        query: () => ({ names: parseSignalNames(asQuery(request.query), faults) }),
        respond: (trip, { names }) => {
          // fault trip-signals-unfiltered: the car's signal list without the trip's time window.
          const source = faults.has('trip-signals-unfiltered') ? store.history(trip.carId).signals : trip.signals;
          const filter = faults.has('name-filter-ignored') ? null : names;
          return source.filter((s) => filter === null || filter.has(s.name)).map((s) => signalView(s, faults));
        },
      }),
    );

    app.get('/trips/:tripId/stats', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId/stats',
        load: load(request),
        respond: (trip) => {
          const stats = [tripStatView('MILEAGE', trip), tripStatView('USED_TIME', trip)];
          // fault trip-stats-usedtime-minutes: the combined page converts the duration for display (minutes).
          if (faults.has('trip-stats-usedtime-minutes')) stats[1].value = round(trip.usedTime / 60, 2);
          return stats;
        },
      }),
    );

    app.get('/trips/:tripId/stats/mileage', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId/stats/mileage',
        load: load(request, { lowercaseMessage: true }),
        respond: (trip) => tripStatView('MILEAGE', trip),
      }),
    );

    app.get('/trips/:tripId/stats/usedtime', (request: TripRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /trips/:tripId/stats/usedtime',
        load: load(request, { lowercaseMessage: true }),
        respond: (trip) => tripStatView('USED_TIME', trip),
      }),
    );
  };
}
