// A reverse proxy in front of a server, for the tests that need a server the reference cannot be
// made into by a fault: a server half built (some routes answered by its framework's 404), one
// behind a gateway that refuses every bearer token, one whose route drops its connections. `answer` sees each
// request first: it writes its own answer and returns true, or returns false to forward it as is; `after`
// (optional) sees each forwarded answer whole before it is handed over, and may replace its body.
import http from 'node:http';
import { listenOnLoopback } from './loopback-server';

export interface FrontProxy {
  /** http://127.0.0.1:<port>: the upstream's URLs with this origin in place of its own. */
  origin: string;
  close(): Promise<void>;
}

export type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/**
 * Sees each upstream answer whole before it is handed over: may act meanwhile (a write between two of
 * a check's reads), and returns the body to hand over instead, or nothing to hand it over as it came.
 */
export type AfterAnswer = (req: http.IncomingMessage, status: number, body: Buffer) => Promise<Buffer | undefined>;

export async function startFrontProxy(upstream: string, answer: Answer, after?: AfterAnswer): Promise<FrontProxy> {
  const server = http.createServer((req, res) => {
    if (answer(req, res)) {
      req.resume();
      return;
    }
    const forward = http.request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (up) => {
      if (!after) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', async () => {
        const body = (await after(req, up.statusCode ?? 502, Buffer.concat(chunks))) ?? Buffer.concat(chunks);
        res.writeHead(up.statusCode ?? 502, { ...up.headers, 'content-length': String(body.length) });
        res.end(body);
      });
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return listenOnLoopback(server);
}

/**
 * What a Node framework (Fastify, here) answers for a route nobody wrote: 404 and its own JSON, not
 * the API's error array.
 */
function frameworkNotFound(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  res
    .writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify({ statusCode: 404, error: 'Not Found', message: `Route ${req.method}:${path} not found` }));
}

/** A server with the trips and device routes not written yet: its framework answers them. */
export function halfBuilt(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (!/^\/v3\/(trips|devices)\//.test(req.url ?? '')) return false;
  frameworkNotFound(req, res);
  return true;
}

/** A gateway in front that wants a credential of its own: every bearer token is refused (401). */
export function refusesBearer(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (!/^Bearer /i.test(String(req.headers.authorization ?? ''))) return false;
  res
    .writeHead(401, { 'content-type': 'application/json' })
    .end(JSON.stringify([{ type: 'AUTHENTICATION_ERROR', message: 'Invalid token', tip: 'Send the gateway key in X-Gateway-Key' }]));
  return true;
}

/** One route whose handler crashes the connection: every request to paths matching `path` is dropped unanswered. */
export function dropsConnection(path: RegExp) {
  return (req: http.IncomingMessage): boolean => {
    if (!path.test((req.url ?? '').split('?')[0])) return false;
    req.socket.destroy();
    return true;
  };
}
