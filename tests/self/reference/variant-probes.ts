// One probe per variant: it observes the one choice the variant makes differently and returns true
// when the server makes the variant's choice. variants.test.ts runs each probe against the server
// with the variant (must be true) and against the default server (must be false).

import { createPublicKey, verify } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Mode } from '../../../reference-server/context';
import { IDLE_MS, IDLE_SOCKET_MS } from '../../../reference-server/http/idle-close';
import type { VariantName } from '../../../reference-server/variants';
import { DAY, firstError, Harness, iso, MONTH_START, NOW, passwordOf, Res, SEED_IDS, STRICT_DATE } from './helpers';

export interface VariantProbe {
  mode?: Mode;
  check: (h: Harness) => Promise<boolean>;
}

const { aliceRichCar: RICH, aliceBareCar: BARE } = SEED_IDS;
const RECORD_DATE_ZULU = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HOUR = 3600 * 1000;

const dates = (items: any[], field = 'date') => items.map((i) => Date.parse(i[field]));
const descending = (values: number[]) => values.length > 1 && values.every((v, i) => i === 0 || v <= values[i - 1]) && values[0] > values[values.length - 1];
const range = (begin: number, end: number) => `begin=${encodeURIComponent(iso(begin))}&end=${encodeURIComponent(iso(end))}`;
const isJsonArrayText = (res: Res) => {
  try {
    return Array.isArray(JSON.parse(res.text));
  } catch {
    return false;
  }
};

/** GET /v3/users/me over a real socket (the agent's kept-alive one, or a fresh one): its status and Keep-Alive header, or none. */
function rawGet(port: number, agent: http.Agent | undefined): Promise<{ status?: number; keepAlive?: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/v3/users/me', agent: agent ?? false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, keepAlive: res.headers['keep-alive'] as string | undefined }));
    });
    req.on('error', () => resolve({}));
  });
}

