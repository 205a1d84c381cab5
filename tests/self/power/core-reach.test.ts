// Which core checks can see a fault, from a traced clean run (core-reach.ts): none when no request
// reached its guard; the readers of its guard (and the error judges of their routes) when only reads
// did; every core check when a write or a request outside the checks did.
import { expect, test } from '@playwright/test';
import type { Exchange } from '../../../src/transport/api';
import type { CheckRecord } from '../../../src/verdict/check-record';
import { FAULT_GUARDS_HEADER } from '../../../reference-server/switches';
import { CoreReach } from './core-reach';

const exchange = (method: string, route: string, guards: string[]): Exchange => ({
  method,
  url: `http://h/v3${route}`,
  route,
  requestHeaders: {},
  durationMs: 1,
  status: 200,
  responseHeaders: { [FAULT_GUARDS_HEADER]: guards.join(',') },
});
const record = (key: string, requirement: string, exchanges: Exchange[]): CheckRecord => ({
  key,
  requirement,
  group: 'cars',
  status: 'passed',
  warnings: [],
  exchanges,
});

const records = [
  record('CORE-ROUTE-ANSWERS GET /cars/{carId}', 'CORE-ROUTE-ANSWERS', [exchange('GET', 'GET /cars/{carId}', ['car-date-zulu', 'unknown-car-500'])]),
  record('CORE-BY-ID GET /trips/{tripId}', 'CORE-BY-ID', [exchange('GET', 'GET /trips/{tripId}', ['trip-mileage-miles'])]),
  record('CORE-CAR-CREATE', 'CORE-CAR-CREATE', [exchange('POST', 'POST /users/{userId}/cars', ['created-car-200', 'car-date-zulu'])]),
  record('CORE-ERROR-BODY GET /cars/{carId}', 'CORE-ERROR-BODY', [exchange('GET', 'GET /cars/{carId}', ['unknown-car-500'])]),
];
const reach = new CoreReach(
  records,
  new Set(['car-date-zulu', 'unknown-car-500', 'trip-mileage-miles', 'created-car-200', 'users-me-first-user', 'route-answers-500@GET /cars/:carId']),
  (id) => id === 'CORE-ERROR-BODY',
);

test('a fault no request reached: nothing to run', () => {
  expect(reach.selectionFor('limit-ignored')).toEqual({ kind: 'none' });
});

test('a fault only reads reached: its readers, and the error judges of their routes', () => {
  expect(reach.selectionFor('trip-mileage-miles')).toEqual({ kind: 'checks', keys: ['CORE-BY-ID GET /trips/{tripId}'] });
  expect(reach.selectionFor('unknown-car-500')).toEqual({
    kind: 'checks',
    keys: ['CORE-ERROR-BODY GET /cars/{carId}', 'CORE-ROUTE-ANSWERS GET /cars/{carId}'],
  });
});

test('a fault a write reached, or a request outside the checks (the preparation, a browser), runs every core check', () => {
  expect(reach.selectionFor('car-date-zulu')).toEqual({ kind: 'all' });
  expect(reach.selectionFor('users-me-first-user')).toEqual({ kind: 'all' });
  expect(reach.selectionFor('route-answers-500@GET /cars/:carId')).toEqual({ kind: 'all' });
});
