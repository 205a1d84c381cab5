// The parts of a real deployment that only the tests make (scripts/deployment.ts makes the private
// certificate authority and finds the machine's own name): nginx from Debian's packages in front of a
// server as a production site runs it (TLS, keep-alive time-outs on both sides, gzip, buffering, its own HTML pages for 502 and 504), and
// a forward proxy that tunnels CONNECT and forwards absolute-URI requests, noting who came through.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { hasCommand } from '../../../scripts/deployment';
import { freePort } from '../../../src/util/free-port';
import { stopGroup } from '../../../src/util/process-group';
import { listenOnLoopback } from './loopback-server';

/** nginx from Debian's packages (.ci/run installs it), wherever the PATH or /usr/sbin has it. */
export function nginxPath(): string | undefined {
  return ['nginx', '/usr/sbin/nginx'].find((c) => hasCommand(c));
}

export interface Nginx {
  port: number;
  /** nginx's error log (for a failing test's message). */
  errorLog: string;
  stop(): Promise<void>;
}

/**
 * nginx in front of `upstream` (host:port), over TLS with `tls`, configured as a production site: short
 * keep-alive towards the client (it closes idle connections without saying when), kept-alive
 * connections to the upstream with their own time-out, gzip of JSON and HTML, buffering of answers
 * and requests, and its own HTML pages for 502 and 504.
 */
export async function startNginx(options: { upstream: string; tls: { cert: string; key: string }; serverName: string }): Promise<Nginx> {
  const binary = nginxPath();
  if (!binary) throw new Error('nginx is not installed (Debian: apt-get install nginx)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-nginx-'));
  const port = await freePort();
  fs.mkdirSync(path.join(dir, 'html'));
  fs.writeFileSync(
    path.join(dir, 'html', '50x.html'),
    '<!doctype html><html><body><h1>The service is unavailable</h1><p>Please try again later.</p></body></html>\n',
  );
  const errorLog = path.join(dir, 'error.log');
  const conf = `
worker_processes 1;
user root;
pid ${dir}/nginx.pid;
error_log ${errorLog} warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  default_type application/octet-stream;
  keepalive_timeout 5s;
  keepalive_requests 200;
  gzip on;
  gzip_types application/json text/html text/css application/javascript;
  gzip_min_length 256;
  gzip_proxied any;
  upstream api {
    server ${options.upstream};
    keepalive 16;
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port} ssl;
    listen [::1]:${port} ssl;
    server_name ${options.serverName};
    ssl_certificate ${options.tls.cert};
    ssl_certificate_key ${options.tls.key};
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:1m;
    client_max_body_size 1m;
    proxy_buffering on;
    proxy_buffers 16 16k;
    proxy_connect_timeout 5s;
    proxy_read_timeout 30s;
    error_page 502 504 /50x.html;
    location = /50x.html { root ${dir}/html; internal; }
    location / {
      proxy_pass http://api;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
    }
  }
}
`;
  const confFile = path.join(dir, 'nginx.conf');
  fs.writeFileSync(confFile, conf);
  const child: ChildProcess = spawn(binary, ['-p', dir, '-c', confFile, '-e', errorLog, '-g', 'daemon off;'], { stdio: 'ignore', detached: true });
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      stopGroup(child);
      throw new Error(`nginx did not start: ${fs.existsSync(errorLog) ? fs.readFileSync(errorLog, 'utf8').slice(-1000) : 'no error log'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, errorLog, stop: () => stopGroup(child) };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export interface ForwardProxy {
  url: string;
  /** Who came through: each CONNECT or absolute-URI request, with its User-Agent. */
  seen: Array<{ method: string; target: string; userAgent: string }>;
  close(): Promise<void>;
}

/** A forward proxy: CONNECT opens a tunnel to host:port (TLS passes through untouched); absolute-URI requests are forwarded. */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: ForwardProxy['seen'] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', userAgent: String(req.headers['user-agent'] ?? '') });
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URI expected');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = http.request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket: net.Socket, head) => {
    seen.push({ method: 'CONNECT', target: req.url ?? '', userAgent: String(req.headers['user-agent'] ?? '') });
    const [host, port] = splitAuthority(req.url ?? '');
    const upstream = net.connect(port, host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    upstream.on('error', () => socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    socket.on('error', () => upstream.destroy());
  });
  const { origin, close } = await listenOnLoopback(server);
  return {
    url: origin,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await close();
    },
  };
}

function splitAuthority(authority: string): [string, number] {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(authority);
  return m ? [m[1], Number(m[2])] : [authority, 443];
}
