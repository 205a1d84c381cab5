// The HTTP client's connections (src/transport/network.ts, connection-reuse.ts): a GET that meets a kept-alive
// connection the server closed while idle (no byte of answer) is sent again once on a fresh
// connection and counted, a POST as a GET (a server closing an idle connection does not read what
// arrives on it); a fresh connection closed unanswered while other requests were in flight (written
// late on a busy machine) is sent again alone, on a fresh connection; a failure on a fresh connection
// alone, or once some of the answer came, is the server's (no answer, no retry).
// Once a server was seen closing idle connections, by a request that met the close or by the close
// arriving while the connection sat idle, the client no longer reuses one idle that long.
// It asks for gzip and reads a compressed answer (docs/CONTRIBUTING.md, precision round 1, says so).
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { ApiClient, NoAnswerError } from '../../../src/transport/api';
import { joinRun } from '../../../src/transport/breaker';
import { idleCloseSeenMs, learntIdleCloses, rememberIdleCloses } from '../../../src/transport/connection-reuse';
import { Redactor } from '../../../src/util/redact';
import { closeIdleConnections, closeIdleSockets, IDLE_MS, IDLE_SOCKET_MS } from '../../../reference-server/http/idle-close';
import { listenOnLoopback } from '../support/loopback-server';

interface Seen {
  method: string;
  url: string;
  port: number;
  connection?: string;
}

/** A server answering 200 "ok", recording each request with the client port it came from. */
async function start(handle?: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen[]) => boolean) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', port: req.socket.remotePort ?? 0, connection: req.headers.connection });
    req.resume();
    if (handle?.(req, res, seen)) return;
    res.writeHead(200, { 'content-type': 'application/json' }).end('"ok"');
  });
  server.keepAliveTimeout = 60_000;
  const { origin, close } = await listenOnLoopback(server);
  // A breaker of its own: what a route did in another test's run is not this one's.
  joinRun(`api-connections ${origin}`, `${origin}/v3`, []);
  return { server, seen, origin, api: new ApiClient(`${origin}/v3`, 3000, new Redactor([])), close };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the client asks for gzip and reads a compressed answer (a server or proxy compressing, as the variant blindp-gzip-answers does)', async () => {
  const record = { id: 'x'.repeat(2000) };
  const { api, seen, close } = await start((req, res) => {
    if (!/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return false;
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', vary: 'Accept-Encoding' }).end(gzipSync(JSON.stringify(record)));
    return true;
  });
  try {
    const res = await api.get('/users/me');
    expect([res.status, res.json]).toEqual([200, record]);
    expect(seen).toHaveLength(1);
  } finally {
    await close();
  }
});

test('a GET on a connection closed while idle is sent again on a fresh one, once, and counted', async () => {
  const s = await start();
  closeIdleConnections(s.server);
  try {
    expect((await s.api.get('/a')).status).toBe(200);
    await pause(IDLE_MS + 150);
    const again = await s.api.get('/a');
    expect(again.status).toBe(200);
    expect(again.exchange.reconnected).toBe(1);
    // The server saw the first request, and the second on a new connection (the one it dropped never reached it).
    expect(s.seen.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(s.seen[1].port).not.toBe(s.seen[0].port);
    // No pause, no close: the connection is reused, nothing is sent twice.
    const next = await s.api.get('/a');
    expect(next.exchange.reconnected).toBeUndefined();
    // The client has learnt the server's habit (a connection idle that long is closed): after a pause
    // as long or longer it opens a connection instead of meeting a closed one (nothing dropped, nothing
    // sent again). Longer here: on a busy machine the idle time measured may exceed the pause.
    await pause(3 * (IDLE_MS + 150));
    const later = await s.api.get('/a');
    expect(later.exchange.reconnected).toBeUndefined();
    expect(s.seen).toHaveLength(4);
  } finally {
    await s.close();
  }
});

test('a POST goes on a kept-alive connection, as any request (a new one costs a distant server a round trip)', async () => {
  const s = await start();
  try {
    const first = await s.api.post('/b', { body: {} });
    await pause(20); // the connection back in the pool
    const second = await s.api.post('/b', { body: {} });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.exchange.reconnected, second.exchange.reconnected]).toEqual([undefined, undefined]);
    const posts = s.seen.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2); // none sent twice
    expect(posts[1].port).toBe(posts[0].port);
  } finally {
    await s.close();
  }
});

test('a POST that meets a kept-alive connection the server closed unread (no byte of answer) is sent again once, on a fresh one', async () => {
  // Every second request on a connection is dropped unanswered, as a server closing it as idle drops it.
  const perSocket = new WeakMap<object, number>();
  const s = await start((req) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (n < 2) return false;
    req.socket.destroy();
    return true;
  });
  try {
    expect((await s.api.post('/b', { body: {} })).status).toBe(200);
    await pause(20); // the connection back in the pool: the next request reuses it
    const again = await s.api.post('/b', { body: {} });
    expect(again.status).toBe(200);
    expect(again.exchange.reconnected).toBe(1);
    const posts = s.seen.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(3);
    expect(posts[1].port).toBe(posts[0].port); // the kept-alive connection, dropped
    expect(posts[2].port).not.toBe(posts[1].port); // sent again on a fresh one, answered
  } finally {
    await s.close();
  }
});

