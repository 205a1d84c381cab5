// The replay transport (src/setup/replay.ts) on its own: a request is answered by the first unused
// recorded exchange of its check with the same method, URL, headers, body and credential key; a
// recorded no-answer is replayed as one; the clock gives the recorded readings; the recorded target
// keeps no secret.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ApiClient, NoAnswerError, RateLimitedError, type Exchange } from '../../../src/transport/api';
import { replayedClock, systemClock } from '../../../src/transport/clock';
import { Redactor } from '../../../src/util/redact';
import { NoRecordedAnswer, recordedTarget, ReplaySession } from '../../../src/setup/replay';
import type { RecordedCheck } from '../../../src/verdict/check-record';
import type { Target } from '../../../src/setup/target';

const BASE = 'http://vds.example/v3';

function recorded(over: Partial<Exchange>): Exchange {
  return {
    method: 'GET',
    url: `${BASE}/users/me`,
    credential: 'full',
    requestHeaders: { accept: 'application/json', authorization: 'Bearer [REDACTED]' },
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    body: '{"id":1}',
    durationMs: 3,
    ...over,
  };
}

function client(exchanges: Exchange[]): { api: ApiClient; session: ReplaySession } {
  const check: RecordedCheck = { key: 'K', requirement: 'R', group: 'users', status: 'passed', exchanges };
  const session = new ReplaySession(check);
  return { api: new ApiClient(BASE, 1000, new Redactor(['replay-token-full', 'replay-token-otherUser']), { transport: session }), session };
}

test("answers by method, URL and credential key, never by the token's value; identical requests in recorded order", async () => {
  const { api, session } = client([recorded({ body: '{"id":1}' }), recorded({ body: '{"id":2}', status: 201 })]);
  const asFull = { authorization: 'Bearer replay-token-full', credential: 'full' as const };
  expect((await api.get('/users/me', asFull)).json).toEqual({ id: 1 });
  await expect(api.get('/users/me', { authorization: 'Bearer replay-token-otherUser', credential: 'otherUser' })).rejects.toBeInstanceOf(NoRecordedAnswer);
  const second = await api.get('/users/me', asFull);
  expect([second.status, second.json]).toEqual([201, { id: 2 }]);
  await expect(api.get('/users/me', asFull)).rejects.toBeInstanceOf(NoRecordedAnswer);
  expect(session.misses).toEqual([`GET ${BASE}/users/me (credential otherUser)`, `GET ${BASE}/users/me (credential full)`]);
  expect(session.unused()).toBe(0);
});

test('a recorded no-answer or a 429 past the retries is replayed as one', async () => {
  const { api } = client([
    recorded({ status: undefined, body: undefined, error: 'no complete answer within 10000 ms (requestTimeoutMs)', errorKind: 'timeout' }),
    recorded({ url: `${BASE}/users/me/cars`, status: 429, body: undefined, errorKind: 'rate-limited' }),
  ]);
  const asFull = { authorization: 'Bearer replay-token-full', credential: 'full' as const };
  const timeout = await api.get('/users/me', asFull).catch((e: unknown) => e);
  expect(timeout).toBeInstanceOf(NoAnswerError);
  expect((timeout as NoAnswerError).kind).toBe('timeout');
  expect((timeout as NoAnswerError).message).toContain('no complete answer within 10000 ms');
  await expect(api.get('/users/me/cars', asFull)).rejects.toBeInstanceOf(RateLimitedError);
});

test('the clock: a certification keeps every reading, a replay gives them back in order', () => {
  const recording = systemClock(true);
  const a = recording.now();
  const b = recording.now();
  expect(recording.readings).toEqual([a, b]);
  const replayed = replayedClock([1000, 2000]);
  expect([replayed.now(), replayed.now(), replayed.now()]).toEqual([1000, 2000, 2000]);
});

test('the recorded target keeps no secret: placeholders name the keys; no token, command or CA file', () => {
  const target: Target = {
    name: 'acme',
    baseUrl: BASE,
    env: 'cloud',
    allowWrites: true,
    startCommand: 'start-it',
    startTimeoutMs: 1,
    requestTimeoutMs: 2,
    tokens: { full: 'tok-full-secret-value' },
    tokenCommands: { otherUser: 'vault read x' },
    caFile: '/etc/ca.pem',
    oauth: { clientId: 'acme-app', clientSecret: 'the-client-secret', username: 'alice@acme', password: 'alice-secret-pw' },
    headers: { 'X-Api-Key': 'gateway-key-secret' },
    data: {},
    source: 'acme.yaml',
    unset: {},
    vars: { 'oauth.clientSecret': 'ACME_SECRET' },
  };
  const r = recordedTarget(target);
  const text = JSON.stringify(r);
  for (const secret of ['tok-full-secret-value', 'the-client-secret', 'alice-secret-pw', 'gateway-key-secret', 'vault read x', 'start-it', '/etc/ca.pem']) {
    expect(text).not.toContain(secret);
  }
  expect(r.oauth).toMatchObject({
    clientId: 'acme-app',
    clientSecret: 'replay-secret-oauth.clientSecret',
    username: 'alice@acme',
    password: 'replay-secret-oauth.password',
  });
  expect(r.headers).toEqual({ 'X-Api-Key': 'replay-secret-headers.X-Api-Key' });
});

test('no check reads the system clock: dates come from ctx.now(), which a replay answers with the recorded instants', () => {
  // The check procedures and the engine that runs them.
  const dirs = ['src/checks', 'src/engine'].map((d) => path.join(__dirname, '../../..', d));
  const files = dirs.flatMap((dir) =>
    fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(dir, f)),
  );
  expect(files.length).toBeGreaterThan(5);
  const offenders = files.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        // The system clock, or a date template expanded at the system's now (its default argument).
        /Date\.now\(\)|new Date\(\)/.test(line) || (/expand(Template|Deep)\(/.test(line) && !/ctx\.now\(\)/.test(line))
          ? [`${f}:${i + 1}: ${line.trim()}`]
          : [],
      ),
  );
  expect(offenders).toEqual([]);
});
