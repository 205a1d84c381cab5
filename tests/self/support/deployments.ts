// The parts of a real deployment, made by the test that needs them: a private certificate authority
// and the certificates it issues (openssl), the machine reached by its own name (neither localhost nor
// a loopback literal), nginx from Debian's packages in front of a server as a production site runs it
// (TLS, keep-alive time-outs on both sides, gzip, buffering, its own HTML pages for 502 and 504), and
// a forward proxy that tunnels CONNECT and forwards absolute-URI requests, noting who came through.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/util/free-port';
import { stopGroup } from '../../../src/util/process-group';
import { listenOnLoopback } from './loopback-server';

export function hasCommand(command: string, args = ['-v']): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** nginx from Debian's packages (.ci/run installs it), wherever the PATH or /usr/sbin has it. */
export function nginxPath(): string | undefined {
  return ['nginx', '/usr/sbin/nginx'].find((c) => hasCommand(c));
}

export interface Authority {
  dir: string;
  /** The authority's certificate (PEM): what a target file's caFile names. */
  ca: string;
  /** A certificate for these names (DNS names or IP addresses) and its key, signed by this authority. */
  issue(names: string[]): { cert: string; key: string };
}

/** A certificate authority of its own, made in a fresh folder (valid a day). */
export function makeAuthority(label: string): Authority {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `vds-ca-${label}-`));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', `/CN=VDS test authority ${label}`]);
  let issued = 0;
  return {
    dir,
    ca: path.join(dir, 'ca.pem'),
    issue(names) {
      const n = ++issued;
      const san = names.map((h) => (net.isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
      fs.writeFileSync(path.join(dir, `ext${n}.cnf`), `subjectAltName=${san}\n`);
      run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `leaf${n}.key`, '-out', `leaf${n}.csr`, '-subj', `/CN=${names[0]}`]);
      run([
        'x509',
        '-req',
        '-in',
        `leaf${n}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `leaf${n}.pem`,
        '-days',
        '1',
        '-extfile',
        `ext${n}.cnf`,
      ]);
      return { cert: path.join(dir, `leaf${n}.pem`), key: path.join(dir, `leaf${n}.key`) };
    },
  };
}

/**
 * This machine's own name, as a user's server is reached: the host name when it resolves to an
 * address of this machine (not `localhost`, not a literal), else undefined (the test says so).
 */
export async function machineName(): Promise<string | undefined> {
  const name = os.hostname();
  if (!name || name === 'localhost' || net.isIP(name)) return undefined;
  const own = new Set(
    Object.values(os.networkInterfaces())
      .flat()
      .map((i) => i?.address),
  );
  try {
    const found = await dns.lookup(name, { all: true });
    return found.some((a) => own.has(a.address) || a.address.startsWith('127.') || a.address === '::1') ? name : undefined;
  } catch {
    return undefined;
  }
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
