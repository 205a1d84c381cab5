// The suite is not the load that fails a server (src/transport/request-slots.ts, api.ts): a request
// that timed out while others were in flight is sent again alone (nothing else of the run in flight)
// before its time-out counts; one late alone too is the server's, and that route's later time-outs are
// not sent again. A check's time limit leaves out the time its requests waited behind the run's own
// (ApiClient.heldMs).
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { ApiClient, NoAnswerError } from '../../../src/transport/api';
import { joinRun } from '../../../src/transport/breaker';
import { Redactor } from '../../../src/util/redact';
import { listenOnLoopback } from '../support/loopback-server';

const TIMEOUT_MS = 400;
/**
 * How long /crowded takes alone: well within the time-out, and long enough that requests sent together
 * reach it while it serves the first, even on a busy machine.
 */
const ALONE_MS = 150;

/**
 * A server whose answers to /crowded come late while it serves another request (as a server, or a
 * machine, busy with the run's other answers), in time when alone; /late answers its first request at
 * once and every later one too late, alone or not.
 */
async function start() {
  let serving = 0;
  let lateSeen = 0;
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    serving += 1;
    const crowded = serving > 1;
    req.resume();
    const delay = req.url === '/v3/crowded' ? (crowded ? 3 * TIMEOUT_MS : ALONE_MS) : req.url === '/v3/late' && lateSeen++ > 0 ? 3 * TIMEOUT_MS : 0;
    // A request the client gave up on is no longer worked on.
    let done = false;
    const end = () => {
      if (!done) serving -= 1;
      done = true;
    };
    setTimeout(() => {
      end();
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('"ok"');
    }, delay);
    res.on('close', end);
  });
  const { origin, close } = await listenOnLoopback(server);
  joinRun(`own-load-${origin}`, `${origin}/v3`, []);
  return { seen, api: new ApiClient(`${origin}/v3`, TIMEOUT_MS, new Redactor([])), close };
}

test('requests that time out together, each answered when alone: sent again alone, once each, and answered', async () => {
  const s = await start();
  try {
    const answers = await Promise.all([s.api.get('/crowded'), s.api.get('/crowded'), s.api.get('/crowded')]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    // The first the server took was answered at once; the others timed out beside it, and each went
    // again alone (one request more each), where it was answered.
    const alone = answers.filter((a) => a.exchange.sentAlone === true).length;
    expect(alone).toBeGreaterThanOrEqual(2);
    expect(s.seen.filter((u) => u === '/v3/crowded')).toHaveLength(3 + alone);
  } finally {
    await s.close();
  }
});

test("a route late alone too is the server's: no answer, and its next time-out is not sent again", async () => {
  const s = await start();
  try {
    expect((await s.api.get('/late')).status).toBe(200);
    const [first, second] = await Promise.allSettled([s.api.get('/late'), s.api.get('/late')]);
    const errors = [first, second].map((r) => (r.status === 'rejected' ? (r.reason as unknown) : undefined));
    expect(errors.every((e) => e instanceof NoAnswerError && e.kind === 'timeout')).toBe(true);
    const alone = errors.filter((e) => (e as NoAnswerError).exchange.sentAlone);
    // One went alone and was late there too; the other, its route now known late alone, counted at once.
    expect(alone).toHaveLength(1);
    expect((alone[0] as NoAnswerError).exchange.error).toContain('sent again alone');
    expect(s.seen.filter((u) => u === '/v3/late')).toHaveLength(4);
  } finally {
    await s.close();
  }
});

test('a request alone that times out is not sent again (nothing else was in flight)', async () => {
  const s = await start();
  try {
    expect((await s.api.get('/late')).status).toBe(200);
    const err = await s.api.get('/late').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoAnswerError);
    expect((err as NoAnswerError).exchange.sentAlone).toBeUndefined();
    expect(s.seen.filter((u) => u === '/v3/late')).toHaveLength(2);
    // The time it waited behind none of the run's own: nothing held.
    expect(s.api.heldMs()).toBeLessThan(50);
  } finally {
    await s.close();
  }
});