export const VARIANT_PROBES: Record<VariantName, VariantProbe> = {
  'jwt-access-tokens': {
    // The token is a JWT signed RS256 with the key OpenID Connect Discovery's document names; it serves, and so does the
    // same token with its signature padded and in base64's alphabet (a lenient decoder's reading of the same bytes).
    check: async (h) => {
      const record = await h.tokenResponse();
      const parts = String(record.access_token).split('.');
      if (parts.length !== 3 || String(record.refresh_token).split('.').length !== 3) return false;
      const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString());
      const discovery = await h.get('/v3/auth/.well-known/openid-configuration');
      const jwksPath = new URL(String(discovery.json?.jwks_uri)).pathname;
      const key = createPublicKey({ key: (await h.get(jwksPath)).json.keys[0], format: 'jwk' });
      const verified = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), key, Buffer.from(parts[2], 'base64url'));
      const signature = Buffer.from(parts[2], 'base64url').toString('base64');
      const [plain, spelt] = await Promise.all([h.get('/v3/users/me', record.access_token), h.get('/v3/users/me', `${parts[0]}.${parts[1]}.${signature}`)]);
      return header.alg === 'RS256' && verified && plain.status === 200 && spelt.status === 200;
    },
  },
  'token-answer-keycloak': {
    check: async (h) => {
      const record = await h.tokenResponse();
      return (
        record.token_type === 'Bearer' &&
        typeof record.refresh_expires_in === 'number' &&
        record['not-before-policy'] === 0 &&
        typeof record.session_state === 'string' &&
        typeof record.scope === 'string'
      );
    },
  },
  'same-token-reissued': {
    // A second sign-in of alice for the same scopes gets the first token again, with the seconds it has left; another scope list a new one.
    check: async (h) => {
      const first = await h.tokenResponse();
      h.clock.now += 10_000;
      const again = await h.tokenResponse();
      const other = await h.tokenResponse({ scope: 'users_read' });
      h.clock.now -= 10_000;
      return (
        again.access_token === first.access_token &&
        again.expires_in === first.expires_in - 10 &&
        again.refresh_token !== first.refresh_token &&
        other.access_token !== first.access_token
      );
    },
  },
  'encoded-credentials': {
    // alice signs in with the password a form must encode, and its code is exchanged with the secret HTTP Basic must encode.
    check: async (h) => {
      const code = (await h.signIn({ password: passwordOf('alice', true) })).location?.searchParams.get('code');
      if (!code) return false;
      return (await h.exchange({ grant_type: 'authorization_code', code })).status === 200;
    },
  },
  'quiet-month': {
    // Nothing in the default range (this month), yet the car has a history and a status.
    check: async (h) => {
      const token = await h.alice();
      const [locations, trips, signals, status] = await Promise.all(
        ['locations', 'trips', 'signals', 'status'].map((route) => h.get(`/v3/cars/${RICH}/${route}`, token)),
      );
      const earlier = await h.get(`/v3/cars/${RICH}/trips?${range(MONTH_START - 20 * DAY, MONTH_START)}`, token);
      return locations.json.length === 0 && trips.json.length === 0 && signals.json.length === 0 && status.json.location !== null && earlier.json.length > 0;
    },
  },
  'many-cars': {
    // Sixteen cars of alice's, the twelve extra ones first: nine never driven, then one with a few trips, her rich car further down.
    check: async (h) => {
      const token = await h.alice();
      const cars = (await h.get(`/v3/users/${SEED_IDS.alice}/cars`, token)).json as Array<{ id: number }>;
      const trips = async (carId: number) => (await h.get(`/v3/cars/${carId}/trips?${range(NOW - 27 * DAY, NOW)}`, token)).json as unknown[];
      const counts = await Promise.all(cars.slice(0, 10).map((c) => trips(c.id)));
      return (
        cars.length === 16 &&
        cars[0].id === 4001 &&
        counts.slice(0, 9).every((t) => t.length === 0) &&
        counts[9].length >= 1 &&
        counts[9].length <= 4 &&
        (await trips(RICH)).length > 10
      );
    },
  },
  'expired-tokens-forgotten': {
    // Expired, a token is refused as expired at first; 5 s later it is forgotten: unknown, 401 "Invalid token".
    check: async (h) => {
      const token = (await h.tokenResponse()).access_token;
      await h.post('/_control/tokens/expire', { json: { token } });
      const fresh = await h.get('/v3/users/me', token);
      h.clock.now += 6_000;
      const later = await h.get('/v3/users/me', token);
      h.clock.now -= 6_000;
      return fresh.status === 403 && later.status === 401 && firstError(later).message === 'Invalid token';
    },
  },
  'dense-history': {
    // A position every second of the last month's trips: 28 days of the car's locations are megabytes.
    check: async (h) => {
      const res = await h.get(`/v3/cars/${RICH}/locations?${range(NOW - 28 * DAY, NOW)}`, await h.alice());
      return res.status === 200 && Array.isArray(res.json) && res.json.length > 50_000 && res.text.length > 5_000_000;
    },
  },
  'sandbox-other-data': {
    mode: 'sandbox',
    // Other ids: the primary user is 7302 (101 is nobody), and her first car has neither device nor data.
    check: async (h) => {
      const cars = await h.get('/v3/users/7302/cars');
      const first = Array.isArray(cars.json) ? (cars.json[0] as { id?: number; deviceId?: unknown }) : undefined;
      const history = first ? await h.get(`/v3/cars/${first.id}/trips?${range(NOW - 28 * DAY, NOW)}`) : undefined;
      return (
        (await h.get('/v3/users/101')).status === 404 &&
        cars.status === 200 &&
        first?.id === 210044 &&
        first.deviceId === null &&
        history?.status === 200 &&
        Array.isArray(history.json) &&
        history.json.length === 0
      );
    },
  },
  'short-lived-tokens': {
    // A token says it lives 8 s, works, is refused as expired once they passed, and its refresh token renews it.
    check: async (h) => {
      const record = await h.tokenResponse();
      const works = (await h.get('/v3/users/me', record.access_token)).status === 200;
      h.clock.now += 9_000;
      const expired = await h.get('/v3/users/me', record.access_token);
      const renewed = await h.exchange({ grant_type: 'refresh_token', refresh_token: record.refresh_token });
      h.clock.now -= 9_000;
      return (
        record.expires_in === 8 &&
        works &&
        expired.status === 403 &&
        firstError(expired).message === 'Token has expired' &&
        renewed.status === 200 &&
        (await h.get('/v3/users/me', JSON.parse(renewed.text).access_token)).status === 200
      );
    },
  },
  'stats-no-data-404': {
    check: async (h) => {
      const res = await h.get(`/v3/cars/${BARE}/stats/mileage?initialValue=12`, await h.alice());
      return res.status === 404 && firstError(res).type === 'PARAMETERS_ERROR' && firstError(res).message === 'Statistics not found';
    },
  },
  'dissociate-cars-only': {
    // A device associated by pin (with the user, no car): dissociation refused, the association kept.
    check: async (h) => {
      const token = await h.alice();
      if ((await h.post('/v3/devices/VDSREF0101/associate?pin=1357', { token })).status !== 204) return false;
      const dissociate = await h.post('/v3/devices/VDSREF0101/dissociate', { token });
      const again = await h.post('/v3/devices/VDSREF0101/associate?pin=1357', { token });
      return dissociate.status === 409 && firstError(dissociate).type === 'PARAMETERS_ERROR' && again.status === 409;
    },
  },
  'dissociate-keeps-user-link': {
    // A device put on a car and taken off it stays the user's: its pin association is 409, so is a second dissociation;
    // it can still go on a car of the user.
    check: async (h) => {
      const token = await h.alice();
      if ((await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token })).status !== 204) return false;
      if ((await h.post('/v3/devices/VDSREF0101/dissociate', { token })).status !== 204) return false;
      const [pin, dissociate] = [
        await h.post('/v3/devices/VDSREF0101/associate?pin=1357', { token }),
        await h.post('/v3/devices/VDSREF0101/dissociate', { token }),
      ];
      const car = await h.post(`/v3/devices/VDSREF0101/associate?carId=${BARE}`, { token });
      return pin.status === 409 && dissociate.status === 409 && firstError(dissociate).type === 'PARAMETERS_ERROR' && car.status === 204;
    },
  },
  'empty-scope-as-absent': {
    check: async (h) => {
      const token = await h.token({ scope: '' });
      return (await h.get('/v3/users/me', token)).status === 200 && (await h.get(`/v3/cars/${RICH}/status`, token)).status === 200;
    },
  },
  'signin-form-scripted': {
    // The page's HTML holds the form only inside a template, with the script that inserts it.
    check: async (h) => {
      const res = await h.get('/v3/auth/auth?client_id=vds-conformance');
      const outside = res.text.replace(/<template[\s\S]*<\/template>/, '');
      return (
        res.status === 200 && /<template id="signin-form">[\s\S]*name="password"/.test(res.text) && !outside.includes('<form') && outside.includes('<script>')
      );
    },
  },
  'signin-form-unlabelled': {
    // No label in the form; the login field is named login and has a placeholder only; signing in through it works.
    check: async (h) => {
      const res = await h.get('/v3/auth/auth?client_id=vds-conformance');
      const form = /<form[\s\S]*<\/form>/.exec(res.text)?.[0] ?? '';
      const signedIn = await h.signIn();
      return (
        res.status === 200 &&
        !/<label/i.test(form) &&
        /<input name="login" type="text" placeholder="[^"]+">/.test(form) &&
        /type="password"/.test(form) &&
        />Continue<\/button>/.test(form) &&
        signedIn.status === 302
      );
    },
  },
  'signin-two-step': {
    // The first page asks for the e-mail only; its password page signs in.
    check: async (h) => {
      const first = await h.get('/v3/auth/auth?client_id=vds-conformance&state=s1');
      const step = await h.post('/v3/auth/auth', { form: { username: 'alice@reference.test', client_id: 'vds-conformance', state: 's1' } });
      const done = await h.signIn({ state: 's1' });
      return (
        first.status === 200 &&
        first.text.includes('>Next<') &&
        !first.text.includes('type="password"') &&
        step.status === 200 &&
        step.text.includes('type="password"') &&
        step.text.includes('name="username" value="alice@reference.test"') &&
        done.status === 302 &&
        done.location?.searchParams.get('code') !== null &&
        done.location?.searchParams.get('state') === 's1'
      );
    },
  },
  'authorization-server-oidc': {
    // The sign-in page is oidc-provider's interaction (its form posts there, its cookie set); a sign-in
    // through it and its consent gives a code, the token endpoint the profile's answer, the API takes the token.
    check: async (h) => {
      const page = await h.get('/v3/auth/auth?client_id=vds-conformance&state=p');
      if (
        page.status !== 200 ||
        !/action="\/v3\/auth\/interaction\/[^"]+\/login"/.test(page.text) ||
        !String(page.headers['set-cookie']).includes('_interaction=')
      )
        return false;
      const token = await h.tokenResponse({ scope: 'users_read' });
      const me = await h.get('/v3/users/me', token.access_token);
      const cars = await h.get('/v3/users/me/cars', token.access_token);
      return String(token.token_type).toLowerCase() === 'bearer' && Number.isInteger(token.expires_at) && me.status === 200 && cars.status === 403;
    },
  },
  'signin-consent-page': {
    // After the password: Allow and Deny; Deny redirects with access_denied, Allow with a code.
    check: async (h) => {
      const page = await h.signIn({ consent: 'stop', scope: 'users_read cars_read' });
      const denied = await h.signIn({ consent: 'deny', state: 'd' });
      const allowed = await h.signIn({ consent: 'allow', state: 'a' });
      return (
        page.status === 200 &&
        page.text.includes('>Allow<') &&
        page.text.includes('>Deny<') &&
        page.text.includes('<li>cars_read</li>') &&
        denied.status === 302 &&
        denied.location?.searchParams.get('error') === 'access_denied' &&
        !denied.location?.searchParams.get('code') &&
        allowed.status === 302 &&
        allowed.location?.searchParams.get('code') !== null &&
        allowed.location?.searchParams.get('state') === 'a'
      );
    },
  },
  'signin-continue-page': {
    // After the password: a page that only offers to go on, then the redirect with the code.
    check: async (h) => {
      const page = await h.signIn({ consent: 'stop' });
      const done = await h.signIn({ state: 'c' });
      return (
        page.status === 200 &&
        page.text.includes('>Continue<') &&
        !page.text.includes('Deny') &&
        done.status === 302 &&
        done.location?.searchParams.get('code') !== null &&
        done.location?.searchParams.get('state') === 'c'
      );
    },
  },
  'fleet-account': {
    // 32 more cars, listed first; the cars with data after them.
    check: async (h) => {
      const cars = (await h.get('/v3/users/me/cars', await h.alice())).json as any[];
      return cars.length >= 35 && cars.slice(0, 32).every((c) => c.make === 'Fleetco') && cars.slice(32).some((c) => c.id === SEED_IDS.aliceRichCar);
    },
  },
  'signin-page-redirected': {
    // GET /auth/auth answers 303 to the page's own URL, which answers the page.
    check: async (h) => {
      const first = await h.get('/v3/auth/auth?client_id=vds-conformance&state=s');
      const location = String(first.headers.location ?? '');
      const page = await h.get(
        new URL(location, 'http://reference.test/v3/auth/auth').pathname + new URL(location, 'http://reference.test/v3/auth/auth').search,
      );
      return first.status === 303 && location.includes('login=1') && page.status === 200 && page.contentType.startsWith('text/html');
    },
  },
  'signin-keycloak': {
    // Keycloak's page: a session cookie, a form posting to login-actions/authenticate with session codes
    // and a CSRF field, a language form; the redirect in Keycloak's order, with session_state and iss.
    check: async (h) => {
      const page = await h.get('/v3/auth/auth?client_id=vds-conformance&state=k1');
      const done = await h.signIn({ state: 'k1' });
      const names = [...(done.location?.searchParams.keys() ?? [])];
      return (
        page.status === 200 &&
        String(page.headers['set-cookie']).includes('AUTH_SESSION_ID=') &&
        /action="login-actions\/authenticate\?session_code=[^"]+&amp;execution=[^"]+&amp;client_id=vds-conformance&amp;tab_id=/.test(page.text) &&
        page.text.includes('name="csrf_token"') &&
        page.text.includes('id="kc-locale-form"') &&
        done.status === 302 &&
        names.join(',') === 'state,session_state,iss,code' &&
        done.location?.searchParams.get('state') === 'k1'
      );
    },
  },
  'signin-ory': {
    // Into Ory's flow: 303 to its login UI, one form with a CSRF field, the GitHub button above the fields.
    check: async (h) => {
      const start = await h.get('/v3/auth/auth?client_id=vds-conformance&state=o');
      const location = String(start.headers.location ?? '');
      const page = await h.get(`/v3/auth/${location}`);
      return (
        start.status === 303 &&
        location.startsWith('ui/login?flow=') &&
        page.status === 200 &&
        page.text.indexOf('Sign in with GitHub') < page.text.indexOf('name="identifier"') &&
        page.text.includes('name="csrf_token"')
      );
    },
  },
  'signin-authentik': {
    // Into Authentik's flow executor: 302, a session cookie, and its flow API's first challenge.
    check: async (h) => {
      const start = await h.get('/v3/auth/auth?client_id=vds-conformance');
      const cookie = String(start.headers['set-cookie'] ?? '').split(';')[0];
      const challenge = await h.get('/v3/auth/api/v3/flows/executor/default-authentication-flow/', undefined, { cookie });
      return (
        start.status === 302 && cookie.startsWith('authentik_session=') && (challenge.json as { component?: string })?.component === 'ak-stage-identification'
      );
    },
  },
  'signin-okta': {
    // Okta's widget: the page is its container and the script that renders each step from the identity engine.
    check: async (h) => {
      const page = await h.get('/v3/auth/auth?client_id=vds-conformance');
      return (
        page.status === 200 && page.text.includes('id="okta-sign-in"') && page.text.includes('/idp/idx/identify') && !page.text.includes('type="password"')
      );
    },
  },
  'signin-cookie-banner': {
    // Every page carries the banner (a modal dialog over a backdrop), shown until a choice is kept in its cookie.
    check: async (h) => {
      const page = await h.get('/v3/auth/auth?client_id=vds-conformance');
      return (
        page.status === 200 && page.text.includes('role="dialog" aria-modal="true"') && page.text.includes('>Reject all<') && page.text.includes('>Accept all<')
      );
    },
  },
  'redirect-form-encoded': {
    // The state's space comes back as '+' (form encoding), and still reads back as the state sent.
    check: async (h) => {
      const done = await h.signIn({ state: 'a b&c' });
      return done.status === 302 && /[?&]state=a\+b%26c(&|$)/.test(String(done.location)) && done.location?.searchParams.get('state') === 'a b&c';
    },
  },
  'limit-zero-means-all': {
    check: async (h) => {
      const token = await h.alice();
      const all = (await h.get(`/v3/cars/${RICH}/signals`, token)).json as any[];
      const zero = await h.get(`/v3/cars/${RICH}/signals?limit=0`, token);
      return zero.status === 200 && all.length > 0 && zero.json.length === all.length;
    },
  },
  'errors-text-plain': {
    check: async (h) => {
      const array = await h.get('/v3/users/me');
      const legacy = await h.exchange({ grant_type: 'authorization_code', code: 'not-a-code' });
      return (
        array.contentType === 'text/plain; charset=utf-8' &&
        isJsonArrayText(array) &&
        legacy.contentType === 'text/plain; charset=utf-8' &&
        legacy.text === '{"message":"Invalid authentication"}'
      );
    },
  },
  'records-text-plain': {
    check: async (h) => {
      const token = await h.alice();
      const car = await h.get('/v3/users/me/cars', token);
      const geojson = await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/locations.geojson?limit=1`, token);
      return (
        car.status === 200 &&
        car.contentType === 'text/plain; charset=utf-8' &&
        Array.isArray(JSON.parse(car.text)) &&
        geojson.contentType.startsWith('application/')
      );
    },
  },
  'token-answer-no-pragma': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'authorization_code', code: await h.code() });
      return res.status === 200 && res.headers['cache-control'] === 'no-store' && res.headers.pragma === undefined;
    },
  },
  'reads-cache-declared': {
    check: async (h) => {
      const token = await h.alice();
      const [me, car] = await Promise.all([h.get('/v3/users/me', token), h.get(`/v3/cars/${RICH}`, token)]);
      return me.headers['cache-control'] === 'private, max-age=60' && car.headers['cache-control'] === 'max-age=0, must-revalidate';
    },
  },
  'signin-lockout': {
    // Three wrong passwords in a row, then the right one: refused while the lock lasts.
    check: async (h) => {
      for (let i = 0; i < 3; i++) await h.signIn({ password: `wrong-${i}` });
      const right = await h.signIn();
      return right.status === 401 && right.location === null;
    },
  },
  'signin-csrf-cookie': {
    // The page's CSRF field and cookie; the form posted without them is refused, with them it signs in.
    check: async (h) => {
      const page = await h.get('/v3/auth/auth?client_id=vds-conformance');
      const bare = await h.post('/v3/auth/auth', { form: { username: 'alice@reference.test', password: 'alice-password', client_id: 'vds-conformance' } });
      const done = await h.signIn();
      return /name="csrf_token"/.test(page.text) && /vds_csrf=/.test(String(page.headers['set-cookie'] ?? '')) && bare.status === 403 && done.status === 302;
    },
  },
  'token-answer-text-plain': {
    check: async (h) => {
      const res = await h.exchange({ grant_type: 'authorization_code', code: await h.code() });
      return res.status === 200 && res.contentType === 'text/plain; charset=utf-8' && typeof JSON.parse(res.text).access_token === 'string';
    },
  },
  'token-clock-skew': {
    check: async (h) => {
      const token = await h.tokenResponse();
      return token.expires_in === 3600 && token.expires_at === Math.floor(NOW / 1000) + 3600 + 600;
    },
  },
  'trip-record-rounded': {
    // On a trip whose mileage has more than one decimal: the record rounds it, the stats do not.
    check: async (h) => {
      const token = await h.alice();
      const trip = h.seed.histories
        .get(RICH)!
        .trips.filter((t) => Math.round(t.mileage * 10) !== t.mileage * 10)
        .at(-1)!;
      const record = (await h.get(`/v3/trips/${trip.id}`, token)).json;
      const stat = (await h.get(`/v3/trips/${trip.id}/stats/mileage`, token)).json;
      return stat.value === trip.mileage && record.mileage === Math.round(trip.mileage * 10) / 10;
    },
  },
  'geojson-geo-json': {
    check: async (h) => {
      const token = await h.alice();
      const car = await h.get(`/v3/cars/${RICH}/locations.geojson?limit=2`, token);
      const trip = await h.get(`/v3/trips/${h.latestTrip(RICH)}/locations.geojson`, token);
      return (
        car.contentType.startsWith('application/geo+json') &&
        trip.contentType.startsWith('application/geo+json') &&
        Array.isArray(car.json) &&
        trip.json.type === 'LineString'
      );
    },
  },
  'car-body-strict': {
    // A creation body with a member the profile does not list for it is refused with 400.
    check: async (h) => {
      const res = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token: await h.alice(), json: { make: 'Renault', model: 'Clio', cardbId: 7 } });
      return res.status === 400 && firstError(res).type === 'PARAMETERS_ERROR';
    },
  },
  'car-body-user-id-checked': {
    // A creation body naming another user as userId is refused as that user's; other unknown members are ignored.
    check: async (h) => {
      const token = await h.alice();
      const bob = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token, json: { make: 'Renault', model: 'Clio', userId: SEED_IDS.bob } });
      const other = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token, json: { make: 'Renault', model: 'Clio', cardbId: 7 } });
      return bob.status === 403 && firstError(bob).message === "Token can't access this user" && other.status === 201;
    },
  },
  'car-text-nfc': {
    // A letter and its combining accent sent apart come back precomposed.
    check: async (h) => {
      const res = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token: await h.alice(), json: { make: 'Citroe\u0308n', model: 'C4' } });
      return res.status === 201 && res.json.make === 'Citro\u00ebn';
    },
  },
  'car-text-trimmed': {
    check: async (h) => {
      const res = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token: await h.alice(), json: { make: '  Renault ', model: 'Clio\t' } });
      return res.status === 201 && res.json.make === 'Renault' && res.json.model === 'Clio';
    },
  },
  'car-text-controls-refused': {
    check: async (h) => {
      const res = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token: await h.alice(), json: { make: 'Renault', model: 'Clio', name: 'tab\tinside' } });
      return res.status === 400 && firstError(res).type === 'PARAMETERS_ERROR';
    },
  },
  'associate-unknown-car-400': {
    check: async (h) => {
      const res = await h.post('/v3/devices/VDSREF0101/associate?carId=424242', { token: await h.alice() });
      return res.status === 400 && firstError(res).type === 'PARAMETERS_ERROR';
    },
  },
  'limit-keeps-oldest': {
    // limit=3 keeps the first three items of the range in date order: the oldest.
    check: async (h) => {
      const token = await h.alice();
      const all = (await h.get(`/v3/cars/${RICH}/locations`, token)).json as any[];
      const three = (await h.get(`/v3/cars/${RICH}/locations?limit=3`, token)).json as any[];
      const signals = (await h.get(`/v3/cars/${RICH}/signals?limit=2&${range(MONTH_START, NOW)}`, token)).json as any[];
      const allSignals = (await h.get(`/v3/cars/${RICH}/signals?${range(MONTH_START, NOW)}`, token)).json as any[];
      return all.length > 3 && JSON.stringify(three) === JSON.stringify(all.slice(0, 3)) && JSON.stringify(signals) === JSON.stringify(allSignals.slice(0, 2));
    },
  },
  'default-page-size': {
    // Without limit: the 25 most recent items (a default limit); with a limit above 25: that many.
    check: async (h) => {
      const token = await h.alice();
      const page = (await h.get(`/v3/cars/${RICH}/locations`, token)).json as any[];
      const all = (await h.get(`/v3/cars/${RICH}/locations?limit=100000`, token)).json as any[];
      const thirty = (await h.get(`/v3/cars/${RICH}/locations?limit=30`, token)).json as any[];
      const points = (await h.get(`/v3/cars/${RICH}/locations.geojson`, token)).json as any[];
      const signals = (await h.get(`/v3/cars/${RICH}/signals`, token)).json as any[];
      const trips = (await h.get(`/v3/cars/${RICH}/trips?${range(NOW - 30 * DAY, NOW)}`, token)).json as any[];
      return (
        all.length > 30 &&
        JSON.stringify(page) === JSON.stringify(all.slice(-25)) &&
        thirty.length === 30 &&
        [points, signals, trips].every((list) => list.length === 25)
      );
    },
  },
  'newest-first': {
    check: async (h) => {
      const token = await h.alice();
      const trip = h.latestTrip(RICH);
      const [locations, points, signals, trips, tripLocations, tripSignals, line] = await Promise.all(
        [
          `/v3/cars/${RICH}/locations?limit=20`,
          `/v3/cars/${RICH}/locations.geojson?limit=20`,
          `/v3/cars/${RICH}/signals?limit=20`,
          `/v3/cars/${RICH}/trips`,
          `/v3/trips/${trip}/locations`,
          `/v3/trips/${trip}/signals`,
          `/v3/trips/${trip}/locations.geojson`,
        ].map((url) => h.get(url, token)),
      );
      // The GeoJSON lists follow the plain lists' order.
      const sameOrder = (coords: number[][], plain: any[]) =>
        coords.length === plain.length && coords.every((c, i) => c[0] === plain[i].longitude && c[1] === plain[i].latitude);
      return (
        descending(dates(locations.json)) &&
        sameOrder(
          (points.json as any[]).map((p) => p.coordinates),
          locations.json,
        ) &&
        descending(dates(signals.json)) &&
        descending(dates(trips.json, 'beginDate')) &&
        descending(dates(tripLocations.json)) &&
        descending(dates(tripSignals.json)) &&
        sameOrder(line.json.coordinates, tripLocations.json)
      );
    },
  },
  'cars-newest-first': {
    check: async (h) => {
      const ids = (list: any[]) => list.map((c) => c.id);
      const mine = ids((await h.get('/v3/users/me/cars', await h.alice())).json);
      const bobs = ids((await h.get(`/v3/users/${SEED_IDS.bob}/cars`, await h.bob())).json);
      return mine.length > 1 && mine.every((id, i) => i === 0 || id < mine[i - 1]) && bobs[0] === SEED_IDS.bobBareCar;
    },
  },
  'geojson-path-order': {
    // The plain lists newest first; both GeoJSON routes oldest first: the same positions, reversed.
    check: async (h) => {
      const token = await h.alice();
      const trip = h.latestTrip(RICH);
      const [locations, points, tripLocations, line] = await Promise.all(
        [
          `/v3/cars/${RICH}/locations?limit=20`,
          `/v3/cars/${RICH}/locations.geojson?limit=20`,
          `/v3/trips/${trip}/locations`,
          `/v3/trips/${trip}/locations.geojson`,
        ].map((url) => h.get(url, token)),
      );
      const reversedOf = (coords: number[][], plain: any[]) =>
        coords.length === plain.length &&
        coords.every((c, i) => c[0] === plain[plain.length - 1 - i].longitude && c[1] === plain[plain.length - 1 - i].latitude);
      return (
        descending(dates(locations.json)) &&
        descending(dates(tripLocations.json)) &&
        reversedOf(
          (points.json as any[]).map((p) => p.coordinates),
          locations.json,
        ) &&
        reversedOf(line.json.coordinates, tripLocations.json)
      );
    },
  },
  'extra-fields': {
    check: async (h) => {
      const token = await h.alice();
      const has = (record: any) => record !== null && typeof record === 'object' && record.vendorExtension !== undefined;
      const me = (await h.get('/v3/users/me', token)).json;
      const cars = (await h.get('/v3/users/me/cars', token)).json as any[];
      const status = (await h.get(`/v3/cars/${RICH}/status`, token)).json;
      const trip = (await h.get(`/v3/trips/${h.latestTrip(RICH)}`, token)).json;
      const stats = (await h.get(`/v3/trips/${h.latestTrip(RICH)}/stats`, token)).json as any[];
      const error = (await h.get('/v3/users/me')).json as any[];
      const record = await h.tokenResponse();
      return (
        has(me) &&
        cars.every(has) &&
        has(status) &&
        has(status.location) &&
        has(status.accelerometer) &&
        (status.signals as any[]).every(has) &&
        has(trip) &&
        has(trip.beginLocation) &&
        stats.every(has) &&
        error.every(has) &&
        has(record)
      );
    },
  },
  'error-array-two-elements': {
    check: async (h) => {
      const res = await h.get('/v3/users/me');
      const body = res.json as any[];
      return (
        res.status === 401 &&
        body.length === 2 &&
        body[0].type === 'AUTHENTICATION_ERROR' &&
        body[0].message === 'Request refused' &&
        body[1].type === 'AUTHENTICATION_ERROR' &&
        body[1].message === 'Authorization is missing'
      );
    },
  },
  'dates-fraction-zulu': {
    check: async (h) => {
      const token = await h.alice();
      const location = (await h.get(`/v3/cars/${RICH}/locations?limit=1`, token)).json[0];
      const signal = (await h.get(`/v3/cars/${RICH}/signals?limit=1`, token)).json[0];
      const trip = (await h.get(`/v3/trips/${h.latestTrip(RICH)}`, token)).json;
      const stat = (await h.get(`/v3/cars/${RICH}/stats/mileage`, token)).json;
      const accelerometer = (await h.get(`/v3/cars/${RICH}/status`, token)).json.accelerometer;
      const car = (await h.get(`/v3/cars/${RICH}`, token)).json;
      const me = (await h.get('/v3/users/me', token)).json;
      return (
        [location.date, signal.date, trip.beginDate, trip.endDate, trip.beginLocation.date, stat.beginDate, stat.endDate, accelerometer.date].every((d) =>
          RECORD_DATE_ZULU.test(d),
        ) &&
        STRICT_DATE.test(car.creationDate) &&
        STRICT_DATE.test(me.creationDate)
      );
    },
  },
  'dates-paris-offset': {
    // The dates of a user, a car, a location, a trip and a car stat carry Paris's offset.
    check: async (h) => {
      const token = await h.alice();
      const me = (await h.get('/v3/users/me', token)).json;
      const car = (await h.get(`/v3/cars/${RICH}`, token)).json;
      const location = ((await h.get(`/v3/cars/${RICH}/locations?limit=1`, token)).json as any[])[0];
      const trip = (await h.get(`/v3/trips/${h.latestTrip(RICH)}`, token)).json;
      const stat = (await h.get(`/v3/cars/${RICH}/stats/mileage`, token)).json;
      const paris = (text: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+0[12]:00$/.test(text);
      return [me.creationDate, car.creationDate, location.date, trip.beginDate, stat.endDate].every(paris);
    },
  },
  'tips-reworded': {
    check: async (h) => {
      const missing = firstError(await h.get('/v3/users/me'));
      const notFound = firstError(await h.get('/v3/cars/424242', await h.alice()));
      const scope = firstError(await h.get(`/v3/cars/${RICH}/status`, await h.token({ client: 'limited' })));
      const reworded = (tip: unknown) => typeof tip === 'string' && tip.startsWith('Please check that ');
      return reworded(missing.tip) && reworded(notFound.tip) && reworded(scope.tip) && String(scope.tip).includes('status_read');
    },
  },
  'malformed-pin-counts': {
    check: async (h) => {
      const token = await h.alice();
      for (let i = 0; i < 3; i++) {
        const res = await h.post('/v3/devices/VDSREF0105/associate?pin=12', { token });
        if (res.status !== 400 || firstError(res).message !== 'Malformed pin') return false;
      }
      const right = await h.post('/v3/devices/VDSREF0105/associate?pin=31415', { token });
      return right.status === 403 && firstError(right).type === 'AUTHORIZATION_ERROR';
    },
  },
  'pin-lock-before-format': {
    check: async (h) => {
      // Three wrong pins lock the device; a malformed pin to it is then refused as locked, not as malformed.
      const token = await h.alice();
      for (let i = 0; i < 3; i++) await h.post('/v3/devices/VDSREF0105/associate?pin=0000', { token });
      const res = await h.post('/v3/devices/VDSREF0105/associate?pin=12', { token });
      return res.status === 403 && firstError(res).type === 'AUTHORIZATION_ERROR';
    },
  },
  'idle-connection-close': {
    // Over a real connection: the first answer announces no Keep-Alive time; after a pause longer than
    // the server's idle time, a request on the same connection gets no answer, and one on a fresh
    // connection does.
    check: async (h) => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = h.app.server.address() as AddressInfo;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await rawGet(port, agent);
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 150));
        const again = await rawGet(port, agent);
        const fresh = await rawGet(port, undefined);
        return first.status === 401 && first.keepAlive === undefined && again.status === undefined && fresh.status === 401;
      } finally {
        agent.destroy();
      }
    },
  },
  'idle-sockets-closed': {
    // Over real connections: the answer announces no Keep-Alive time; a kept-alive connection left idle
    // longer than the server's idle time is closed by the server (no request needed), and so is a
    // fresh one nothing was written on; a request written on a fresh connection at once is answered.
    check: async (h) => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = h.app.server.address() as AddressInfo;
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      // Closed by the server within a second of its idle time (a server that keeps it longer: false).
      const closedByServer = (socket: net.Socket) =>
        new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), IDLE_SOCKET_MS + 1000);
          socket.once('end', () => (clearTimeout(timer), resolve(true))).once('error', () => (clearTimeout(timer), resolve(false)));
        });
      const silent = net.connect(port, '127.0.0.1');
      try {
        let kept: Promise<boolean> = Promise.resolve(false);
        agent.once('free', (socket: net.Socket) => (kept = closedByServer(socket)));
        const first = await rawGet(port, agent);
        const [keptClosed, freshClosed] = await Promise.all([kept, closedByServer(silent)]);
        const fresh = await rawGet(port, undefined);
        return first.status === 401 && first.keepAlive === undefined && keptClosed && freshClosed && fresh.status === 401;
      } finally {
        silent.destroy();
        agent.destroy();
      }
    },
  },
  'range-limit-31-days-23-hours': {
    // 31 days and 12 hours accepted; 32 days still refused.
    check: async (h) => {
      const token = await h.alice();
      const inside = await h.get(`/v3/cars/${RICH}/locations?${range(NOW - 31 * DAY - 12 * HOUR, NOW)}`, token);
      const outside = await h.get(`/v3/cars/${RICH}/locations?${range(NOW - 32 * DAY, NOW)}`, token);
      return inside.status === 200 && outside.status === 416;
    },
  },
  'blindp-gzip-answers': {
    // A month of locations is more than 1 KiB: gzip when asked for, plain otherwise.
    check: async (h) => {
      const token = await h.alice();
      const [zipped, plain] = await Promise.all([
        h.get(`/v3/cars/${RICH}/locations`, token, { 'accept-encoding': 'gzip, deflate, br' }),
        h.get(`/v3/cars/${RICH}/locations`, token),
      ]);
      return zipped.headers['content-encoding'] === 'gzip' && plain.headers['content-encoding'] === undefined && Array.isArray(plain.json);
    },
  },
  'blindp-etag-revalidation': {
    // The tag comes with the read; the same read naming it is 304 with no body, and without a token it is still 401.
    check: async (h) => {
      const token = await h.alice();
      const first = await h.get('/v3/users/me', token);
      const tag = String(first.headers.etag ?? '');
      const [again, anonymous] = await Promise.all([
        h.get('/v3/users/me', token, { 'if-none-match': tag }),
        h.get('/v3/users/me', undefined, { 'if-none-match': tag }),
      ]);
      return tag.startsWith('W/"') && again.status === 304 && again.text === '' && anonymous.status === 401;
    },
  },
  'blindp-json-escaped-php': {
    // A car named with a slash and an accent comes back escaped in the text, the same string once parsed.
    check: async (h) => {
      const token = await h.alice();
      const created = await h.post(`/v3/users/${SEED_IDS.alice}/cars`, { token, json: { make: 'Citroën', model: 'C4/Picasso' } });
      return created.status === 201 && created.text.includes('Citro\\u00ebn') && created.text.includes('C4\\/Picasso') && created.json.make === 'Citroën';
    },
  },
  'blindp-json-members-sorted': {
    check: async (h) => {
      const token = await h.alice();
      const [car, error] = await Promise.all([h.get(`/v3/cars/${RICH}`, token), h.get('/v3/users/me')]);
      const keys = Object.keys(car.json);
      return keys.join() === [...keys].sort().join() && keys[0] !== 'id' && Object.keys(error.json[0]).join() === 'message,tip,type';
    },
  },
  'blindp-json-no-charset': {
    check: async (h) => {
      const token = await h.alice();
      const [me, error, geo] = await Promise.all([
        h.get('/v3/users/me', token),
        h.get('/v3/users/me'),
        h.get(`/v3/cars/${RICH}/locations.geojson?limit=1`, token),
      ]);
      return me.contentType === 'application/json' && error.contentType === 'application/json' && /^application\/(geo\+)?json$/.test(geo.contentType);
    },
  },
  'blindp-refresh-not-rotated': {
    // The same refresh token twice: both refreshes answer, each with that refresh token again.
    check: async (h) => {
      const record = await h.tokenResponse();
      const first = await h.exchange({ grant_type: 'refresh_token', refresh_token: record.refresh_token });
      const second = await h.exchange({ grant_type: 'refresh_token', refresh_token: record.refresh_token });
      return (
        first.status === 200 && second.status === 200 && second.json.refresh_token === record.refresh_token && second.json.access_token !== record.access_token
      );
    },
  },
  'blindp-tokens-base64-padded': {
    check: async (h) => {
      const record = await h.tokenResponse();
      const me = await h.get('/v3/users/me', record.access_token);
      const refreshed = await h.exchange({ grant_type: 'refresh_token', refresh_token: record.refresh_token });
      const padded = (t: string) => t.length === 400 && /[+/]/.test(t) && t.endsWith('=') && /^[A-Za-z0-9+/]+=*$/.test(t);
      return padded(record.access_token) && padded(record.refresh_token) && me.status === 200 && refreshed.status === 200;
    },
  },
  'blindp-codes-base64-padded': {
    check: async (h) => {
      const code = await h.code();
      const res = await h.exchange({ grant_type: 'authorization_code', code });
      return /[+/]/.test(code) && code.endsWith('=') && res.status === 200;
    },
  },
  'blindp-options-answered': {
    check: async (h) => {
      const res = await h.request('OPTIONS', `/v3/cars/${RICH}/locations`);
      return res.status === 200 && res.headers.allow === 'GET, HEAD, OPTIONS' && res.text === '';
    },
  },
  'blindp-method-not-allowed': {
    check: async (h) => {
      const token = await h.alice();
      const res = await h.request('DELETE', `/v3/cars/${RICH}`, { token });
      return res.status === 405 && res.headers.allow === 'GET, HEAD' && firstError(res)?.type === 'PARAMETERS_ERROR';
    },
  },
  'blindp-trip-stats-usedtime-first': {
    check: async (h) => {
      const token = await h.alice();
      const stats = (await h.get(`/v3/trips/${h.latestTrip(RICH)}/stats`, token)).json;
      return stats.length === 2 && stats[0].type === 'USED_TIME' && stats[1].type === 'MILEAGE';
    },
  },
  'blindp-dates-microseconds': {
    check: async (h) => {
      const token = await h.alice();
      const location = (await h.get(`/v3/cars/${RICH}/locations?limit=1`, token)).json[0];
      const trip = (await h.get(`/v3/trips/${h.latestTrip(RICH)}`, token)).json;
      const car = (await h.get(`/v3/cars/${RICH}`, token)).json;
      const micro = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
      return micro.test(location.date) && micro.test(trip.beginDate) && STRICT_DATE.test(car.creationDate);
    },
  },
};
