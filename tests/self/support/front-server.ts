// A server in front of another (a self-test's stand-in for a vendor's deployment): it forwards every
// request to the server behind it, and where that one answers a given page with 200, answers a page
// of its own instead (its other answers, a 404 for an unknown client, pass through). A page it answers
// or rewrites keeps the server's own headers (its framing policy, its cookies) but those of the body.
import http from 'node:http';
import { listenOnLoopback } from './loopback-server';

export interface FrontServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Each request it was sent, as "METHOD /path" (without the query), in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * `pages`: GET path (without the query) -> the HTML answered there instead of the server's own 200.
 * `rewrite`: path -> replacements made in the server's own 200 HTML answers there (any method).
 */
/** The server's headers for a body of the front's own: those describing the server's body dropped. */
function headersFor(answer: http.IncomingMessage): http.OutgoingHttpHeaders {
  const {
    'content-length': _length,
    'content-type': _type,
    'content-encoding': _encoding,
    'transfer-encoding': _transfer,
    etag: _etag,
    ...kept
  } = answer.headers;
  return { ...kept, 'content-type': 'text/html; charset=utf-8' };
}

export async function startFrontServer(
  upstream: string,
  pages: Record<string, string>,
  rewrite: Record<string, Array<[RegExp, string]>> = {},
): Promise<FrontServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    requests.push(`${req.method} ${pathname}`);
    const own = req.method === 'GET' ? pages[pathname] : undefined;
    const forward = http.request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (answer) => {
      if (own !== undefined && answer.statusCode === 200) {
        answer.resume();
        res.writeHead(200, headersFor(answer)).end(own);
        return;
      }
      const edits = rewrite[pathname];
      if (edits && answer.statusCode === 200 && String(answer.headers['content-type']).startsWith('text/html')) {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const html = edits.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), Buffer.concat(chunks).toString('utf8'));
          res.writeHead(200, headersFor(answer)).end(html);
        });
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return { ...(await listenOnLoopback(server)), requests };
}
