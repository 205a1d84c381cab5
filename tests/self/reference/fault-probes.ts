// One probe per fault: it observes the one documented behaviour the fault breaks and returns true
// when that behaviour is correct. faults.test.ts runs each probe against the correct server (must
// be true) and against the server with the fault (must be false).

import { createHmac, createPublicKey } from 'node:crypto';
import type { Mode } from '../../../reference-server/context';
import type { FaultName } from '../../../reference-server/faults';
import type { RouteKey } from '../../../reference-server/route-keys';
import { basic, DAY, firstError, Harness, iso, MONTH_START, NOW, passwordOf, REDIRECT_URI, Res, SEED_IDS } from './helpers';
import { ALL_SCOPES, type RouteCase, routeCases } from './route-table';

export interface Probe {
  mode?: Mode;
  /** `route` is given for a per-route fault: the route it is put on. */
  check: (h: Harness, route: RouteKey) => Promise<boolean>;
}

const { aliceRichCar: RICH, aliceSecondCar: SECOND, aliceBareCar: BARE, bobCar: BOB_CAR, bobBareCar: BOB_BARE, alice: ALICE, bob: BOB } = SEED_IDS;
const STRICT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
const UNKNOWN_CAR = 999999;
const UNKNOWN_TRIP = '0123456789abcdef01234567';
const VALID_CAR = { make: 'Renault', model: 'Clio', name: 'Probe car', year: 2021, numberPlate: 'ZZ-999-ZZ' };

const err = (res: Res) => firstError(res);
/** A JWT part written as JWTs are (base64url of its JSON). */
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A JWT's header and claims, read. */
const jwtParts = (token: string) =>
  token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
const isError = (res: Res, status: number, type: string, message: string) => res.status === status && err(res).type === type && err(res).message === message;

async function createCar(h: Harness, body: unknown, userId: number = ALICE): Promise<Res> {
  return h.post(`/v3/users/${userId}/cars`, { token: await h.alice(), json: body });
}

/** A car created with these texts is taken (201) and answers each as sent. */
async function textKept(h: Harness, texts: Record<string, string>): Promise<boolean> {
  const res = await createCar(h, { ...VALID_CAR, ...texts });
  return res.status === 201 && Object.entries(texts).every(([field, text]) => res.json[field] === text);
}

async function tripsOf(h: Harness, query: string): Promise<any[]> {
  const res = await h.get(`/v3/cars/${RICH}/trips${query}`, await h.alice());
  if (res.status !== 200) throw new Error(`trips: ${res.status}`);
  return res.json;
}

/** The route table's case for a route (device association by carId for the association route). */
function caseOf(h: Harness, route: RouteKey): RouteCase {
  const found = routeCases(h).find((c) => c.key === route || c.key.startsWith(`${route}?`));
  if (!found) throw new Error(`route-table.ts has no case for ${route}`);
  return found;
}

/** An expired token is refused as the profile says: 403 AUTHORIZATION_ERROR "Token has expired". */
async function expiredTokenRefused(h: Harness): Promise<boolean> {
  const token = (await h.tokenResponse()).access_token;
  await h.post('/_control/tokens/expire', { json: { token } });
  return isError(await h.get('/v3/users/me', token), 403, 'AUTHORIZATION_ERROR', 'Token has expired');
}

/** A valid request to the route on alice's data, as the route table writes it. */
function callRoute(h: Harness, route: RouteKey, token: string | undefined): Promise<Res> {
  const c = caseOf(h, route);
  return h.request(c.method, c.own, { token, json: c.body });
}

