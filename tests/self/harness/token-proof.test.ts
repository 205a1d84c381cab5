// The proof of the tokens minted through the sign-in page (src/setup/token-proof.ts) on a server with a
// route that never answers: the run's preparation goes on (a request without answer proves nothing
// either way, it never ends the run), a token whose every route needing the scope it lacks gives no
// answer is kept (nothing disproves it; the checks there fail on the missing answer itself), and one
// that gets no answer where it must be accepted is dropped, naming the route.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { ApiClient } from '../../../src/transport/api';
import { joinRun } from '../../../src/transport/breaker';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import { Redactor } from '../../../src/util/redact';
import type { Target, TokenKey } from '../../../src/setup/target';
import { proveTokens } from '../../../src/setup/token-proof';
import { listenOnLoopback } from '../support/loopback-server';

test('a route that never answers: the proof goes on, keeps the token it cannot disprove, drops the one refused an answer where it must be served', async () => {
  // Car status never answers; GET /users/me never answers the token "hangs-me"; anything else 200.
  const server = http.createServer((req, res) => {
    req.resume();
    if ((req.url ?? '').endsWith('/status')) return;
    if (req.url === '/v3/users/me' && req.headers.authorization === 'Bearer hangs-me') return;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const { origin, close } = await listenOnLoopback(server);
  try {
    const catalogue = loadCatalogue();
    const target = {
      name: 'hung-status',
      baseUrl: `${origin}/v3`,
      env: 'cloud',
      allowWrites: false,
      startTimeoutMs: 1000,
      requestTimeoutMs: 300,
      tokens: {},
      data: {},
      source: 'hung-status.yaml',
      unset: {},
      vars: {},
    } as Target;
    const run = {
      tokens: { 'withoutScope.status_read': 'lacks-status', 'withoutScope.cars_read': 'hangs-me' } as Partial<Record<TokenKey, string>>,
      tokenNotes: {} as Partial<Record<TokenKey, string>>,
      data: { userId: '101', carId: '5001', tripId: 't1' },
    };
    joinRun('preparation of the token proof test', target.baseUrl, catalogue.routes, { preparing: true });
    const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, new Redactor([]));
    await proveTokens({ target, catalogue, run, api }, ['withoutScope.status_read', 'withoutScope.cars_read']);
    expect(run.tokens['withoutScope.status_read']).toBe('lacks-status');
    expect(run.tokens['withoutScope.cars_read']).toBeUndefined();
    expect(run.tokenNotes['withoutScope.cars_read']).toMatch(/GET \/users\/me, which does not need cars_read, gave no answer/);
  } finally {
    await close();
  }
});

test('a token signed in for every scope but one that is served where that one is needed broke its word: dropped, and returned for TOKEN-SCOPES-KEPT; an empty scope list read otherwise is only dropped', async () => {
  // Every request is served, whatever its token.
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const { origin, close } = await listenOnLoopback(server);
  try {
    const catalogue = loadCatalogue();
    const target = {
      name: 'grants-all',
      baseUrl: `${origin}/v3`,
      env: 'cloud',
      allowWrites: false,
      requestTimeoutMs: 2000,
      source: 'grants-all.yaml',
    } as Target;
    const run = {
      tokens: { 'withoutScope.cars_read': 'every-scope-but-cars', noScopes: 'none-asked' } as Partial<Record<TokenKey, string>>,
      tokenNotes: {} as Partial<Record<TokenKey, string>>,
      data: { userId: '101', carId: '5001', tripId: 't1' },
    };
    joinRun('preparation of the token proof test', target.baseUrl, catalogue.routes, { preparing: true });
    const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, new Redactor([]));
    const grantsMore = await proveTokens({ target, catalogue, run, api }, ['withoutScope.cars_read', 'noScopes']);
    expect(run.tokens).toEqual({});
    expect(grantsMore).toHaveLength(1);
    expect(grantsMore[0]).toMatch(
      /^tokens\.withoutScope\.cars_read, signed in for every scope but cars_read: it was not refused for a missing scope where cars_read is needed/,
    );
  } finally {
    await close();
  }
});
