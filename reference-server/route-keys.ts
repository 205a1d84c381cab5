// The route keys of the API ('GET /cars/:carId': method, space, path as Fastify writes it under /v3)
// and the scope each route demands (profile, "Scopes per route"). One typed table: the routes are
// registered from these keys (routes/register.ts), so a key that is not here does not compile.

import type { Scope } from './auth/clients';

export const ROUTE_SCOPES = {
  'GET /users/me': ['users_read'],
  'GET /users/me/cars': ['cars_read'],
  'GET /users/:userId': ['users_read'],
  'GET /users/:userId/cars': ['cars_read'],
  'POST /users/:userId/cars': ['cars_write'],
  'GET /cars/:carId': ['cars_read'],
  'GET /cars/:carId/status': ['status_read'],
  'GET /cars/:carId/locations': ['locations_read'],
  'GET /cars/:carId/locations.geojson': ['locations_read'],
  'GET /cars/:carId/signals': ['signals_read'],
  'GET /cars/:carId/trips': ['trips_read'],
  'GET /cars/:carId/stats/mileage': ['signals_read'],
  'GET /cars/:carId/stats/usedtime': ['signals_read'],
  'GET /trips/:tripId': ['trips_read'],
  'GET /trips/:tripId/locations': ['trips_read', 'locations_read'],
  'GET /trips/:tripId/locations.geojson': ['trips_read', 'locations_read'],
  'GET /trips/:tripId/signals': ['trips_read', 'signals_read'],
  'GET /trips/:tripId/stats': ['trips_read'],
  'GET /trips/:tripId/stats/mileage': ['trips_read'],
  'GET /trips/:tripId/stats/usedtime': ['trips_read'],
  'POST /devices/:deviceId/associate': ['devices_management'],
  'POST /devices/:deviceId/dissociate': ['devices_management'],
} as const satisfies Record<string, readonly Scope[]>;

export type RouteKey = keyof typeof ROUTE_SCOPES;

/** The read routes addressed by id: the ones a sandbox serves without a token. */
export function isReadById(route: string): boolean {
  return route.startsWith('GET /users/:userId') || route.startsWith('GET /cars/') || route.startsWith('GET /trips/');
}
