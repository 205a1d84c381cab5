// Hostile input never gives a 5xx: always a 4xx with a valid error array (or the HTML 404 of the
// sign-in page). Unknown routes and wrong methods: 404 with an error array.

import { expect, test } from '@playwright/test';
import { connect } from 'node:net';
import { buildReferenceApp } from '../../../reference-server/app';
import { expectErrorShape, Harness, Res, SEED_IDS } from './helpers';
import { routeCases } from './route-table';

const HOSTILE_IDS = [
  'abc',
  '-1',
  '0',
  '1.5',
  '1e5',
  '99999999999999999999999',
  'x'.repeat(10000),
  '%E2%82%AC%F0%9F%9A%97',
  '%2F',
  '%2e%2e',
  '%00',
  '%20',
  "'%20OR%201=1",
  '%3Cscript%3E',
  'null',
  'undefined',
  '[]',
  '{}',
];
const HOSTILE_QUERIES = [
  'limit=1&limit=2',
  'limit=',
  'begin=',
  'end=',
  'name=',
  'inclusive=',
  'initialValue=',
  'begin=%ZZ',
  'limit=%00',
  `limit=${'9'.repeat(400)}`,
  'name=,,,',
  'begin[]=1',
  'begin[a]=1',
  'carId=&pin=',
  'pin=%F0%9F%98%80',
  '__proto__=1',
  'constructor=1',
];

function problems(res: Res, what: string): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`${what}: ${res.status}`);
  if (res.status >= 400) {
    try {
      expectErrorShape(res);
    } catch (e) {
      out.push(`${what}: ${(e as Error).message}`);
    }
  }
  return out;
}

test('hostile ids and query strings on every route, with and without a token: never 5xx, errors are arrays', async () => {
  for (const mode of ['cloud', 'sandbox'] as const) {
    const h = await Harness.start({ mode });
    try {
      const token = await h.alice();
      const found: string[] = [];
      const templates = routeCases(h).map((r) => ({ method: r.method, path: r.own.split('?')[0] }));
      for (const { method, path } of templates) {
        const parts = path.split('/');
        for (const id of HOSTILE_IDS) {
          if (parts.length < 4 || parts[3] === 'me') continue;
          const url = [...parts.slice(0, 3), id, ...parts.slice(4)].join('/');
          for (const t of [undefined, token])
            found.push(...problems(await h.request(method, url, { token: t }), `${mode} ${method} ${url.slice(0, 80)} token=${!!t}`));
        }
        for (const query of HOSTILE_QUERIES) {
          const url = `${path}?${query}`;
          for (const t of [undefined, token])
            found.push(...problems(await h.request(method, url, { token: t }), `${mode} ${method} ${url.slice(0, 80)} token=${!!t}`));
        }
      }
      expect(found).toEqual([]);
    } finally {
      await h.close();
    }
  }
});

test('unknown routes (any method) and wrong methods on known paths: 404 error array', async () => {
  const h = await Harness.start();
  try {
    const token = await h.alice();
    const found: string[] = [];
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      for (const url of [
        '/',
        '/v3',
        '/v3/',
        '/v2/users/me',
        '/v3/nothing',
        '/v3/users',
        '/v3/users/me/',
        '/v3/cars',
        '/v3/trips/',
        '/v3/devices/VDSREF0101',
        '/v3/cars/5001/stats',
        '/v3/cars/5001/locations.json',
        '/V3/users/me',
        '/_control',
        '/v3/auth',
      ]) {
        const res = await h.request(method, url, { token });
        if (res.status !== 404) found.push(`${method} ${url}: ${res.status}`);
        found.push(...problems(res, `${method} ${url}`));
      }
    }
    for (const [method, url] of [
      ['DELETE', '/v3/users/me'],
      ['PUT', '/v3/cars/5001'],
      ['POST', '/v3/cars/5001/status'],
      ['GET', '/v3/devices/VDSREF0101/associate'],
      ['PATCH', '/v3/trips/ffffffffffffffffffffffff'],
      ['GET', '/v3/auth/access_token'],
      ['DELETE', '/v3/auth/auth'],
      ['GET', '/_control/reset'],
    ]) {
      const res = await h.request(method, url, { token });
      expect(res.status, `${method} ${url}`).toBe(404);
      expectErrorShape(res);
    }
    expect(found).toEqual([]);
  } finally {
    await h.close();
  }
});

test('bodies: too large, broken JSON, odd content types, no content type', async () => {
  const h = await Harness.start();
  try {
    const token = await h.alice();
    const url = `/v3/users/${SEED_IDS.alice}/cars`;
    const big = await h.post(url, { token, body: `{"make":"${'x'.repeat(2 * 1024 * 1024)}"}`, headers: { 'content-type': 'application/json' } });
    expect(big.status).toBe(413);
    expectErrorShape(big);
    for (const [body, type] of [
      ['{"make":', 'application/json'],
      ['\u0000\u0001', 'application/octet-stream'],
      ['<car/>', 'application/xml'],
      ['{"make":"Renault","model":"Clio"', 'application/json; charset=latin1'],
      ['{"__proto__":{"make":"Renault"},"model":"Clio"}', 'application/json'],
      ['{"make":"Renault","model":"Clio"}', 'multipart/form-data; boundary=x'],
    ]) {
      const res = await h.post(url, { token, body, headers: { 'content-type': type } });
      expect(res.status, `${type} ${body.slice(0, 20)}`).toBeLessThan(500);
      if (res.status >= 400) expectErrorShape(res);
    }
    const noType = await h.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: Buffer.from('{"make":"Renault","model":"Clio"}'),
    });
    expect(noType.statusCode).toBeLessThan(500);
    // Bodies sent to routes that take none are ignored.
    expect((await h.post('/v3/devices/VDSREF0101/dissociate', { token, body: '{broken', headers: { 'content-type': 'application/json' } })).status).toBe(409);
  } finally {
    await h.close();
  }
});

test('raw HTTP: bad percent-encoding and odd request lines get 4xx error arrays', async () => {
  const app = await buildReferenceApp({ mode: 'cloud' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const raw = (line: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`${line}\r\nHost: x\r\nConnection: close\r\n\r\n`));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('utf8')));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
  try {
    for (const line of [
      'GET /v3/cars/%ZZ HTTP/1.1',
      'GET /v3/cars/5001%/status HTTP/1.1',
      'GET /v3/trips/%E0%A4%A HTTP/1.1',
      'GET /v3/users/me?limit=%ZZ HTTP/1.1',
      'GET //v3//users//me HTTP/1.1',
    ]) {
      const answer = await raw(line);
      const status = Number(answer.split(' ')[1]);
      expect(status, line).toBeGreaterThanOrEqual(400);
      expect(status, line).toBeLessThan(500);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(Array.isArray(JSON.parse(body)), line).toBe(true);
      expect(answer.toLowerCase()).toContain('content-type: application/json; charset=utf-8');
    }
    // Rejected by Node's HTTP parser itself: answered by the client-error handler.
    for (const line of [`GET /v3/users/me HTTP/1.1\r\nX-Big: ${'a'.repeat(20000)}`, 'GET /v3/users/me HTTP/1.1\r\nBad Header: x', 'BREW /v3 HTCPCP/1.0']) {
      const answer = await raw(line);
      const status = Number(answer.split(' ')[1]);
      expect([400, 431], line.slice(0, 40)).toContain(status);
      expect(Array.isArray(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)))).toBe(true);
    }
  } finally {
    await app.close();
  }
});
