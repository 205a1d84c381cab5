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

type Kept = Parameters<typeof startKeeping>[1];

/**
 * A server whose token endpoint renews a refresh token into the access token `renewed(refreshToken)`,
 * which it takes; any other token is answered by `refuse`. The keeper runs on it with `tokens`
 * (obtained relative to now) while `use` sends its requests; everything is stopped after.
 */
async function withKeeper(
  name: string,
  renewed: (refreshToken: string) => string,
  refuse: (token: string, res: http.ServerResponse) => void,
  tokens: (now: number) => Kept,
  use: (api: ApiClient, stateDir: string) => Promise<void>,
): Promise<void> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v3/auth/access_token') {
        const next = renewed(new URLSearchParams(body).get('refresh_token') ?? '');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: next, refresh_token: `r-${next}`, expires_in: 3600 }));
        return;
      }
      const token = (req.headers.authorization ?? '').replace('Bearer ', '');
      if (token.endsWith('-renewed')) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else refuse(token, res);
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-keeper-'));
  try {
    const target = { name, baseUrl: `${origin}/v3`, env: 'cloud', oauth: { clientId: 'app', clientSecret: 'secret' }, requestTimeoutMs: 5000 } as Target;
    const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, new Redactor());
    startKeeping({ target, stateDir, browser: { missing: 'none' }, api }, tokens(Date.now()));
    await use(api, stateDir);
  } finally {
    stopKeeping();
    fs.rmSync(stateDir, { recursive: true, force: true });
    await close();
  }
}

test('a token refused as expired while its expires_in says it lives: renewed and sent again, and the event recorded; one of unknown lifetime is not', async () => {
  // "early" and "unknown" are refused as expired at once; their renewals are taken.
  await withKeeper(
    'expires-early',
    (refresh) => (refresh === 'r-early' ? 'early-renewed' : 'unknown-renewed'),
    (_token, res) =>
      res.writeHead(403, { 'content-type': 'application/json' }).end('[{"type":"AUTHORIZATION_ERROR","message":"Token has expired","tip":"Refresh it"}]'),
    (now) => ({
      full: keptToken({ access_token: 'early', refresh_token: 'r-early', expires_in: 3600 }, now, 'control', 'primary', ''),
      otherUser: keptToken({ access_token: 'unknown', refresh_token: 'r-unknown' }, now, 'control', 'other', ''),
    }),
    async (api, stateDir) => {
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
    },
  );
});

test('a token at the end of its life refused as unknown is renewed and sent again, not recorded; one in mid-life refused so stands', async () => {
  // A server that forgets its expired tokens answers them as unknown (decision D-EXPIRED-NAMED): a
  // busy client may write a request after the token ran out, which must not fail the check it serves.
  await withKeeper(
    'forgets-expired',
    (refresh) => `${refresh.slice(2)}-renewed`,
    (token, res) => {
      const refuse = () =>
        res.writeHead(401, { 'content-type': 'application/json' }).end('[{"type":"AUTHENTICATION_ERROR","message":"Invalid token","tip":"Sign in again"}]');
      // Held 800 ms, as a busy client's request is: "ending" runs past its renewal margin meanwhile.
      if (token === 'ending') setTimeout(refuse, 800);
      else refuse();
    },
    // "ending": 8 s of life, obtained 5.5 s ago: sent as it is (its renewal margin, 2 s, starts in half a
    // second) and answered after the margin began; "young": an hour of life, just obtained.
    (now) => ({
      full: keptToken({ access_token: 'ending', refresh_token: 'r-ending', expires_in: 8 }, now - 5_500, 'control', 'primary', ''),
      otherUser: keptToken({ access_token: 'young', refresh_token: 'r-young', expires_in: 3600 }, now, 'control', 'other', ''),
    }),
    async (api, stateDir) => {
      const ending = await api.get('/users/me', { authorization: 'Bearer ending' });
      const young = await api.get('/users/me', { authorization: 'Bearer young' });
      expect([ending.status, ending.exchange.tokenRenewed, young.status, young.exchange.tokenRenewed ?? false]).toEqual([200, true, 401, false]);
      expect(brokenLifetimes({ stateDir })).toEqual([]);
    },
  );
});
