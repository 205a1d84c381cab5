// A small HTTP forward proxy for the operator-control tests: it forwards requests to their server
// (absolute-URI requests, and those tunnelled with CONNECT, which it reads as HTTP itself), records
// each request's headers, and can play an API gateway that limits the rate: beyond `limitPerSecond`
// requests in the current second it answers 429 with a Retry-After; `refuse` names requests it always
// answers 429 (a gateway that throttles, say, every authorized request).
import http from 'node:http';
import { listenOnLoopback } from './loopback-server';

export interface Proxy {
  url: string;
  /** Headers of every request it forwarded. */
  seen: Array<Record<string, string | string[] | undefined>>;
  /** 429 answers it gave. */
  refused: number;
  close(): Promise<void>;
}

export async function startProxy(options: { limitPerSecond?: number; refuse?: (req: http.IncomingMessage) => boolean } = {}): Promise<Proxy> {
  const state: Proxy = { url: '', seen: [], refused: 0, close: async () => undefined };
  let second = 0;
  let inSecond = 0;
  const server = http.createServer((req, res) => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) [second, inSecond] = [now, 0];
    inSecond += 1;
    if ((options.limitPerSecond && inSecond > options.limitPerSecond) || options.refuse?.(req)) {
      state.refused += 1;
      res
        .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
        .end('[{"type":"RATE_LIMIT","message":"Too many requests","tip":"Slow down"}]');
      return;
    }
    state.seen.push({ ...req.headers });
    const tunnel = (req.socket as { tunnelTo?: string }).tunnelTo;
    const target = tunnel ? new URL(req.url ?? '/', `http://${tunnel}`) : new URL(req.url ?? '/');
    const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  // CONNECT host:port: the tunnel's bytes are HTTP to that server; this same server reads them.
  server.on('connect', (req, socket, head) => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    (socket as { tunnelTo?: string }).tunnelTo = req.url;
    if (head.length) socket.unshift(head);
    server.emit('connection', socket);
  });
  const { origin, close } = await listenOnLoopback(server);
  state.url = origin;
  state.close = close;
  return state;
}
