// The scopes a route demands and whether the sandbox serves it without a token, as the active fault
// changes them (the profile's map itself, "Scopes per route", is route-keys.ts).

import { isReadById, ROUTE_SCOPES, type RouteKey } from '../route-keys';
import type { Faults } from '../switches';
import { type Scope, SCOPES } from './clients';

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
  if ((route === 'GET /cars/:carId/stats/mileage' || route === 'GET /cars/:carId/stats/usedtime') && faults.has('car-stats-need-trips-read'))
    return ['trips_read'];
  // fault devices-scope-not-checked: the restricted scope is forgotten.
  if (route.startsWith('POST /devices/') && faults.has('devices-scope-not-checked')) return [];
  return ROUTE_SCOPES[route];
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
