// The 23 protected API routes with what the tests need about each: scopes (profile's scope map),
// which resource they address, a URL on alice's data, on bob's data and on an unknown id.

import { Harness, SEED_IDS } from './helpers';

export interface RouteCase {
  key: string;
  method: 'GET' | 'POST';
  scopes: string[];
  /** The resource kind in "Token can't access this ..." (null: /users/me* and device routes). */
  kind: 'user' | 'car' | 'trip' | null;
  /** Served without a token by the sandbox. */
  sandboxOpen: boolean;
  success: number;
  own: string;
  other?: string;
  unknown?: string;
  body?: unknown;
}

const { alice: ALICE, bob: BOB, aliceRichCar: RICH, bobCar: BOB_CAR } = SEED_IDS;
const UNKNOWN_TRIP = 'ffffffffffffffffffffffff';
const NEW_CAR = { make: 'Renault', model: 'Clio' };

export function routeCases(h: Harness): RouteCase[] {
  const trip = h.latestTrip(RICH);
  const bobTrip = h.latestTrip(BOB_CAR);
  const user = (path: string, scopes: string[], success = 200): RouteCase => ({
    key: `GET /users/:userId${path}`,
    method: 'GET',
    scopes,
    kind: 'user',
    sandboxOpen: true,
    success,
    own: `/v3/users/${ALICE}${path}`,
    other: `/v3/users/${BOB}${path}`,
    unknown: `/v3/users/424242${path}`,
  });
  const car = (path: string, scopes: string[]): RouteCase => ({
    key: `GET /cars/:carId${path}`,
    method: 'GET',
    scopes,
    kind: 'car',
    sandboxOpen: true,
    success: 200,
    own: `/v3/cars/${RICH}${path}`,
    other: `/v3/cars/${BOB_CAR}${path}`,
    unknown: `/v3/cars/424242${path}`,
  });
  const tripRoute = (path: string, scopes: string[]): RouteCase => ({
    key: `GET /trips/:tripId${path}`,
    method: 'GET',
    scopes,
    kind: 'trip',
    sandboxOpen: true,
    success: 200,
    own: `/v3/trips/${trip}${path}`,
    other: `/v3/trips/${bobTrip}${path}`,
    unknown: `/v3/trips/${UNKNOWN_TRIP}${path}`,
  });
  return [
    { key: 'GET /users/me', method: 'GET', scopes: ['users_read'], kind: null, sandboxOpen: false, success: 200, own: '/v3/users/me' },
    { key: 'GET /users/me/cars', method: 'GET', scopes: ['cars_read'], kind: null, sandboxOpen: false, success: 200, own: '/v3/users/me/cars' },
    user('', ['users_read']),
    user('/cars', ['cars_read']),
    { ...user('/cars', ['cars_write'], 201), key: 'POST /users/:userId/cars', method: 'POST', sandboxOpen: false, body: NEW_CAR },
    car('', ['cars_read']),
    car('/status', ['status_read']),
    car('/locations', ['locations_read']),
    car('/locations.geojson', ['locations_read']),
    car('/signals', ['signals_read']),
    car('/trips', ['trips_read']),
    car('/stats/mileage', ['signals_read']),
    car('/stats/usedtime', ['signals_read']),
    tripRoute('', ['trips_read']),
    tripRoute('/locations', ['trips_read', 'locations_read']),
    tripRoute('/locations.geojson', ['trips_read', 'locations_read']),
    tripRoute('/signals', ['trips_read', 'signals_read']),
    tripRoute('/stats', ['trips_read']),
    tripRoute('/stats/mileage', ['trips_read']),
    tripRoute('/stats/usedtime', ['trips_read']),
    {
      key: 'POST /devices/:deviceId/associate?carId',
      method: 'POST',
      scopes: ['devices_management'],
      kind: null,
      sandboxOpen: false,
      success: 204,
      own: `/v3/devices/VDSREF0101/associate?carId=${SEED_IDS.aliceBareCar}`,
      unknown: `/v3/devices/NOSUCHDEVICE/associate?carId=${SEED_IDS.aliceBareCar}`,
    },
    {
      key: 'POST /devices/:deviceId/associate?pin',
      method: 'POST',
      scopes: ['devices_management'],
      kind: null,
      sandboxOpen: false,
      success: 204,
      own: '/v3/devices/VDSREF0102/associate?pin=24680',
      unknown: '/v3/devices/NOSUCHDEVICE/associate?pin=24680',
    },
    {
      key: 'POST /devices/:deviceId/dissociate',
      method: 'POST',
      scopes: ['devices_management'],
      kind: null,
      sandboxOpen: false,
      success: 204,
      own: '/v3/devices/VDSREF0002/dissociate',
      unknown: '/v3/devices/NOSUCHDEVICE/dissociate',
    },
  ];
}

export const ALL_SCOPES = ['users_read', 'cars_read', 'cars_write', 'status_read', 'locations_read', 'signals_read', 'trips_read', 'devices_management'];
