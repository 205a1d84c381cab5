// Synthetic check records with their exchanges, for the triage's unit tests: a few routes of each
// kind (their facts written here, not read from contracts/routes.yaml) and one-line builders of the
// answers a server gives, so that each test reads as the server it describes.
import type { Credential, Exchange } from '../../../src/transport/api';
import type { Group, Route } from '../../../src/catalogue/catalogue';
import type { Scope } from '../../../src/setup/target';
import type { CheckRecord } from '../../../src/verdict/check-record';
import type { TriageFacts } from '../../../src/verdict/triage';

const BASE = 'http://127.0.0.1:1/v3';

function route(id: string, group: Group, scopes: Scope[], contract?: string, extra: Partial<Route> = {}): Route {
  const [method, path] = id.split(' ') as ['GET' | 'POST', string];
  return {
    route: id,
    method,
    path,
    fixedQuery: {},
    pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
    group,
    scopes,
    success: { status: method === 'POST' ? 204 : 200, ...(contract ? { contract } : {}) },
    query: [],
    dates: [],
    sandboxOpen: method === 'GET',
    public: false,
    purpose: `${id}.`,
    cite: 'synthetic',
    records: contract ? [contract.replace(/\[\]$/, '')] : [],
    ...extra,
  };
}

const ROUTES: Route[] = [
  route('GET /users/me', 'users', ['users_read'], 'user'),
  route('GET /cars/{carId}', 'cars', ['cars_read'], 'car'),
  route('GET /users/me/cars', 'users', ['cars_read'], 'car[]'),
  route('GET /cars/{carId}/locations.geojson', 'cars', ['locations_read'], 'geojsonPoint[]'),
  route('GET /trips/{tripId}', 'trips', ['trips_read'], 'trip'),
  route('GET /trips/{tripId}/stats', 'trips', ['trips_read'], 'tripStats'),
  route('GET /trips/{tripId}/locations.geojson', 'trips', ['trips_read', 'locations_read'], 'geojsonLineString'),
  route('POST /devices/{deviceId}/associate?carId={carId}', 'devices', ['devices_management']),
  route('POST /devices/{deviceId}/dissociate', 'devices', ['devices_management']),
  route('POST /auth/access_token', 'auth', [], 'token', { public: true, sandboxOpen: false }),
];

export const FACTS: TriageFacts = {
  routes: ROUTES,
  statements: { 'SCOPE-NOT-NEEDED': ['P-ROUTE-SCOPES'] },
  env: 'cloud',
};

const ARRAY_ERROR = (type: string, message: string) => JSON.stringify([{ type, message, tip: 'A tip' }]);
export const BODIES = {
  frameworkNotFound: (path: string) => JSON.stringify({ statusCode: 404, error: 'Not Found', message: `Route GET:${path} not found` }),
  notFound: ARRAY_ERROR('PARAMETERS_ERROR', 'Car not found'),
  authMissing: ARRAY_ERROR('AUTHENTICATION_ERROR', 'Authorization is missing'),
  invalidToken: ARRAY_ERROR('AUTHENTICATION_ERROR', 'Invalid token'),
  scopeMissing: ARRAY_ERROR('AUTHORIZATION_ERROR', 'Token does not have the required scope'),
  car: (date: string) => JSON.stringify({ id: 5001, name: 'Car', make: 'Renault', model: 'Zoe', creationDate: date, lastUpdateDate: date }),
  user: '{"id":101,"firstName":"Alice","lastName":"Martin","email":"alice@reference.test"}',
};

/** One request of a check and the answer it got. */
export function exchange(id: string, credential: Credential | undefined, status: number | undefined, body = '', over: Partial<Exchange> = {}): Exchange {
  const [method, path] = id.split(' ');
  const url = BASE + path.split('?')[0].replace('{carId}', '5001').replace('{tripId}', 't1').replace('{deviceId}', 'D1');
  const bearer =
    credential && credential !== 'none' && credential !== 'header'
      ? ` -H "Authorization: Bearer $VDS_TOKEN_${credential.replace(/\./g, '_').toUpperCase()}"`
      : '';
  return {
    method,
    url,
    route: id,
    ...(credential ? { credential } : {}),
    requestHeaders: { accept: 'application/json' },
    ...(status !== undefined ? { status, responseHeaders: { 'content-type': 'application/json; charset=utf-8' }, bodyExcerpt: body } : {}),
    durationMs: 3,
    curl: `curl -sS -i '${url}'${bearer}`,
    ...over,
  };
}

/** A check's record: failed on its last exchange (the failure names it), or passed. */
export function record(key: string, exchanges: Exchange[], failed = true, over: Partial<CheckRecord> = {}): CheckRecord {
  const requirement = key.split(' ')[0];
  const last = exchanges[exchanges.length - 1];
  return {
    key,
    requirement,
    group: 'cars',
    status: failed ? 'failed' : 'passed',
    warnings: [],
    exchanges,
    ...(failed
      ? {
          failure: {
            check: key,
            expected: 'status 200',
            actual: last?.status !== undefined ? `status ${last.status}` : 'no answer',
            ...(last
              ? { request: `${last.method} ${last.url}${last.status !== undefined ? ` -> ${last.status}` : ''}${last.error ? ` (${last.error})` : ''}` }
              : {}),
          },
        }
      : {}),
    ...over,
  };
}