export const PROBES: Record<FaultName, Probe> = {
  // records
  'car-date-zulu': { check: async (h) => STRICT.test((await h.get(`/v3/cars/${RICH}`, await h.alice())).json.creationDate) },
  'car-id-string': { check: async (h) => typeof (await h.get(`/v3/cars/${RICH}`, await h.alice())).json.id === 'number' },
  'user-lastname-snake-case': { check: async (h) => typeof (await h.get('/v3/users/me', await h.alice())).json.lastName === 'string' },
  'location-satcount': { check: async (h) => Number.isInteger((await h.get(`/v3/cars/${RICH}/locations?limit=1`, await h.alice())).json[0].satellites) },
  'user-by-id-missing-email': { check: async (h) => (await h.get(`/v3/users/${ALICE}`, await h.alice())).json.email === 'alice@reference.test' },
  'signal-value-string': { check: async (h) => typeof (await h.get(`/v3/cars/${RICH}/signals?limit=1`, await h.alice())).json[0].value === 'number' },
  'status-empty-signals-null': { check: async (h) => Array.isArray((await h.get(`/v3/cars/${BARE}/status`, await h.alice())).json.signals) },
  'status-signal-value-2': {
    check: async (h) => {
      const token = await h.alice();
      const signals = (await h.get(`/v3/cars/${RICH}/signals?name=LockSts`, token)).json as any[];
      const status = ((await h.get(`/v3/cars/${RICH}/status`, token)).json.signals as any[]).filter((s) => s.name === 'LockSts');
      const values = [...signals, ...status].map((s) => s.value);
      return values.includes(1) && status.length === 1 && values.every((v) => v === 0 || v === 1);
    },
  },
  'me-cars-date-zulu': {
    check: async (h) =>
      ((await h.get('/v3/users/me/cars', await h.alice())).json as any[]).every((c) => STRICT.test(c.creationDate) && STRICT.test(c.lastUpdateDate)),
  },
  'car-no-device-empty-string': { check: async (h) => (await h.get(`/v3/cars/${BARE}`, await h.alice())).json.deviceId === null },

  // errors
  'error-body-object-not-array': { check: async (h) => Array.isArray((await h.get('/v3/users/me')).json) },
  'error-tip-missing': {
    check: async (h) => {
      const tip = err(await h.get('/v3/users/me')).tip;
      return typeof tip === 'string' && tip.length > 0;
    },
  },
  'parameters-error-singular': { check: async (h) => err(await h.get(`/v3/cars/${UNKNOWN_CAR}`, await h.alice())).type === 'PARAMETERS_ERROR' },
  'trip-stats-not-found-lowercase': {
    check: async (h) => err(await h.get(`/v3/trips/${UNKNOWN_TRIP}/stats/mileage`, await h.alice())).message === 'Trip not found',
  },
  'not-found-message-generic': { check: async (h) => err(await h.get(`/v3/users/${UNKNOWN_CAR}`, await h.alice())).message === 'User not found' },

  // status
  'unknown-car-500': { check: async (h) => (await h.get(`/v3/cars/${UNKNOWN_CAR}`, await h.alice())).status === 404 },
  'user-id-beyond-32-bits-500': {
    check: async (h) => isError(await h.get(`/v3/users/${2 ** 33 + 1}/cars`, await h.alice()), 404, 'PARAMETERS_ERROR', 'User not found'),
  },
  'created-car-200': { check: async (h) => (await createCar(h, VALID_CAR)).status === 201 },
  'device-associate-200': {
    check: async (h) => {
      const res = await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token: await h.alice() });
      return res.status === 204 && res.text === '';
    },
  },
  'route-answers-500': { check: async (h, route) => (await callRoute(h, route, await h.alice())).status === 200 },
  'range-issue-400': {
    check: async (h) =>
      (await h.get(`/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(NOW - DAY))}&end=${encodeURIComponent(iso(NOW - 2 * DAY))}`, await h.alice()))
        .status === 416,
  },
  'range-error-no-tip': {
    check: async (h) => {
      const res = await h.get(
        `/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(NOW - DAY))}&end=${encodeURIComponent(iso(NOW - 2 * DAY))}`,
        await h.alice(),
      );
      return res.status === 416 && typeof err(res).tip === 'string';
    },
  },
  'conflict-error-object': {
    // VDSREF0001 is on a car already: associating it again is a conflict, answered with the error array.
    check: async (h) => {
      const res = await h.post(`/v3/devices/VDSREF0001/associate?carId=${BARE}`, { token: await h.alice() });
      return res.status === 409 && Array.isArray(res.json);
    },
  },

  // authentication
  'status-says-token-expired': {
    // A fresh token reads the car's status (and another route), never "Token has expired".
    check: async (h) => {
      const token = await h.alice();
      return (await h.get(`/v3/cars/${RICH}/status`, token)).status === 200 && (await h.get(`/v3/cars/${RICH}`, token)).status === 200;
    },
  },
  'expired-token-accepted': { check: expiredTokenRefused },
  'revoked-token-accepted': {
    check: async (h) => {
      const token = (await h.tokenResponse()).access_token;
      await h.post('/_control/tokens/revoke', { json: { token } });
      return isError(await h.get('/v3/users/me', token), 403, 'AUTHORIZATION_ERROR', 'Token has been revoked');
    },
  },
  'missing-auth-403': { check: async (h) => isError(await h.get('/v3/users/me'), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing') },
  'malformed-auth-invalid-token': {
    check: async (h) =>
      isError(await h.get('/v3/users/me', undefined, { authorization: 'Basic YWxpY2U6cHc=' }), 401, 'AUTHENTICATION_ERROR', 'Authorization is malformed'),
  },
  'expired-token-401': {
    check: async (h) => {
      const token = (await h.tokenResponse()).access_token;
      await h.post('/_control/tokens/expire', { json: { token } });
      const res = await h.get(`/v3/cars/${RICH}`, token);
      return res.status === 403 && err(res).type === 'AUTHORIZATION_ERROR';
    },
  },
  'expired-token-revoked': {
    // An expired token is refused as expired, not as revoked.
    check: async (h) => {
      const token = (await h.tokenResponse()).access_token;
      await h.post('/_control/tokens/expire', { json: { token } });
      const res = await h.get(`/v3/cars/${RICH}`, token);
      return res.status === 403 && err(res).message === 'Token has expired';
    },
  },
  'auth-checked-after-existence': { check: async (h) => (await h.get(`/v3/cars/${UNKNOWN_CAR}/status`)).status === 401 },
  'unknown-token-revoked': { check: async (h) => isError(await h.get('/v3/users/me', 'no-such-token'), 401, 'AUTHENTICATION_ERROR', 'Invalid token') },
  'refresh-token-as-access': { check: async (h) => (await h.get('/v3/users/me', (await h.tokenResponse()).refresh_token)).status === 401 },
  'issued-tokens-prefix-match': {
    // An issued token with its last character dropped is unknown; a configured (kept) one is looked up exactly anyway.
    check: async (h) => (await h.get('/v3/users/me', (await h.tokenResponse()).access_token.slice(0, -1))).status === 401,
  },
  'issued-tokens-lifetime-ms': {
    // A token said to live 3600 s still serves 5 s after its issue.
    check: async (h) => {
      const token = (await h.tokenResponse()).access_token;
      h.clock.now += 5_000;
      const res = await h.get('/v3/users/me', token);
      h.clock.now -= 5_000;
      return res.status === 200;
    },
  },
  'expired-token-invalid': { check: expiredTokenRefused },
  'jwt-alg-none-accepted': {
    check: async (h) => {
      const [header, payload] = jwtParts((await h.tokenResponse()).access_token);
      return (await h.get('/v3/users/me', `${b64({ ...header, alg: 'none' })}.${b64(payload)}.`)).status === 401;
    },
  },
  'jwt-signature-not-verified': {
    // alice's token with bob's subject, under alice's signature.
    check: async (h) => {
      const token = (await h.tokenResponse()).access_token;
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      return (await h.get('/v3/users/me', `${header}.${b64({ ...claims, sub: String(BOB) })}.${signature}`)).status === 401;
    },
  },
  'jwt-stripped-signature-accepted': {
    check: async (h) => {
      const [header, payload] = (await h.tokenResponse()).access_token.split('.');
      return (await h.get('/v3/users/me', `${header}.${payload}.`)).status === 401;
    },
  },
  'jwt-hmac-public-key-accepted': {
    // HS256 keyed with the published key, as an attacker signs it: the PEM of the JWKS's key.
    check: async (h) => {
      const [header, payload] = jwtParts((await h.tokenResponse()).access_token);
      const jwk = (await h.get('/v3/auth/certs')).json.keys[0];
      const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      const input = `${b64({ ...header, alg: 'HS256' })}.${b64(payload)}`;
      return (await h.get('/v3/users/me', `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`)).status === 401;
    },
  },
  'bearer-scheme-not-checked': {
    check: async (h) => {
      const token = await h.alice();
      const statuses = [
        await h.request('GET', '/v3/users/me', { headers: { authorization: `Basic ${token}` } }),
        await h.request('GET', '/v3/users/me', { headers: { authorization: token } }),
      ];
      return statuses.every((r) => r.status === 401 && err(r).type === 'AUTHENTICATION_ERROR');
    },
  },
  'bearer-without-token-500': {
    check: async (h) => {
      const res = await h.request('GET', '/v3/users/me', { headers: { authorization: 'Bearer' } });
      return res.status === 401 && err(res).type === 'AUTHENTICATION_ERROR';
    },
  },
  'unknown-token-as-first-user': { check: async (h) => (await h.get('/v3/users/me', 'vds-never-issued-token')).status === 401 },
  'status-route-unprotected': { check: async (h) => isError(await h.get(`/v3/cars/${RICH}/status`), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing') },

  // scopes
  'scope-map-status-needs-cars-read': { check: async (h) => (await h.get(`/v3/cars/${RICH}/status`, await h.token({ scope: 'status_read' }))).status === 200 },
  'missing-scope-tip-omits-scope': {
    check: async (h) => {
      const res = await h.get(`/v3/cars/${RICH}/status`, await h.token({ client: 'limited' }));
      return res.status === 403 && String(err(res).tip).includes('status_read');
    },
  },
  'scope-tip-names-first-scope': {
    // GET /trips/{id}/locations needs trips_read and locations_read: without locations_read, the tip names it.
    check: async (h) => {
      const res = await h.get(`/v3/trips/${h.latestTrip(RICH)}/locations`, await h.token({ scope: 'trips_read' }));
      return res.status === 403 && String(err(res).tip).includes('locations_read');
    },
  },
  'scope-tip-names-held-scopes': {
    check: async (h, route) => {
      const c = caseOf(h, route);
      const missing = c.scopes[c.scopes.length - 1];
      const res = await callRoute(h, route, await h.token({ scope: ALL_SCOPES.filter((s) => s !== missing).join(' ') }));
      return res.status === 403 && String(err(res).tip).includes(missing);
    },
  },
  'trip-locations-skip-locations-scope': {
    check: async (h) =>
      isError(
        await h.get(`/v3/trips/${h.latestTrip(RICH)}/locations`, await h.token({ scope: 'trips_read' })),
        403,
        'AUTHORIZATION_ERROR',
        'Token does not have the required scope',
      ),
  },
  'car-stats-need-trips-read': { check: async (h) => (await h.get(`/v3/cars/${RICH}/stats/mileage`, await h.token({ scope: 'signals_read' }))).status === 200 },
  'missing-scope-401': {
    check: async (h) =>
      isError(
        await h.get(`/v3/cars/${RICH}/status`, await h.token({ client: 'limited' })),
        403,
        'AUTHORIZATION_ERROR',
        'Token does not have the required scope',
      ),
  },
  'devices-scope-not-checked': {
    check: async (h) =>
      isError(
        await h.post('/v3/devices/VDSREF0002/dissociate', { token: await h.token({ client: 'limited' }) }),
        403,
        'AUTHORIZATION_ERROR',
        'Token does not have the required scope',
      ),
  },
  'scope-not-restricted-to-app': {
    check: async (h) => {
      const token = await h.token({ client: 'limited', scope: ALL_SCOPES.join(' ') });
      const res = await h.post(`/v3/devices/VDSREF0104/associate?carId=${BARE}`, { token });
      return res.status === 403 && err(res).type === 'AUTHORIZATION_ERROR';
    },
  },
  'dissociate-scope-reconnect-only': {
    // The second application (no devices_management), its user asking for every scope: refused for the scope.
    check: async (h) => {
      const token = await h.token({ client: 'limited', scope: ALL_SCOPES.join(' ') });
      const res = await h.post('/v3/devices/VDSREF0002/dissociate', { token });
      return isError(res, 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope');
    },
  },
  'pin-scope-reconnect-only': {
    check: async (h) => {
      const token = await h.token({ client: 'limited', scope: ALL_SCOPES.join(' ') });
      const res = await h.post('/v3/devices/VDSREF0102/associate?pin=24680', { token });
      return isError(res, 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope');
    },
  },
  'route-scope-unchecked': {
    check: async (h, route) => {
      const others = ALL_SCOPES.filter((s) => !caseOf(h, route).scopes.includes(s));
      return isError(
        await callRoute(h, route, await h.token({ scope: others.join(' ') })),
        403,
        'AUTHORIZATION_ERROR',
        'Token does not have the required scope',
      );
    },
  },
  'route-token-prefix-match': { check: async (h, route) => (await callRoute(h, route, (await h.alice()).slice(0, -1))).status === 401 },
  'route-token-from-query': {
    check: async (h, route) => {
      const c = caseOf(h, route);
      const url = `${c.own}${c.own.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(await h.alice())}`;
      return (await h.request(c.method, url, { json: c.body })).status === 401;
    },
  },
  'route-scope-overdemanding': {
    check: async (h, route) => (await callRoute(h, route, await h.token({ scope: caseOf(h, route).scopes.join(' ') }))).status === 200,
  },
  'scope-checked-after-existence': { check: async (h) => (await h.get(`/v3/cars/${UNKNOWN_CAR}/status`, await h.token({ client: 'limited' }))).status === 403 },
  'access-checked-before-scope': {
    check: async (h) =>
      isError(await h.get(`/v3/cars/${BOB_CAR}`, await h.token({ scope: 'users_read' })), 403, 'AUTHORIZATION_ERROR', 'Token does not have the required scope'),
  },

  // cross-user
  'cross-user-trip-readable': { check: async (h) => (await h.get(`/v3/trips/${h.latestTrip(BOB_CAR)}`, await h.alice())).status === 403 },
  'cross-user-car-readable': { check: async (h) => (await h.get(`/v3/cars/${BOB_CAR}`, await h.alice())).status === 403 },
  'cross-user-user-cars-readable': { check: async (h) => (await h.get(`/v3/users/${BOB}/cars`, await h.alice())).status === 403 },
  'cross-user-trip-message-car': {
    check: async (h) =>
      isError(await h.get(`/v3/trips/${h.latestTrip(BOB_CAR)}/stats`, await h.alice()), 403, 'AUTHORIZATION_ERROR', "Token can't access this trip"),
  },
  'cross-user-car-create': { check: async (h) => (await createCar(h, VALID_CAR, BOB)).status === 403 },
  'associate-car-owner-unchecked': {
    check: async (h) => {
      const res = await h.post(`/v3/devices/VDSREF0101/associate?carId=${BOB_BARE}`, { token: await h.alice() });
      return res.status === 403 && err(res).type === 'AUTHORIZATION_ERROR' && (await h.get(`/v3/cars/${BOB_BARE}`, await h.bob())).json.deviceId === null;
    },
  },
  'associate-device-owner-user-link': {
    // bob's device, linked to his car by its installer (no user link): refused as bob's, not as associated.
    check: async (h) =>
      isError(
        await h.post(`/v3/devices/VDSREF0003/associate?carId=${BARE}`, { token: await h.alice() }),
        403,
        'AUTHORIZATION_ERROR',
        "Token can't access this user",
      ),
  },
  'dissociate-owner-user-link': {
    check: async (h) => {
      const res = await h.post('/v3/devices/VDSREF0003/dissociate', { token: await h.alice() });
      return (
        res.status === 403 && err(res).type === 'AUTHORIZATION_ERROR' && (await h.get(`/v3/cars/${BOB_CAR}`, await h.bob())).json.deviceId === 'VDSREF0003'
      );
    },
  },
  'associate-device-owner-unchecked': {
    // A device alice linked to herself by its pin: bob cannot put it on his car.
    check: async (h) => {
      if ((await h.post('/v3/devices/VDSREF0105/associate?pin=31415', { token: await h.alice() })).status !== 204) return false;
      const res = await h.post(`/v3/devices/VDSREF0105/associate?carId=${BOB_BARE}`, { token: await h.bob() });
      return (
        isError(res, 403, 'AUTHORIZATION_ERROR', "Token can't access this user") && (await h.get(`/v3/cars/${BOB_BARE}`, await h.bob())).json.deviceId === null
      );
    },
  },
  'dissociate-user-link-unchecked': {
    // A device alice linked to herself by its pin: bob cannot dissociate it.
    check: async (h) => {
      if ((await h.post('/v3/devices/VDSREF0105/associate?pin=31415', { token: await h.alice() })).status !== 204) return false;
      return isError(await h.post('/v3/devices/VDSREF0105/dissociate', { token: await h.bob() }), 403, 'AUTHORIZATION_ERROR', "Token can't access this user");
    },
  },
  'pin-link-per-user': {
    // A device alice linked to herself by its pin: bob's right pin is refused (already associated), and it stays hers.
    check: async (h) => {
      if ((await h.post('/v3/devices/VDSREF0105/associate?pin=31415', { token: await h.alice() })).status !== 204) return false;
      const res = await h.post('/v3/devices/VDSREF0105/associate?pin=31415', { token: await h.bob() });
      return res.status === 409 && (await h.post('/v3/devices/VDSREF0105/dissociate', { token: await h.alice() })).status === 204;
    },
  },
  'cross-user-user-readable': {
    check: async (h) => isError(await h.get(`/v3/users/${BOB}`, await h.alice()), 403, 'AUTHORIZATION_ERROR', "Token can't access this user"),
  },

  // caches
  'personal-data-cache-public': {
    check: async (h, route) => !/public/.test(String((await callRoute(h, route, await h.alice())).headers['cache-control'] ?? '')),
  },
  'token-answer-cacheable': {
    check: async (h) => /no-store/.test(String((await h.exchange({ grant_type: 'authorization_code', code: await h.code() })).headers['cache-control'] ?? '')),
  },
  'response-cache-shared': {
    // Right after alice's success, the same URL without a token: refused, not her answer again.
    check: async (h, route) => {
      if ((await callRoute(h, route, await h.alice())).status !== 200) return false;
      return (await h.request(caseOf(h, route).method, caseOf(h, route).own)).status === 401;
    },
  },
  'response-cache-by-scopes': {
    // Right after alice's success, bob's token (the same scopes) on her car: refused, not her car.
    check: async (h) => {
      if ((await h.get(`/v3/cars/${RICH}`, await h.alice())).status !== 200) return false;
      return isError(await h.get(`/v3/cars/${RICH}`, await h.bob()), 403, 'AUTHORIZATION_ERROR', "Token can't access this car");
    },
  },

  // query
  'limit-ignored': { check: async (h) => (await h.get(`/v3/cars/${RICH}/locations?limit=1`, await h.alice())).json.length === 1 },
  'limit-negative-accepted': {
    check: async (h) => isError(await h.get(`/v3/cars/${RICH}/locations?limit=-1`, await h.alice()), 400, 'PARAMETERS_ERROR', "Limit can't be less than 0"),
  },
  'range-too-long-accepted': {
    check: async (h) =>
      isError(
        await h.get(`/v3/cars/${RICH}/trips?begin=${encodeURIComponent(iso(NOW - 40 * DAY))}&end=${encodeURIComponent(iso(NOW))}`, await h.alice()),
        416,
        'PARAMETERS_ERROR',
        'Range issue in dates',
      ),
  },
  'begin-after-end-accepted': {
    check: async (h) =>
      (await h.get(`/v3/cars/${RICH}/signals?begin=${encodeURIComponent(iso(NOW - DAY))}&end=${encodeURIComponent(iso(NOW - 2 * DAY))}`, await h.alice()))
        .status === 416,
  },
  'default-begin-paris-time': {
    check: async (h) => {
      const locations = (await h.get(`/v3/cars/${RICH}/locations`, await h.alice())).json as any[];
      return locations.length > 0 && locations.every((l) => Date.parse(l.date) >= MONTH_START);
    },
  },
  'name-filter-ignored': {
    check: async (h) => {
      const signals = (await h.get(`/v3/cars/${RICH}/signals?name=Odometer`, await h.alice())).json as any[];
      return signals.length > 0 && signals.every((s) => s.name === 'Odometer');
    },
  },
  'unknown-signal-name-accepted': {
    check: async (h) => isError(await h.get(`/v3/cars/${RICH}/signals?name=Odometer,WarpDrive`, await h.alice()), 400, 'PARAMETERS_ERROR', 'Wrong signal name'),
  },
  'inclusive-inverted': {
    check: async (h) => {
      const within = await tripsOf(h, '?inclusive=false');
      const touching = await tripsOf(h, '?inclusive=true');
      const straddles = (t: any) => Date.parse(t.beginDate) < MONTH_START;
      return !within.some(straddles) && touching.some(straddles);
    },
  },
  'initial-value-ignored': {
    check: async (h) => {
      const token = await h.alice();
      const base = (await h.get(`/v3/cars/${RICH}/stats/usedtime`, token)).json.value;
      const offset = (await h.get(`/v3/cars/${RICH}/stats/usedtime?initialValue=1000`, token)).json.value;
      return offset === base + 1000;
    },
  },
  'initial-value-parse-int': {
    check: async (h) => {
      const token = await h.alice();
      const base = (await h.get(`/v3/cars/${RICH}/stats/mileage`, token)).json.value;
      const offset = (await h.get(`/v3/cars/${RICH}/stats/mileage?initialValue=1000.5`, token)).json.value;
      return Math.abs(offset - (base + 1000.5)) < 1e-6;
    },
  },
  'initial-value-ignored-with-range': {
    check: async (h) => {
      const token = await h.alice();
      const range = `begin=${encodeURIComponent(iso(NOW - 20 * DAY))}&end=${encodeURIComponent(iso(NOW))}`;
      const base = (await h.get(`/v3/cars/${RICH}/stats/mileage?${range}`, token)).json.value;
      const offset = (await h.get(`/v3/cars/${RICH}/stats/mileage?${range}&initialValue=1000`, token)).json.value;
      return Math.abs(offset - (base + 1000)) < 1e-6;
    },
  },
  'limit-per-signal-name': {
    check: async (h) => {
      const token = await h.alice();
      const range = `begin=${encodeURIComponent(iso(NOW - 20 * DAY))}&end=${encodeURIComponent(iso(NOW))}`;
      const signals = (await h.get(`/v3/cars/${RICH}/signals?${range}&name=Odometer,FuelLevel&limit=2`, token)).json as any[];
      return signals.length === 2;
    },
  },
  'unparseable-date-ignored': {
    check: async (h) => isError(await h.get(`/v3/cars/${RICH}/locations?begin=yesterday`, await h.alice()), 400, 'PARAMETERS_ERROR', 'Invalid begin date'),
  },
  'query-checked-before-access': { check: async (h) => (await h.get(`/v3/cars/${BOB_CAR}/locations?limit=-1`, await h.alice())).status === 403 },
  'query-checked-before-existence': { check: async (h) => (await h.get(`/v3/cars/${UNKNOWN_CAR}/locations?limit=-1`, await h.alice())).status === 404 },
  'range-limit-one-week': {
    check: async (h) =>
      (await h.get(`/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(NOW - 28 * DAY))}&end=${encodeURIComponent(iso(NOW))}`, await h.alice()))
        .status === 200,
  },
  'locations-end-ignored': {
    check: async (h) => {
      const end = NOW - 2 * DAY;
      const res = await h.get(`/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(MONTH_START))}&end=${encodeURIComponent(iso(end))}`, await h.alice());
      return res.status === 200 && res.json.length > 0 && (res.json as any[]).every((l) => Date.parse(l.date) <= end);
    },
  },
  'trips-end-ignored': {
    check: async (h) => {
      const end = NOW - 2 * DAY;
      const trips = await tripsOf(h, `?begin=${encodeURIComponent(iso(MONTH_START))}&end=${encodeURIComponent(iso(end))}`);
      return trips.length > 0 && trips.every((t) => Date.parse(t.endDate) <= end);
    },
  },

  'range-only-begin-unchecked': {
    check: async (h) =>
      isError(
        await h.get(`/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(NOW - 40 * DAY))}`, await h.alice()),
        416,
        'PARAMETERS_ERROR',
        'Range issue in dates',
      ),
  },
  'unknown-signal-name-mixed-accepted': {
    check: async (h) =>
      isError(await h.get(`/v3/cars/${RICH}/signals?name=LockSts,NoSuchSignal`, await h.alice()), 400, 'PARAMETERS_ERROR', 'Wrong signal name'),
  },
  'signal-name-case-insensitive': {
    check: async (h) => isError(await h.get(`/v3/cars/${RICH}/signals?name=locksts`, await h.alice()), 400, 'PARAMETERS_ERROR', 'Wrong signal name'),
  },
  'default-end-ten-minutes-ago': {
    // The latest location of the rich car is a minute before now: inside the default range.
    check: async (h) => {
      const locations = (await h.get(`/v3/cars/${RICH}/locations`, await h.alice())).json as any[];
      const latest = h.seed.histories.get(RICH)!.locations.at(-1)!;
      return locations.length > 0 && Date.parse(locations[locations.length - 1].date) === latest.date;
    },
  },
  'range-end-truncated-to-minute': {
    // end equal to a location's date with seconds: that location is the last one answered (the range is inclusive).
    check: async (h) => {
      const target = h.seed.histories
        .get(RICH)!
        .locations.filter((l) => l.date > MONTH_START && l.date < NOW && l.date % 60000 !== 0)
        .at(-1)!;
      const res = await h.get(
        `/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(MONTH_START))}&end=${encodeURIComponent(iso(target.date))}`,
        await h.alice(),
      );
      return res.status === 200 && res.json.length > 0 && Date.parse(res.json[res.json.length - 1].date) === target.date;
    },
  },
  'name-filter-latest-only': {
    check: async (h) => {
      const signals = (await h.get(`/v3/cars/${RICH}/signals?name=Odometer`, await h.alice())).json as any[];
      const expected = h.seed.histories.get(RICH)!.signals.filter((s) => s.name === 'Odometer' && s.date >= MONTH_START && s.date <= NOW);
      return expected.length > 1 && signals.length === expected.length;
    },
  },
  'range-equal-refused': {
    check: async (h) => (await h.get(`/v3/cars/${RICH}/locations?begin=${iso(NOW - DAY)}&end=${iso(NOW - DAY)}`, await h.alice())).status === 200,
  },
  'date-param-offset-only': {
    check: async (h) => {
      const token = await h.alice();
      const zulu = await h.get(
        `/v3/cars/${RICH}/trips?begin=${new Date(NOW - 3 * DAY).toISOString()}&end=${new Date(NOW).toISOString().replace('.000Z', 'Z')}`,
        token,
      );
      return zulu.status === 200;
    },
  },
  'range-offset-dropped': { check: (h) => sameLocationsWithOffset(h, 330) },
  'range-offset-sign-inverted': { check: (h) => sameLocationsWithOffset(h, -420) },
  'range-bound-whole-seconds': {
    // begin a fraction of a second after a location: that location is not listed.
    check: async (h) => {
      const at = h.seed.histories.get(RICH)!.locations.at(-20)!.date;
      const begin = Math.floor(at / 1000) * 1000 + 999;
      const listed = (
        await h.get(
          `/v3/cars/${RICH}/locations?begin=${encodeURIComponent(new Date(begin).toISOString())}&end=${encodeURIComponent(iso(begin + 600_000))}`,
          await h.alice(),
        )
      ).json as any[];
      return at < begin && listed.length > 0 && listed.every((l) => Date.parse(l.date) >= begin);
    },
  },
  'inclusive-end-only': {
    check: async (h) => {
      const trip = (await tripsOf(h, '')).at(-2);
      const begin = Date.parse(trip.beginDate) - DAY;
      const end = Math.floor((Date.parse(trip.beginDate) + Date.parse(trip.endDate)) / 2000) * 1000;
      const listed = await tripsOf(h, `?begin=${iso(begin)}&end=${iso(end)}&inclusive=true`);
      return listed.some((t) => t.id === trip.id);
    },
  },
  'limit-before-range': {
    // A range in the past holding more than two locations: limit=2 answers two of them.
    check: async (h) => {
      const token = await h.alice();
      const [begin, end] = [NOW - 10 * DAY, NOW - 8 * DAY];
      const query = `begin=${encodeURIComponent(iso(begin))}&end=${encodeURIComponent(iso(end))}`;
      const all = (await h.get(`/v3/cars/${RICH}/locations?${query}`, token)).json as any[];
      const two = (await h.get(`/v3/cars/${RICH}/locations?${query}&limit=2`, token)).json as any[];
      return all.length > 2 && two.length === 2 && two.every((l) => Date.parse(l.date) >= begin && Date.parse(l.date) <= end);
    },
  },
  'limit-skips-default-range': {
    // A limit larger than the default range holds: still only items since the 1st of the month.
    check: async (h) => {
      const token = await h.alice();
      const month = (await h.get(`/v3/cars/${RICH}/locations`, token)).json as any[];
      const more = (await h.get(`/v3/cars/${RICH}/locations?limit=${month.length + 1}`, token)).json as any[];
      return month.length > 0 && more.length === month.length && more.every((l) => Date.parse(l.date) >= MONTH_START);
    },
  },
  'name-filter-substring': {
    check: async (h) => {
      const signals = (await h.get(`/v3/cars/${RICH}/signals?name=FuelLevel`, await h.alice())).json as any[];
      return signals.length > 0 && signals.every((s) => s.name === 'FuelLevel');
    },
  },
  'name-filter-single-ignored': {
    check: async (h) => {
      const signals = (await h.get(`/v3/trips/${h.latestTrip(RICH)}/signals?name=LockSts`, await h.alice())).json as any[];
      return signals.length > 0 && signals.every((s) => s.name === 'LockSts');
    },
  },
  'inclusive-ignores-range': {
    // Every trip listed with inclusive=true began or ended in the range.
    check: async (h) => {
      const [begin, end] = [NOW - 5 * DAY, NOW - 3 * DAY];
      const listed = await tripsOf(h, `?begin=${encodeURIComponent(iso(begin))}&end=${encodeURIComponent(iso(end))}&inclusive=true`);
      const inside = (date: string) => Date.parse(date) >= begin && Date.parse(date) <= end;
      return listed.length > 0 && listed.every((t) => inside(t.beginDate) || inside(t.endDate));
    },
  },

  // geojson
  'geojson-lat-lon-swapped': {
    check: async (h) => {
      const token = await h.alice();
      const locations = (await h.get(`/v3/cars/${RICH}/locations?limit=3`, token)).json as any[];
      const points = (await h.get(`/v3/cars/${RICH}/locations.geojson?limit=3`, token)).json as any[];
      return points.length === 3 && points.every((p, i) => p.coordinates[0] === locations[i].longitude && p.coordinates[1] === locations[i].latitude);
    },
  },
  'trip-geojson-points': { check: async (h) => (await h.get(`/v3/trips/${h.latestTrip(RICH)}/locations.geojson`, await h.alice())).json.type === 'LineString' },
  'car-geojson-feature-collection': { check: async (h) => Array.isArray((await h.get(`/v3/cars/${RICH}/locations.geojson?limit=2`, await h.alice())).json) },
  'geojson-limit-ignored': {
    check: async (h) => {
      const body = (await h.get(`/v3/cars/${RICH}/locations.geojson?limit=2`, await h.alice())).json;
      return Array.isArray(body) && body.length === 2;
    },
  },
  'geojson-range-ignored': {
    check: async (h) => {
      const token = await h.alice();
      const range = `?begin=${iso(NOW - 2 * DAY)}&end=${iso(NOW)}`;
      const points = (await h.get(`/v3/cars/${RICH}/locations.geojson${range}`, token)).json as any[];
      const locations = (await h.get(`/v3/cars/${RICH}/locations${range}`, token)).json as any[];
      return points.length === locations.length && locations.length > 0;
    },
  },
  'geojson-range-default-only': {
    check: async (h) => {
      const token = await h.alice();
      const range = `?begin=${encodeURIComponent(iso(NOW - 20 * DAY))}&end=${encodeURIComponent(iso(NOW - 16 * DAY))}`;
      const points = (await h.get(`/v3/cars/${RICH}/locations.geojson${range}`, token)).json as any[];
      const locations = (await h.get(`/v3/cars/${RICH}/locations${range}`, token)).json as any[];
      return points.length === locations.length && locations.length > 0;
    },
  },
  'trip-geojson-drops-last-point': {
    check: async (h) => {
      const token = await h.alice();
      const trip = h.latestTrip(RICH);
      const locations = (await h.get(`/v3/trips/${trip}/locations`, token)).json as any[];
      const line = (await h.get(`/v3/trips/${trip}/locations.geojson`, token)).json;
      return line.coordinates.length === locations.length;
    },
  },

  // coherence
  'trip-mileage-miles': {
    check: async (h) => {
      const token = await h.alice();
      const trip = h.latestTrip(RICH);
      return (await h.get(`/v3/trips/${trip}`, token)).json.mileage === (await h.get(`/v3/trips/${trip}/stats/mileage`, token)).json.value;
    },
  },
  'trip-usedtime-ms': {
    check: async (h) => {
      const trip = (await h.get(`/v3/trips/${h.latestTrip(RICH)}`, await h.alice())).json;
      return trip.usedTime === (Date.parse(trip.endDate) - Date.parse(trip.beginDate)) / 1000;
    },
  },
  'car-stats-all-time': {
    check: async (h) => {
      const trips = (await tripsOf(h, '')) as any[];
      const token = await h.alice();
      const sum = (await Promise.all(trips.map((t) => h.get(`/v3/trips/${t.id}`, token)))).reduce((acc, r) => acc + r.json.mileage, 0);
      const stat = (await h.get(`/v3/cars/${RICH}/stats/mileage`, token)).json.value;
      return Math.abs(stat - sum) < 0.01;
    },
  },
  'car-stats-range-ignored': {
    check: async (h) => {
      const stat = (await h.get(`/v3/cars/${RICH}/stats/mileage?begin=${iso(NOW - 40 * DAY)}&end=${iso(NOW - 20 * DAY)}`, await h.alice())).json;
      return Date.parse(stat.beginDate) === NOW - 40 * DAY && Date.parse(stat.endDate) === NOW - 20 * DAY;
    },
  },
  'car-usedtime-ms': {
    check: async (h) => {
      const stat = (await h.get(`/v3/cars/${RICH}/stats/usedtime?begin=${iso(NOW - 20 * DAY)}&end=${iso(NOW)}`, await h.alice())).json;
      return stat.value > 0 && stat.value <= (20 * DAY) / 1000;
    },
  },
  'trip-list-dates-shifted': {
    check: async (h) => {
      const token = await h.alice();
      const listed = await tripsOf(h, '');
      const full = await Promise.all(listed.map((t) => h.get(`/v3/trips/${t.id}`, token)));
      const same = (a: string, b: string) => Date.parse(a) === Date.parse(b);
      return (
        listed.length > 0 &&
        listed.every((t, i) => full[i].status === 200 && same(t.beginDate, full[i].json.beginDate) && same(t.endDate, full[i].json.endDate))
      );
    },
  },
  'trip-stats-usedtime-minutes': {
    check: async (h) => {
      const token = await h.alice();
      const trip = h.latestTrip(RICH);
      const usedTime = (await h.get(`/v3/trips/${trip}`, token)).json.usedTime;
      const single = (await h.get(`/v3/trips/${trip}/stats/usedtime`, token)).json.value;
      const combined = ((await h.get(`/v3/trips/${trip}/stats`, token)).json as any[]).find((s) => s.type === 'USED_TIME');
      return usedTime > 0 && single === usedTime && combined?.value === usedTime;
    },
  },
  'trip-signals-unfiltered': {
    check: async (h) => {
      const token = await h.alice();
      const trip = (await h.get(`/v3/trips/${h.latestTrip(RICH)}`, token)).json;
      const signals = (await h.get(`/v3/trips/${trip.id}/signals`, token)).json as any[];
      const [b, e] = [Date.parse(trip.beginDate), Date.parse(trip.endDate)];
      return signals.length > 0 && signals.every((s) => Date.parse(s.date) >= b && Date.parse(s.date) <= e);
    },
  },
  'me-cars-only-with-device': {
    check: async (h) => ((await h.get('/v3/users/me/cars', await h.alice())).json as any[]).some((c) => c.id === BARE),
  },
  'user-by-id-names-swapped': {
    check: async (h) => {
      const token = await h.alice();
      const [me, byId] = [(await h.get('/v3/users/me', token)).json, (await h.get(`/v3/users/${ALICE}`, token)).json];
      return me.firstName !== me.lastName && byId.firstName === me.firstName && byId.lastName === me.lastName;
    },
  },
  'users-me-first-user': { check: async (h) => (await h.get('/v3/users/me', await h.bob())).json.id === BOB },
  'me-cars-all-users': { check: async (h) => ((await h.get('/v3/users/me/cars', await h.alice())).json as any[]).every((c) => c.id !== BOB_CAR) },
  'trip-list-ids-uppercase': {
    check: async (h) => {
      const token = await h.alice();
      const [first] = (await h.get(`/v3/cars/${RICH}/trips`, token)).json as any[];
      return (await h.get(`/v3/trips/${first.id}`, token)).status === 200;
    },
  },
  'car-by-id-first-car': { check: async (h) => (await h.get(`/v3/cars/${SECOND}`, await h.alice())).json.id === SECOND },
  'trip-by-id-latest-trip': {
    check: async (h) => {
      const [first] = await tripsOf(h, '');
      return first.id !== h.latestTrip(RICH) && (await h.get(`/v3/trips/${first.id}`, await h.alice())).json.id === first.id;
    },
  },
  'car-trips-all-user-cars': {
    // No trip of the rich car is listed for alice's second car.
    check: async (h) => {
      const rich = (await tripsOf(h, '')).map((t) => t.id);
      const second = ((await h.get(`/v3/cars/${SECOND}/trips`, await h.alice())).json as any[]).map((t) => t.id);
      return rich.length > 0 && !second.some((id) => rich.includes(id));
    },
  },

  // devices
  'dissociate-leaves-deviceId': {
    check: async (h) => {
      const token = await h.alice();
      const res = await h.post('/v3/devices/VDSREF0002/dissociate', { token });
      return res.status === 204 && (await h.get(`/v3/cars/${SECOND}`, token)).json.deviceId === null;
    },
  },
  'pin-lockout-never': {
    check: async (h) => {
      const token = await h.alice();
      for (let i = 0; i < 3; i++) await h.post('/v3/devices/VDSREF0102/associate?pin=0000', { token });
      return isError(await h.post('/v3/devices/VDSREF0102/associate?pin=24680', { token }), 403, 'AUTHORIZATION_ERROR', 'Too many failed pin attempts');
    },
  },
  'device-404-type-not-found': {
    check: async (h) => {
      const res = await h.post('/v3/devices/NOSUCHDEVICE/associate?pin=1234', { token: await h.alice() });
      return res.status === 404 && err(res).type === 'PARAMETERS_ERROR';
    },
  },
  'device-already-associated-400': {
    check: async (h) => (await h.post(`/v3/devices/VDSREF0001/associate?carId=${BARE}`, { token: await h.alice() })).status === 409,
  },
  'associate-leaves-deviceId-null': {
    check: async (h) => {
      const token = await h.alice();
      await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token });
      return (await h.get(`/v3/cars/${BARE}`, token)).json.deviceId === 'VDSREF0101';
    },
  },
  'pin-not-checked': { check: async (h) => (await h.post('/v3/devices/VDSREF0103/associate?pin=0000', { token: await h.alice() })).status === 400 },
  'dissociate-unknown-device-409': {
    check: async (h) => {
      const res = await h.post('/v3/devices/NOSUCHDEVICE/dissociate', { token: await h.alice() });
      return res.status === 404 && err(res).type === 'PARAMETERS_ERROR';
    },
  },
  'dissociate-unassociated-204': { check: async (h) => (await h.post('/v3/devices/VDSREF0104/dissociate', { token: await h.alice() })).status === 409 },
  'pin-associate-200': {
    check: async (h) => {
      const res = await h.post('/v3/devices/VDSREF0102/associate?pin=24680', { token: await h.alice() });
      return res.status === 204 && res.text === '';
    },
  },
  'malformed-carid-404': {
    check: async (h) =>
      isError(await h.post('/v3/devices/VDSREF0101/associate?carId=not-a-car', { token: await h.alice() }), 400, 'PARAMETERS_ERROR', 'Malformed carId'),
  },
  'device-owner-not-checked': {
    check: async (h) => {
      const res = await h.post('/v3/devices/VDSREF0002/dissociate', { token: await h.bob() });
      return (
        res.status === 403 && err(res).type === 'AUTHORIZATION_ERROR' && (await h.get(`/v3/cars/${SECOND}`, await h.alice())).json.deviceId === 'VDSREF0002'
      );
    },
  },
  'malformed-device-id-500': {
    check: async (h) =>
      isError(await h.post('/v3/devices/bad.id/associate?pin=1234', { token: await h.alice() }), 400, 'PARAMETERS_ERROR', 'Malformed device id'),
  },
  'malformed-pin-500': {
    check: async (h) =>
      isError(await h.post('/v3/devices/VDSREF0101/associate?pin=12ab', { token: await h.alice() }), 400, 'PARAMETERS_ERROR', 'Malformed pin'),
  },
  'unknown-device-400': {
    check: async (h) => (await h.post('/v3/devices/VDSREF9999/dissociate', { token: await h.alice() })).status === 404,
  },
  'device-id-case-insensitive': {
    // The serial in lower case names no device: 404, and the seeded device stays on its car.
    check: async (h) => {
      const res = await h.post('/v3/devices/vdsref0001/dissociate', { token: await h.alice() });
      return res.status === 404 && (await h.get(`/v3/cars/${RICH}`, await h.alice())).json.deviceId === 'VDSREF0001';
    },
  },
  'associate-check-then-act': {
    check: async (h) => {
      // Two associations of one free device sent together: one wins, the other finds it associated.
      const token = await h.alice();
      const answers = await Promise.all([1, 2].map(() => h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token })));
      return (
        answers
          .map((r) => r.status)
          .sort()
          .join() === '204,409'
      );
    },
  },
  'pin-failures-lost-update': {
    check: async (h) => {
      // Three wrong pins sent together all count: the right pin is then refused.
      const token = await h.alice();
      await Promise.all([1, 2, 3].map(() => h.post('/v3/devices/VDSREF0104/associate?pin=0000', { token })));
      return isError(await h.post('/v3/devices/VDSREF0104/associate?pin=8642', { token }), 403, 'AUTHORIZATION_ERROR', 'Too many failed pin attempts');
    },
  },
  'pin-failures-per-user': {
    // Two wrong pins by alice and one by bob lock the device: alice's right pin is then refused.
    check: async (h) => {
      const [alice, bob] = [await h.alice(), await h.bob()];
      for (const token of [alice, alice, bob]) if ((await h.post('/v3/devices/VDSREF0106/associate?pin=111111', { token })).status !== 400) return false;
      return (await h.post('/v3/devices/VDSREF0106/associate?pin=271828', { token: alice })).status === 403;
    },
  },
  'pin-lockout-right-pin-accepted': {
    check: async (h) => {
      const token = await h.alice();
      for (let i = 0; i < 3; i++) await h.post('/v3/devices/VDSREF0105/associate?pin=0000', { token });
      return isError(await h.post('/v3/devices/VDSREF0105/associate?pin=31415', { token }), 403, 'AUTHORIZATION_ERROR', 'Too many failed pin attempts');
    },
  },
  // A leading zero makes a pin of 7 digits: malformed (400), never the device's 975310.
  'pin-compared-as-number': { check: async (h) => (await h.post('/v3/devices/VDSREF0103/associate?pin=0975310', { token: await h.alice() })).status === 400 },
  'pin-association-500': { check: async (h) => (await h.post('/v3/devices/VDSREF0104/associate?pin=8642', { token: await h.alice() })).status === 204 },

  // car creation
  'dissociate-check-then-act': {
    check: async (h) => {
      // Two dissociations of one associated device sent together: one wins, the other finds it not associated.
      const token = await h.alice();
      if ((await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token })).status !== 204) return false;
      const answers = await Promise.all([1, 2].map(() => h.post('/v3/devices/VDSREF0101/dissociate', { token })));
      return (
        answers
          .map((r) => r.status)
          .sort()
          .join() === '204,409'
      );
    },
  },
  'associate-conflict-same-car-only': {
    check: async (h) => {
      // A device on one car, associated again naming another car of the same user (a new one, without a device).
      const token = await h.alice();
      if ((await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token })).status !== 204) return false;
      const other = (await createCar(h, VALID_CAR)).json.id;
      const res = await h.post(`/v3/devices/VDSREF0101/associate?carId=${other}`, { token });
      return isError(res, 409, 'PARAMETERS_ERROR', 'Device already associated') && (await h.get(`/v3/cars/${BARE}`, token)).json.deviceId === 'VDSREF0101';
    },
  },
  'pin-associate-ignores-car-link': {
    check: async (h) => {
      // A device on the user's car, associated again by its right pin.
      const token = await h.alice();
      if ((await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token })).status !== 204) return false;
      return isError(await h.post('/v3/devices/VDSREF0101/associate?pin=1357', { token }), 409, 'PARAMETERS_ERROR', 'Device already associated');
    },
  },
  'created-car-missing-timezone': { check: async (h) => typeof (await createCar(h, { ...VALID_CAR, timezone: 'Asia/Tokyo' })).json.timezone === 'string' },
  'created-car-default-timezone-utc': { check: async (h) => (await createCar(h, VALID_CAR)).json.timezone === 'Europe/Paris' },
  'car-create-short-make-accepted': { check: async (h) => (await createCar(h, { ...VALID_CAR, make: 'VW' })).status === 400 },
  'car-create-bad-timezone-accepted': { check: async (h) => (await createCar(h, { ...VALID_CAR, timezone: 'Mars/Olympus_Mons' })).status === 400 },
  'created-car-not-listed': {
    check: async (h) => {
      const id = (await createCar(h, VALID_CAR)).json.id;
      const cars = (await h.get('/v3/users/me/cars', await h.alice())).json as any[];
      return cars.some((c) => c.id === id);
    },
  },
  'created-car-no-owner-check': {
    check: async (h) => {
      const id = (await createCar(h, VALID_CAR)).json.id;
      return (await h.get(`/v3/cars/${id}`, await h.bob())).status === 403;
    },
  },
  'created-car-subroutes-unchecked': {
    check: async (h) => {
      const id = (await createCar(h, VALID_CAR)).json.id;
      return (await h.get(`/v3/cars/${id}/status`, await h.bob())).status === 403;
    },
  },
  'me-cars-omit-created': {
    check: async (h) => {
      const id = (await createCar(h, VALID_CAR)).json.id;
      const cars = (await h.get('/v3/users/me/cars', await h.alice())).json as any[];
      return cars.some((c) => c.id === id);
    },
  },
  'car-create-array-body-500': { check: async (h) => (await createCar(h, [VALID_CAR])).status === 400 },
  'car-create-model-optional': { check: async (h) => (await createCar(h, { make: 'Renault' })).status === 400 },
  'car-text-latin1': {
    check: async (h) => {
      const body = { ...VALID_CAR, name: 'Zoé à Noël 🚗', model: 'Mégane' };
      const res = await createCar(h, body);
      return res.status === 201 && res.json.name === body.name && res.json.model === body.model;
    },
  },
  'car-create-64-refused': { check: async (h) => (await createCar(h, { ...VALID_CAR, make: 'M'.repeat(64), numberPlate: 'P'.repeat(64) })).status === 201 },
  'created-car-id-reused': {
    check: async (h) => {
      const first = await createCar(h, { ...VALID_CAR, model: 'First' });
      const second = await createCar(h, { ...VALID_CAR, model: 'Second' });
      return first.status === 201 && second.status === 201 && first.json.id !== second.json.id;
    },
  },
  'created-car-id-race': {
    check: async (h) => {
      // Two cars created together: two ids, each reading back its own model.
      const [first, second] = await Promise.all(['First', 'Second'].map((model) => createCar(h, { ...VALID_CAR, model })));
      if (first.status !== 201 || second.status !== 201 || first.json.id === second.json.id) return false;
      const token = await h.alice();
      return (
        (await h.get(`/v3/cars/${first.json.id}`, token)).json.model === 'First' && (await h.get(`/v3/cars/${second.json.id}`, token)).json.model === 'Second'
      );
    },
  },
  'car-create-make-3-refused': { check: async (h) => (await createCar(h, { ...VALID_CAR, make: 'Kia' })).status === 201 },
  'car-create-model-64-refused': { check: async (h) => (await createCar(h, { ...VALID_CAR, model: 'M'.repeat(64) })).status === 201 },
  'car-create-empty-name-refused': { check: async (h) => (await createCar(h, { ...VALID_CAR, name: '' })).status === 201 },
  'car-create-empty-plate-refused': { check: async (h) => (await createCar(h, { ...VALID_CAR, numberPlate: '' })).status === 201 },
  'created-car-ignores-timezone': { check: async (h) => (await createCar(h, { ...VALID_CAR, timezone: 'Asia/Tokyo' })).json.timezone === 'Asia/Tokyo' },
  'car-create-body-user-id': {
    // A body naming bob as userId: the car is alice's (the path's user), and bob's list does not hold it.
    check: async (h) => {
      const res = await createCar(h, { ...VALID_CAR, model: 'Owner probe', userId: BOB });
      const bobs = (await h.get(`/v3/users/${BOB}/cars`, await h.bob())).json as any[];
      return res.status === 201 && res.json.userId === ALICE && !bobs.some((c) => c.model === 'Owner probe');
    },
  },
  'car-create-body-id': {
    // A body offering bob's car's id: the new car gets an id of its own, bob's car stays his.
    check: async (h) => {
      const res = await createCar(h, { ...VALID_CAR, id: BOB_CAR });
      const bobs = (await h.get(`/v3/users/${BOB}/cars`, await h.bob())).json as any[];
      return res.status === 201 && res.json.id !== BOB_CAR && bobs.some((c) => c.id === BOB_CAR && c.model !== VALID_CAR.model);
    },
  },
  'car-create-body-device': {
    // A body offering bob's device as deviceId: the new car has no device.
    check: async (h) => {
      const res = await createCar(h, { ...VALID_CAR, deviceId: 'VDSREF0003' });
      return res.status === 201 && (await h.get(`/v3/cars/${res.json.id}`, await h.alice())).json.deviceId === null;
    },
  },
  'car-text-utf8mb3': { check: async (h) => textKept(h, { name: 'Probe 🚗 𠮷' }) },
  'car-text-astral-stripped': { check: async (h) => textKept(h, { name: '🚗🚕🚙' }) },
  'car-text-markup-escaped': { check: async (h) => textKept(h, { name: `A&B <i>x</i> "q" 'r'` }) },
  'car-text-length-utf16': { check: async (h) => textKept(h, { make: '🚗'.repeat(64) }) },
  'car-text-length-bytes': { check: async (h) => textKept(h, { make: 'é'.repeat(64) }) },
  'car-text-controls-stripped': { check: async (h) => textKept(h, { name: 'Probe\ttab\u0000nul' }) },
  'car-create-body-members': {
    // A body offering the server's members: the new car keeps none of them.
    check: async (h) => {
      const res = await createCar(h, { ...VALID_CAR, deviceId: 'VDSREF0003', cardbId: 7, creationDate: '2001-02-03T04:05:06+00:00' });
      const car = (await h.get(`/v3/cars/${res.json.id}`, await h.alice())).json;
      return res.status === 201 && car.deviceId === null && car.cardbId !== 7 && !car.creationDate.startsWith('2001');
    },
  },

  // token endpoint
  'auth-code-reusable': {
    check: async (h) => {
      const code = await h.code();
      await h.exchange({ grant_type: 'authorization_code', code });
      return (await h.exchange({ grant_type: 'authorization_code', code })).status === 403;
    },
  },
  'refresh-answer-without-refresh-token': {
    check: async (h) => {
      const { refresh_token } = await h.tokenResponse();
      const res = await h.exchange({ grant_type: 'refresh_token', refresh_token });
      return res.status === 200 && typeof res.json?.refresh_token === 'string' && res.json.refresh_token !== '';
    },
  },
  'invalid-code-array-body': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'authorization_code', code: 'not-a-code' });
      return res.status === 403 && JSON.stringify(res.json) === '{"message":"Invalid authentication"}';
    },
  },
  'invalid-refresh-array-body': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' });
      return res.status === 403 && JSON.stringify(res.json) === '{"message":"Invalid authentication"}';
    },
  },
  // Run with its variant (authorization-server-oidc), whose tokens are timed by the real clock.
  'oidc-token-without-expires-at': {
    check: async (h) => {
      const token = await h.tokenResponse();
      return Number.isInteger(token.expires_at) && Math.abs(token.expires_at - (Math.floor(Date.now() / 1000) + token.expires_in)) <= 5;
    },
  },
  // Run with its variant (authorization-server-oidc): a used code and a dead refresh token, refused with the legacy body.
  'oidc-invalid-grant-passed-through': {
    check: async (h) => {
      const token = await h.tokenResponse();
      await h.exchange({ grant_type: 'refresh_token', refresh_token: token.refresh_token });
      const refresh = await h.exchange({ grant_type: 'refresh_token', refresh_token: token.refresh_token });
      const code = await h.exchange({ grant_type: 'authorization_code', code: 'not-a-code' });
      return [refresh, code].every((res) => res.status === 403 && JSON.stringify(res.json) === '{"message":"Invalid authentication"}');
    },
  },
  'token-expires-at-ms': { check: async (h) => (await h.tokenResponse()).expires_at === Math.floor(NOW / 1000) + 3600 },
  // RFC 6749 section 5.1: token_type is case-insensitive.
  'token-type-mac': { check: async (h) => String((await h.tokenResponse()).token_type).toLowerCase() === 'bearer' },
  // Run with its variant (encoded-credentials): the secret in RFC 6749 § 2.3.1's form (h.exchange's) is taken.
  'client-basic-raw-only': {
    check: async (h) => (await h.exchange({ grant_type: 'authorization_code', code: await h.code() })).status === 200,
  },
  'client-secret-not-checked': {
    check: async (h) => {
      const code = await h.code();
      const res = await h.post('/v3/auth/access_token', {
        form: { grant_type: 'authorization_code', code },
        headers: { authorization: `Basic ${Buffer.from('vds-conformance:wrong-secret').toString('base64')}` },
      });
      return isError(res, 401, 'AUTHENTICATION_ERROR', 'Invalid client credentials');
    },
  },
  'missing-code-403': { check: async (h) => isError(await h.exchange({ grant_type: 'authorization_code' }), 400, 'PARAMETERS_ERROR', 'Missing parameter') },
  'missing-grant-type-500': { check: async (h) => isError(await h.exchange({ code: await h.code() }), 400, 'PARAMETERS_ERROR', 'Missing parameter') },

  'client-secret-prefix-compare': {
    check: async (h) => {
      const res = await h.post('/v3/auth/access_token', {
        form: { grant_type: 'authorization_code', code: await h.code() },
        headers: { authorization: `Basic ${Buffer.from('vds-conformance:reference-client-secre').toString('base64')}` },
      });
      return res.status === 401;
    },
  },
  'client-credentials-from-query': {
    check: async (h) => {
      const query = 'client_id=vds-conformance&client_secret=reference-client-secret';
      return (await h.post(`/v3/auth/access_token?${query}`, { form: { grant_type: 'authorization_code', code: await h.code() } })).status === 401;
    },
  },
  'code-compared-case-insensitively': {
    check: async (h) => {
      const flipped = [...(await h.code())].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
      return (await h.exchange({ grant_type: 'authorization_code', code: flipped })).status === 403;
    },
  },
  'refresh-compared-on-first-20': {
    check: async (h) => {
      const { refresh_token } = await h.tokenResponse();
      const changed = `${refresh_token.slice(0, 30)}${refresh_token[30] === 'A' ? 'B' : 'A'}${refresh_token.slice(31)}`;
      return (await h.exchange({ grant_type: 'refresh_token', refresh_token: changed })).status === 403;
    },
  },
  'grant-kinds-one-table': { check: async (h) => (await h.exchange({ grant_type: 'refresh_token', refresh_token: await h.alice() })).status === 403 },
  'refresh-scope-param-granted': {
    check: async (h) => {
      const first = await h.tokenResponse({ scope: 'users_read' });
      const res = await h.exchange({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'users_read cars_read' });
      return res.status >= 400 || (await h.get('/v3/users/me/cars', JSON.parse(res.text).access_token)).status === 403;
    },
  },
  'code-grant-widens-earlier-tokens': {
    check: async (h) => {
      const earlier = (await h.tokenResponse({ scope: 'users_read' })).access_token;
      await h.tokenResponse({ scope: 'users_read cars_read' });
      return (await h.get('/v3/users/me/cars', earlier)).status === 403;
    },
  },
  'jwt-refresh-signature-not-verified': {
    // A refresh token of users_read whose scope claim now says every scope, under its own signature.
    check: async (h) => {
      const refresh = (await h.tokenResponse({ scope: 'users_read' })).refresh_token as string;
      const [header, payload, signature] = refresh.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      const forged = `${header}.${b64({ ...claims, scope: ALL_SCOPES.join(' ') })}.${signature}`;
      return (await h.exchange({ grant_type: 'refresh_token', refresh_token: forged })).status === 403;
    },
  },
  'token-superseded-expires': {
    check: async (h) => {
      const earlier = (await h.tokenResponse()).access_token;
      await h.tokenResponse();
      return (await h.get('/v3/users/me', earlier)).status === 200;
    },
  },
  'token-no-client-400': {
    check: async (h) =>
      isError(
        await h.exchange({ grant_type: 'authorization_code', code: await h.code() }, null),
        401,
        'AUTHENTICATION_ERROR',
        'Client authentication is missing',
      ),
  },
  'refresh-missing-token-403': { check: async (h) => isError(await h.exchange({ grant_type: 'refresh_token' }), 400, 'PARAMETERS_ERROR', 'Missing parameter') },
  'refresh-grants-all-app-scopes': {
    check: async (h) => {
      const first = await h.tokenResponse({ scope: 'users_read' });
      const refreshed = await h.exchange({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
      const token = JSON.parse(refreshed.text).access_token as string;
      return (await h.get('/v3/users/me', token)).status === 200 && (await h.get('/v3/users/me/cars', token)).status === 403;
    },
  },
  'code-grant-answers-other-token': {
    check: async (h) => {
      const answer = await h.tokenResponse();
      return (await h.get('/v3/users/me', answer.access_token)).status === 200;
    },
  },
  'code-client-not-checked': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'authorization_code', code: await h.code() }, 'limited');
      return res.status === 403 && JSON.stringify(res.json) === '{"message":"Invalid authentication"}';
    },
  },
  'refresh-client-not-checked': {
    check: async (h) => {
      const { refresh_token } = await h.tokenResponse();
      const res = await h.exchange({ grant_type: 'refresh_token', refresh_token }, 'limited');
      return res.status === 403 && JSON.stringify(res.json) === '{"message":"Invalid authentication"}';
    },
  },
  'token-endpoint-get-accepted': {
    check: async (h) => {
      const query = new URLSearchParams({ grant_type: 'authorization_code', code: await h.code(), redirect_uri: REDIRECT_URI });
      const res = await h.get(`/v3/auth/access_token?${query}`, undefined, { authorization: basic('full') });
      return res.status >= 400 && res.json?.access_token === undefined;
    },
  },
  'code-grant-scope-param-granted': {
    check: async (h) => {
      const code = await h.code({ scope: 'users_read' });
      const res = await h.exchange({ grant_type: 'authorization_code', code, scope: ALL_SCOPES.join(' ') });
      return res.status >= 400 || (await h.get('/v3/users/me/cars', JSON.parse(res.text).access_token)).status === 403;
    },
  },
  'grant-param-of-other-grant': {
    check: async (h) => isError(await h.exchange({ grant_type: 'refresh_token', code: await h.code() }), 400, 'PARAMETERS_ERROR', 'Missing parameter'),
  },
  'token-repeated-param-first-wins': {
    check: async (h) => {
      const body = `grant_type=authorization_code&code=${encodeURIComponent(await h.code())}&code=never-issued`;
      const res = await h.post('/v3/auth/access_token', {
        body,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('full') },
      });
      return res.status === 400 && res.json?.access_token === undefined;
    },
  },
  'client-empty-secret-skips-check': {
    check: async (h) => {
      const res = await h.post('/v3/auth/access_token', { form: { grant_type: 'authorization_code', code: await h.code(), client_id: 'vds-conformance' } });
      return isError(res, 401, 'AUTHENTICATION_ERROR', 'Invalid client credentials');
    },
  },
  'password-grant-accepted': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'password', username: 'alice@reference.test', password: 'alice-password' });
      return res.status >= 400 && res.json?.access_token === undefined;
    },
  },

  // sign-in
  'signin-csrf-field-missing': { check: async (h) => (await h.signIn()).status === 302 },
  'signin-session-store-500': { check: async (h) => (await h.signIn()).status === 302 },
  'state-not-echoed': { check: async (h) => (await h.signIn({ state: 'xyz 42/&' })).location?.searchParams.get('state') === 'xyz 42/&' },
  'state-echoed-raw': { check: async (h) => (await h.signIn({ state: "a b/?&x=1+2#3%41:'" })).location?.searchParams.get('state') === "a b/?&x=1+2#3%41:'" },
  'signin-unknown-client-200': {
    check: async (h) => {
      const res = await h.get('/v3/auth/auth?client_id=nobody');
      return res.status === 404 && res.contentType.startsWith('text/html');
    },
  },
  'signin-redirect-uri-not-checked': {
    check: async (h) => (await h.get(`/v3/auth/auth?client_id=vds-conformance&redirect_uri=${encodeURIComponent('http://evil.test/cb')}`)).status === 404,
  },
  'redirect-uri-prefix-match': {
    check: async (h) => (await h.get(`/v3/auth/auth?client_id=vds-conformance&redirect_uri=${encodeURIComponent(`${REDIRECT_URI}/extra`)}`)).status === 404,
  },
  'token-gets-all-app-scopes': { check: async (h) => (await h.get('/v3/users/me/cars', await h.token({ scope: 'users_read' }))).status === 403 },
  'signin-long-scope-all-scopes': {
    check: async (h) => {
      const token = await h.token({ scope: 'users_read cars_write status_read locations_read signals_read trips_read devices_management' });
      return (await h.get('/v3/users/me/cars', token)).status === 403;
    },
  },
  'signin-any-users-password': { check: async (h) => (await h.signIn({ password: passwordOf('bob') })).status === 401 },
  'password-first-8-chars': { check: async (h) => (await h.signIn({ password: 'alice-password-and-more' })).status === 401 },
  'scope-split-on-comma': { check: async (h) => (await h.get('/v3/users/me/cars', await h.token({ scope: 'users_read cars_read' }))).status === 200 },
  'redirect-empty-state': {
    check: async (h) => {
      const res = await h.signIn();
      return res.status === 302 && res.location !== null && !res.location.searchParams.has('state');
    },
  },
  'redirect-uri-trailing-slash': {
    check: async (h) => {
      const location = (await h.signIn()).location;
      return location !== null && `${location.origin}${location.pathname}` === REDIRECT_URI;
    },
  },
  'redirect-code-param-renamed': {
    check: async (h) => {
      const location = (await h.signIn({ redirectUri: REDIRECT_URI })).location;
      return location !== null && `${location.origin}${location.pathname}` === REDIRECT_URI && (location.searchParams.get('code') ?? '') !== '';
    },
  },

  // content type
  'geojson-content-type-text-plain': {
    check: async (h) => /^application\/(geo\+)?json/.test((await h.get(`/v3/cars/${RICH}/locations.geojson?limit=1`, await h.alice())).contentType),
  },
  // Run with its variant (signin-keycloak): the login page's redirect after sign-in.
  'keycloak-redirect-drops-state': { check: async (h) => (await h.signIn({ state: 'kc 7/&' })).location?.searchParams.get('state') === 'kc 7/&' },
  // Run with its variant (signin-cookie-banner): the form behind the banner signs in.
  'signin-banner-form-dead': { check: async (h) => typeof (await h.signIn({ state: 'b' })).location?.searchParams.get('code') === 'string' },
  'signin-page-no-form': { check: async (h) => /<form[\s\S]*name="password"/.test((await h.get('/v3/auth/auth?client_id=vds-conformance')).text) },
  'signin-page-frameable': {
    check: async (h) => (await h.get('/v3/auth/auth?client_id=vds-conformance')).headers['x-frame-options'] === 'DENY',
  },
  'signin-form-get': {
    check: async (h) => /<form method="post" action="\/v3\/auth\/auth">/.test((await h.get('/v3/auth/auth?client_id=vds-conformance')).text),
  },
  'signin-credentials-from-query': {
    check: async (h) => {
      const query = new URLSearchParams({ client_id: 'vds-conformance', username: 'alice@reference.test', password: 'alice-password' });
      return (await h.get(`/v3/auth/auth?${query}`)).status === 200;
    },
  },
  'signin-page-text-plain': { check: async (h) => (await h.get('/v3/auth/auth?client_id=vds-conformance')).contentType.startsWith('text/html') },

  // sandbox
  'sandbox-requires-auth': { mode: 'sandbox', check: async (h) => (await h.get(`/v3/users/${ALICE}`)).status === 200 },
  'sandbox-trips-require-auth': { mode: 'sandbox', check: async (h) => (await h.get(`/v3/trips/${h.latestTrip(RICH)}/stats`)).status === 200 },
  'route-query-id-overrides-path': {
    // alice's own resource with bob's id of that kind in the query (?carId=, ?tripId=, ?userId=): alice's answer.
    check: async (h, route) => {
      const c = caseOf(h, route);
      const token = await h.alice();
      const otherId = c.other!.split('/')[3];
      const own = await h.get(c.own, token);
      const mixed = await h.get(`${c.own}${c.own.includes('?') ? '&' : '?'}${c.kind}Id=${otherId}`, token);
      return own.status === 200 && mixed.status === 200 && mixed.text === own.text;
    },
  },
  'route-sandbox-closed': { mode: 'sandbox', check: async (h, route) => (await callRoute(h, route, undefined)).status === 200 },
  'sandbox-geojson-requires-auth': { mode: 'sandbox', check: async (h) => (await h.get(`/v3/cars/${RICH}/locations.geojson`)).status === 200 },

  // blind red-team round 1 (docs/red-team/round-1.md)
  'blind-head-skips-auth': {
    // HEAD answers what GET would (RFC 9110 § 9.3.2): without a token, the same 401.
    check: async (h) => (await h.request('HEAD', `/v3/cars/${RICH}`)).status === 401,
  },
  'blind-sandbox-by-host-header': {
    // The cloud asks for a token whatever host the request names.
    check: async (h) => {
      const byHost = await h.get(`/v3/cars/${RICH}`, undefined, { host: 'sandbox.reference.test' });
      const byForwarded = await h.get(`/v3/cars/${RICH}`, undefined, { 'x-forwarded-host': 'sandbox.reference.test' });
      return byHost.status === 401 && byForwarded.status === 401;
    },
  },
  'blind-sso-cookie-authenticates-api': {
    // Whatever cookie the sign-in sets, a request without an Authorization header is refused.
    check: async (h) => {
      const res = await h.signIn();
      const set = res.headers['set-cookie'];
      const cookie = (Array.isArray(set) ? set : set ? [String(set)] : []).map((line) => line.split(';')[0]).join('; ');
      return res.status === 302 && isError(await h.get('/v3/users/me', undefined, { cookie }), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing');
    },
  },
  'blind-bearer-scheme-case-sensitive': {
    // The scheme is case-insensitive (RFC 9110 § 11.1): the token record's own token_type, "bearer", works.
    check: async (h) => {
      const token = await h.alice();
      const lower = await h.get('/v3/users/me', undefined, { authorization: `bearer ${token}` });
      const upper = await h.get('/v3/users/me', undefined, { authorization: `BEARER ${token}` });
      return lower.status === 200 && upper.status === 200;
    },
  },
  'blind-query-carid-overrides-path': {
    // alice's car with bob's car id in the query: alice's locations, never bob's.
    check: async (h) => {
      const token = await h.alice();
      const own = await h.get(`/v3/cars/${RICH}/locations?limit=3`, token);
      const mixed = await h.get(`/v3/cars/${RICH}/locations?limit=3&carId=${BOB_CAR}`, token);
      return own.status === 200 && own.json.length === 3 && JSON.stringify(mixed.json) === JSON.stringify(own.json);
    },
  },
  'blind-user-record-password': {
    check: async (h) => {
      const res = await h.get(`/v3/users/${ALICE}`, await h.alice());
      return res.status === 200 && !('password' in res.json) && !res.text.includes('alice-password');
    },
  },
  'me-record-password-hash': {
    check: async (h) => {
      const res = await h.get('/v3/users/me', await h.alice());
      return res.status === 200 && Object.keys(res.json).every((k) => !/password/i.test(k));
    },
  },
  'blind-signin-state-xss': {
    // A state that closes its attribute stays text: the page never holds the script it carries.
    check: async (h) => {
      const state = '"><script>alert(1)</script>';
      const page = await h.get(`/v3/auth/auth?client_id=vds-conformance&state=${encodeURIComponent(state)}`);
      return page.status === 200 && !page.text.includes('<script>alert(1)</script>');
    },
  },
  'blind-signin-post-redirect-unchecked': {
    // The form posted with an unregistered redirect_uri: refused, no code sent there.
    check: async (h) => {
      const res = await h.signIn({ redirectUri: 'https://attacker.invalid/callback' });
      return res.status === 404 && res.location === null;
    },
  },
  'blind-token-answer-cacheable': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'authorization_code', code: await h.code() });
      return res.status === 200 && /\bno-store\b/.test(String(res.headers['cache-control'])) && /\bno-cache\b/.test(String(res.headers.pragma));
    },
  },
  'blind-code-exchange-race': {
    // One code, two exchanges sent together: one gets tokens, the other is refused.
    check: async (h) => {
      const code = await h.code();
      const answers = await Promise.all([h.exchange({ grant_type: 'authorization_code', code }), h.exchange({ grant_type: 'authorization_code', code })]);
      return answers.filter((r) => r.status === 200).length === 1 && answers.filter((r) => r.status === 403).length === 1;
    },
  },
  'blind-token-redirect-uri-unchecked': {
    // A code obtained for the registered redirect URI, exchanged naming another: refused as invalid.
    check: async (h) => {
      const code = await h.code({ redirectUri: REDIRECT_URI });
      const res = await h.exchange({ grant_type: 'authorization_code', code, redirect_uri: 'https://attacker.invalid/callback' });
      return res.status === 403 && res.json?.message === 'Invalid authentication';
    },
  },
  'blind-api-cache-public': {
    // A user's car is never marked for shared caches.
    check: async (h) => {
      const res = await h.get(`/v3/cars/${RICH}`, await h.alice());
      return res.status === 200 && !/\b(public|s-maxage)\b/i.test(String(res.headers['cache-control'] ?? ''));
    },
  },
  'blind-conditional-before-auth': {
    // Right after alice's read, her entity tag (if any) without a token: 401, the precondition ignored.
    check: async (h) => {
      const res = await h.get(`/v3/cars/${RICH}`, await h.alice());
      const tag = typeof res.headers.etag === 'string' ? res.headers.etag : '*';
      return isError(await h.get(`/v3/cars/${RICH}`, undefined, { 'if-none-match': tag }), 401, 'AUTHENTICATION_ERROR', 'Authorization is missing');
    },
  },
  'blind-json-bom': {
    check: async (h) => {
      const res = await h.get('/v3/users/me/cars', await h.alice());
      return res.status === 200 && !res.text.startsWith('\uFEFF') && Array.isArray(res.json);
    },
  },
  'blind-created-car-local-time': {
    // Created at the server's now: its creationDate is that instant (to the second), written +00:00.
    check: async (h) => {
      const res = await createCar(h, VALID_CAR);
      return res.status === 201 && STRICT.test(res.json.creationDate) && Math.abs(Date.parse(res.json.creationDate) - h.clock.now) < 1000;
    },
  },
};

/** The car's locations over two days, begin and end written in UTC and as a local time `minutes` off UTC: the same items. */
async function sameLocationsWithOffset(h: Harness, minutes: number): Promise<boolean> {
  const token = await h.alice();
  const local = (t: number) => {
    const sign = minutes < 0 ? '-' : '+';
    const abs = Math.abs(minutes);
    const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return encodeURIComponent(new Date(t + minutes * 60_000).toISOString().replace('.000Z', offset));
  };
  const utc = (await h.get(`/v3/cars/${RICH}/locations?begin=${encodeURIComponent(iso(NOW - 27 * DAY))}&end=${encodeURIComponent(iso(NOW - DAY))}`, token))
    .json as unknown[];
  const shifted = (await h.get(`/v3/cars/${RICH}/locations?begin=${local(NOW - 27 * DAY)}&end=${local(NOW - DAY)}`, token)).json as unknown[];
  return utc.length > 0 && JSON.stringify(utc) === JSON.stringify(shifted);
}
