// The token keeper (src/setup/token-keeper.ts) keeps the run going when a server refuses a token as
// expired (it renews it and sends the request again), and records the event when the token's
// expires_in said it still lived: TOKEN-LIFETIME-KEPT fails on it, where the run used to go on quietly.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ApiClient } from '../../../src/transport/api';
import { Redactor } from '../../../src/util/redact';
import type { Target } from '../../../src/setup/target';
import { brokenLifetimes, keptToken, startKeeping, stopKeeping } from '../../../src/setup/token-keeper';
import { listenOnLoopback } from '../support/loopback-server';

test('a token refused as expired while its expires_in says it lives: renewed and sent again, and the event recorded; one of unknown lifetime is not', async () => {
  // "early" and "unknown" are refused as expired at once; their renewals are taken.
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v3/auth/access_token') {
        const next = new URLSearchParams(body).get('refresh_token') === 'r-early' ? 'early-renewed' : 'unknown-renewed';
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: next, refresh_token: `r-${next}`, expires_in: 3600 }));
        return;
      }
      const token = (req.headers.authorization ?? '').replace('Bearer ', '');
      if (token.endsWith('-renewed')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(403, { 'content-type': 'application/json' }).end('[{"type":"AUTHORIZATION_ERROR","message":"Token has expired","tip":"Refresh it"}]');
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-keeper-'));
  try {
    const target = {
      name: 'expires-early',
      baseUrl: `${origin}/v3`,
      env: 'cloud',
      oauth: { clientId: 'app', clientSecret: 'secret' },
      requestTimeoutMs: 5000,
    } as Target;
    const now = Date.now();
    const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, new Redactor());
    startKeeping(
      { target, stateDir, browser: { missing: 'none' }, api },
      {
        full: keptToken({ access_token: 'early', refresh_token: 'r-early', expires_in: 3600 }, now, 'control', 'primary', ''),
        otherUser: keptToken({ access_token: 'unknown', refresh_token: 'r-unknown' }, now, 'control', 'other', ''),
      },
    );
    const [early, unknown] = await Promise.all([
      api.get('/users/me', { authorization: 'Bearer early' }),
      api.get('/users/me', { authorization: 'Bearer unknown' }),
    ]);
    // The run goes on: each renewed and sent again.
    expect([early.status, early.exchange.tokenRenewed, unknown.status, unknown.exchange.tokenRenewed]).toEqual([200, true, 200, true]);
    // Only the token whose expires_in said it lived is recorded.
    const events = brokenLifetimes({ stateDir });
    expect(events.map((e) => [e.key, e.status, e.lifetimeMs])).toEqual([['full', 403, 3_600_000]]);
    expect(events[0].leftMs).toBeGreaterThan(3_500_000);
  } finally {
    stopKeeping();
    fs.rmSync(stateDir, { recursive: true, force: true });
    await close();
  }
});
