// The scope map of the profile ("Scopes per route") and which routes the sandbox serves without a token.

import type { Faults } from '../faults';
import { type Scope, SCOPES } from './clients';

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

export function requiredScopes(route: RouteKey, faults: Faults): readonly Scope[] {
  // fault route-scope-unchecked: this route was registered without the scope hook.
  if (faults.on('route-scope-unchecked', route)) return [];
  // fault route-scope-overdemanding: this route's hook was given the whole scope list.
  if (faults.on('route-scope-overdemanding', route)) return SCOPES;
  // fault scope-map-status-needs-cars-read: status grouped with the car record.
  if (route === 'GET /cars/:carId/status' && faults.has('scope-map-status-needs-cars-read')) return ['cars_read'];
  // fault trip-locations-skip-locations-scope: only the group scope is checked.
  if (route === 'GET /trips/:tripId/locations' && faults.has('trip-locations-skip-locations-scope')) return ['trips_read'];
  // fault car-stats-need-trips-read: stats computed from trips, so guarded as trips.
  if ((route === 'GET /cars/:carId/stats/mileage' || route === 'GET /cars/:carId/stats/usedtime') && faults.has('car-stats-need-trips-read')) return ['trips_read'];
  // fault devices-scope-not-checked: the restricted scope is forgotten.
  if (route.startsWith('POST /devices/') && faults.has('devices-scope-not-checked')) return [];
  return ROUTE_SCOPES[route];
}

/** The read routes addressed by id: the ones a sandbox serves without a token. */
export function isReadById(route: string): boolean {
  return route.startsWith('GET /users/:userId') || route.startsWith('GET /cars/') || route.startsWith('GET /trips/');
}

/** Sandbox: the read routes addressed by id answer without a token (profile, "Hosts and environments"). */
export function sandboxOpen(route: RouteKey, faults: Faults): boolean {
  if (!isReadById(route)) return false;
  // fault route-sandbox-closed: this route was left behind the auth hook in the sandbox build.
  if (faults.on('route-sandbox-closed', route)) return false;
  if (faults.has('sandbox-requires-auth')) return false;
  if (faults.has('sandbox-trips-require-auth') && route.startsWith('GET /trips/')) return false;
  if (faults.has('sandbox-geojson-requires-auth') && route.endsWith('.geojson')) return false;
  return true;
}
