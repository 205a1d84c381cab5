// A deliberately broken "implementation" of the API, route by route, to prove the suite survives
// servers that misbehave in every way: it must fail the affected checks with a clear reason, finish
// in bounded time, never crash, and still write its certificate.
// Plain node:http on purpose: resets, endless bodies and lies about content types are below what a
// framework lets a handler do.
import http from 'node:http';
import { listenOnLoopback } from '../support/loopback-server';

interface Misbehaviour {
  route: RegExp;
  what: string;
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => void;
}

const json = 'application/json; charset=utf-8';

const MISBEHAVIOURS: Misbehaviour[] = [
  {
    route: /^\/v3\/users\/me$/,
    what: 'an HTML error page with status 200',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Internal error</h1></body></html>');
    },
  },
  {
    route: /^\/v3\/users\/me\/cars$/,
    what: 'invalid JSON',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': json });
      res.end('[{"id": 1, "name": ');
    },
  },
  {
    route: /^\/v3\/users\/[^/]+$/,
    what: 'JSON of the wrong type (a string)',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': json });
      res.end('"user"');
    },
  },
  {
    route: /^\/v3\/users\/[^/]+\/cars$/,
    what: 'an empty body',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': json });
      res.end();
    },
  },
  {
    route: /^\/v3\/cars\/[^/]+$/,
    what: 'a 10 MB body',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': json });
      const chunk = `${'x'.repeat(1023)}\n`;
      let sent = 0;
      const push = () => {
        while (sent < 10 * 1024 && res.write(chunk)) sent++;
        if (sent >= 10 * 1024) res.end();
        else {
          sent++;
          res.once('drain', push);
        }
      };
      res.write('"');
      push();
    },
  },
  {
    route: /^\/v3\/cars\/[^/]+\/status$/,
    what: 'a response that never ends',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': json });
      res.write('{"signals": [');
    },
  },
  {
    route: /^\/v3\/cars\/[^/]+\/locations$/,
    what: 'a connection reset',
    handle: (req) => {
      req.socket.destroy();
    },
  },
  {
    route: /^\/v3\/cars\/[^/]+\/locations\.geojson$/,
    what: 'an answer slower than the request timeout',
    handle: (_q, res) => {
      const t = setTimeout(() => {
        res.writeHead(200, { 'content-type': json });
        res.end('[]');
      }, 4000);
      res.on('close', () => clearTimeout(t));
    },
  },
  {
    route: /^\/v3\/cars\/[^/]+\/signals$/,
    what: 'a redirect loop',
    handle: (req, res) => {
      res.writeHead(302, { location: req.url ?? '/' });
      res.end();
    },
  },
  {
    route: /^\/v3\/cars\/[^/]+\/trips$/,
    what: 'a wrong content type (JSON served as text/plain)',
    handle: (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('[]');
    },
  },
];

/** Everything else: 404 with an HTML body, like a misconfigured proxy. */
function fallback(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/html' });
  res.end('<html><body>Not Found</body></html>');
}

export async function startHostileServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    (MISBEHAVIOURS.find((m) => m.route.test(path))?.handle ?? fallback)(req, res);
  });
  const { origin, close } = await listenOnLoopback(server);
  return { url: `${origin}/v3`, close };
}

if (require.main === module) {
  startHostileServer().then(({ url }) => console.log(`hostile server at ${url}`));
}