test("a server that drops the request again on the fresh connection has not answered: the server's failure, after one retry", async () => {
  // The first request is answered; every later one is dropped unanswered.
  const s = await start((req, _res, seen) => {
    if (seen.length === 1) return false;
    req.socket.destroy();
    return true;
  });
  try {
    await s.api.get('/a');
    await pause(50); // the connection back in the pool: the next request reuses it
    const failure = await s.api.get('/a').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(NoAnswerError);
    expect((failure as NoAnswerError).message).toMatch(
      /closed the connection before answering \(on a fresh connection, sent again after the kept-alive one closed unanswered\)/,
    );
    expect((failure as NoAnswerError).exchange.reconnected).toBe(1);
    expect(s.seen).toHaveLength(3);
  } finally {
    await s.close();
  }
});

test('no retry on a fresh connection, nor once part of the answer came', async () => {
  const dropped = await start((req) => {
    req.socket.destroy();
    return true;
  });
  try {
    // The first request of this client to the server goes on a fresh connection: dropped, it is the server's.
    const failure = await dropped.api.get('/a').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(NoAnswerError);
    expect(dropped.seen).toHaveLength(1);
  } finally {
    await dropped.close();
  }
  const cut = await start((_req, res, seen) => {
    if (seen.length === 1) return false;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('"partial');
    setTimeout(() => res.socket?.destroy(), 20);
    return true;
  });
  try {
    await cut.api.get('/a');
    await pause(50);
    const failure = await cut.api.get('/a').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(NoAnswerError);
    expect((failure as NoAnswerError).exchange.reconnected).toBeUndefined();
    expect(cut.seen).toHaveLength(2);
  } finally {
    await cut.close();
  }
});

/** Answers /slow after 300 ms: a request in flight beside another. */
function slowly(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.url !== '/v3/slow') return false;
  setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('"slow"'), 300);
  return true;
}

test('a fresh connection closed unanswered while others were in flight: sent again alone, on a fresh connection, and answered', async () => {
  // The first /drop is closed unread, as a server closes a fresh connection the client wrote on late.
  let dropped = 0;
  const s = await start((req, res) => {
    if (slowly(req, res)) return true;
    if (req.url !== '/v3/drop' || dropped++ > 0) return false;
    req.socket.destroy();
    return true;
  });
  try {
    const [slow, dropped] = await Promise.all([s.api.get('/slow'), s.api.get('/drop')]);
    expect([slow.status, dropped.status]).toEqual([200, 200]);
    expect(dropped.exchange.reconnected).toBe(1);
    expect(dropped.exchange.sentAlone).toBe(true);
    // Sent twice, the second on a connection of its own (undici's "connection: close"), once /slow had its answer.
    const drops = s.seen.filter((r) => r.url === '/v3/drop');
    expect(drops).toHaveLength(2);
    expect(drops[1].connection).toBe('close');
    expect(s.seen.indexOf(drops[1])).toBe(2);
  } finally {
    await s.close();
  }
});

test("a fresh connection closed unanswered alone too, three times, is the server's; the route's next close is not sent again alone", async () => {
  const s = await start((req, res) => {
    if (slowly(req, res)) return true;
    if (req.url !== '/v3/drop') return false;
    req.socket.destroy();
    return true;
  });
  try {
    const [, failure] = await Promise.all([s.api.get('/slow'), s.api.get('/drop').catch((err: unknown) => err)]);
    expect(failure).toBeInstanceOf(NoAnswerError);
    expect((failure as NoAnswerError).message).toMatch(
      /closed the connection before answering \(sent again alone 3 times, each on a fresh connection, nothing else of the run in flight, after its connection closed unanswered\)/,
    );
    expect(s.seen.filter((r) => r.url === '/v3/drop')).toHaveLength(4);
    // Its route dropped a request alone: a later one closed beside others is the server's at once.
    const [, next] = await Promise.all([s.api.get('/slow'), s.api.get('/drop').catch((err: unknown) => err)]);
    expect(next).toBeInstanceOf(NoAnswerError);
    expect((next as NoAnswerError).exchange.sentAlone).toBeUndefined();
    expect(s.seen.filter((r) => r.url === '/v3/drop')).toHaveLength(5);
  } finally {
    await s.close();
  }
});

test("the server's idle time is learnt from its close of an idle connection, before any request meets one", async () => {
  const s = await start();
  closeIdleSockets(s.server);
  try {
    expect((await s.api.get('/a')).status).toBe(200);
    // The server closes the connection after IDLE_SOCKET_MS of idleness; the client sees it close while idle.
    await expect.poll(() => idleCloseSeenMs(s.origin), { timeout: 5000 }).toBeGreaterThan(IDLE_SOCKET_MS / 2);
    expect(learntIdleCloses()[s.origin]).toBe(idleCloseSeenMs(s.origin));
    // Well within it, the next request goes on a connection and is answered, nothing sent again.
    const next = await s.api.get('/a');
    expect(next.status).toBe(200);
    expect(next.exchange.reconnected).toBeUndefined();
    // What another process of the run learnt (the preparation's, through the run context) is taken when shorter.
    const learnt = idleCloseSeenMs(s.origin)!;
    rememberIdleCloses({ [s.origin]: learnt + 100 });
    expect(idleCloseSeenMs(s.origin)).toBe(learnt);
    rememberIdleCloses({ [s.origin]: learnt / 2 });
    expect(idleCloseSeenMs(s.origin)).toBe(learnt / 2);
  } finally {
    await s.close();
  }
});
