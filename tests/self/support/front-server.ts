// A server in front of another (a self-test's stand-in for a vendor's deployment): it forwards every
// request to the server behind it, and where that one answers a given page with 200, answers a page
// of its own instead (its other answers, a 404 for an unknown client, pass through).
import http from 'node:http';
import { listenOnLoopback } from './loopback-server';

export interface FrontServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

/** `pages`: GET path (without the query) -> the HTML answered there instead of the server's own 200. */
export async function startFrontServer(upstream: string, pages: Record<string, string>): Promise<FrontServer> {
  const server = http.createServer((req, res) => {
    const own = req.method === 'GET' ? pages[(req.url ?? '/').split('?')[0]] : undefined;
    const forward = http.request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (answer) => {
      if (own !== undefined && answer.statusCode === 200) {
        answer.resume();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(own);
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return listenOnLoopback(server);
}
