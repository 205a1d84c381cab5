// The browser reaches exactly what the suite's HTTP client reaches (src/transport/http-policy.ts): a
// vendor's sign-in page sits on a server found by its name (DNS, the hosts file), maybe an IPv6
// literal, over TLS with the company's own certificate authority, behind a proxy, behind a gateway
// that wants its headers. Chromium resolves names itself and is never mapped away from any host.
//   proxy    HTTPS_PROXY / HTTP_PROXY / NO_PROXY, read once (proxySettings) and given to Chromium
//            as the same proxy for the same hosts (loopback included: Playwright proxies it too);
//   caFile   Chromium trusts only its own roots and takes no CA on its command line. Before the
//            launch, the suite opens a TLS connection to the target's origin as its HTTP client
//            would (the system's roots and the caFile, the host name checked, through the proxy):
//            the public keys of the certificates it accepts there are the ones Chromium is told to
//            accept (--ignore-certificate-errors-spki-list, honoured with Playwright's own
//            --user-data-dir). A certificate another authority signed is refused by both;
//   headers  the target's extra headers on the browser's requests to the target's origin only (a
//            gateway's key never goes to another site).
// What cannot be given to the browser is said before the run, naming the key (`reachWarnings`).
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { Browser, BrowserContext, LaunchOptions } from '@playwright/test';
import { proxyFor, proxySettings, trustedAuthorities } from '../transport/http-policy';
import type { Target } from './target';

/** What the browser is given to reach the target, learnt once before the run. */
export interface BrowserReach {
  /** SHA-256 (base64) of the public keys the target's caFile vouches for at its origin. */
  trustedKeys?: string[];
  /** What could not be given to the browser, each naming the target file's key. */
  warnings?: string[];
}

/** The origins the browser visits for the target: its sign-in page lives under baseUrl. */
function targetOrigins(target: Target): URL[] {
  return [new URL(target.baseUrl)];
}

/**
 * Learns what the browser needs to reach the target as the HTTP client does: with a caFile, the
 * public key of each https origin's certificate, accepted by the same authorities and host check.
 */
export async function learnReach(target: Target, env: NodeJS.ProcessEnv = process.env): Promise<BrowserReach> {
  const proxyProblems = proxyWarnings(env);
  if (!target.caFile) return proxyProblems.length ? { warnings: proxyProblems } : {};
  const ca = trustedAuthorities(target.caFile, env);
  const trustedKeys: string[] = [];
  const warnings: string[] = [...proxyProblems];
  for (const origin of targetOrigins(target).filter((u) => u.protocol === 'https:')) {
    try {
      trustedKeys.push(await certificateKey(origin, ca!, proxyFor(origin, proxySettings(env)), Math.min(target.requestTimeoutMs, 15_000)));
    } catch (err) {
      warnings.push(
        `caFile: the browser could not be given ${origin.origin}'s certificate (${(err as Error).message}); ` +
          `the sign-in page may not load in it. Check caFile in ${target.source} and that the server answers over TLS.`,
      );
    }
  }
  return { ...(trustedKeys.length ? { trustedKeys } : {}), ...(warnings.length ? { warnings } : {}) };
}

/** The SHA-256 of the public key of the certificate `origin` presents, once the authorities accept it for that host. */
async function certificateKey(origin: URL, ca: string[], proxy: string | undefined, timeoutMs: number): Promise<string> {
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  const port = Number(origin.port) || 443;
  const socket = proxy ? await tunnel(proxy, `${origin.hostname}:${port}`, timeoutMs) : undefined;
  return new Promise<string>((resolve, reject) => {
    const conn = tls.connect({ host, port, ca, socket, ...(isIp(host) ? {} : { servername: host }), timeout: timeoutMs }, () => {
      const raw = conn.getPeerCertificate().raw;
      conn.destroy();
      const spki = new crypto.X509Certificate(raw).publicKey.export({ type: 'spki', format: 'der' });
      resolve(crypto.createHash('sha256').update(spki).digest('base64'));
    });
    conn.on('timeout', () => conn.destroy(new Error(`no TLS handshake within ${timeoutMs} ms`)));
    conn.on('error', (err) => reject(err));
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** A CONNECT tunnel to `authority` through an http:// (or https://) proxy. */
function tunnel(proxy: string, authority: string, timeoutMs: number): Promise<Socket> {
  const url = new URL(proxy);
  const auth = url.username
    ? { 'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` }
    : {};
  const request = (url.protocol === 'https:' ? https : http).request({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    method: 'CONNECT',
    path: authority,
    headers: { host: authority, ...auth },
    timeout: timeoutMs,
  });
  return new Promise((resolve, reject) => {
    request.on('connect', (res, socket) =>
      res.statusCode === 200 ? resolve(socket) : reject(new Error(`the proxy answered ${res.statusCode} to CONNECT ${authority}`)),
    );
    request.on('timeout', () => request.destroy(new Error(`the proxy did not answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}

/** Chromium's launch options for the target: its proxy (as the HTTP client's) and the certificates it may accept. */
export function reachOptions(reach: BrowserReach, env: NodeJS.ProcessEnv = process.env): Pick<LaunchOptions, 'args' | 'proxy'> {
  const keys = reach.trustedKeys?.length ? [`--ignore-certificate-errors-spki-list=${reach.trustedKeys.join(',')}`] : [];
  const proxy = browserProxy(env);
  return { ...proxy, args: [...keys, ...(proxy.args ?? [])] };
}

/**
 * The HTTP client's proxies for Chromium. One server for both schemes goes through Playwright's proxy
 * option (which also answers the proxy's authentication); each scheme its own is Chromium's
 * `http=...;https=...`. NO_PROXY's exact names and suffixes become Chromium's bypass rules, and
 * loopback addresses are proxied as undici proxies them (`<-loopback>`), unless NO_PROXY names them.
 */
function browserProxy(env: NodeJS.ProcessEnv): Pick<LaunchOptions, 'args' | 'proxy'> {
  const { http: forHttp, https: forHttps, noProxy } = proxySettings(env);
  if ((!forHttp && !forHttps) || noProxy.includes('*')) return {};
  const bare = (p: string) => {
    const u = new URL(p);
    return `${u.protocol}//${u.host}`;
  };
  // undici: a leading '.' or '*' is a suffix, anything else one exact host; Chromium: '*.x' and '*x' are globs, 'x' one host.
  const bypass = noProxy.map((e) => (e.startsWith('.') ? `*${e}` : e));
  if (!forHttp || !forHttps || bare(forHttp) !== bare(forHttps)) {
    const schemes = [...(forHttp ? [`http=${bare(forHttp)}`] : []), ...(forHttps ? [`https=${bare(forHttps)}`] : [])];
    const loopback = bypass.some((e) => LOOPBACK_NAMES.includes(e)) ? [] : ['<-loopback>'];
    return { args: [`--proxy-server=${schemes.join(';')}`, `--proxy-bypass-list=${[...bypass, ...loopback].join(';')}`] };
  }
  const credentials = new URL(forHttps);
  return {
    proxy: {
      server: bare(forHttps),
      ...(bypass.length ? { bypass: bypass.join(',') } : {}),
      ...(credentials.username ? { username: decodeURIComponent(credentials.username), password: decodeURIComponent(credentials.password) } : {}),
    },
  };
}

/** The loopback names in a bypass list that make Chromium (and Playwright) leave loopback unproxied. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1', '[::1]'];

/** What the browser cannot be given of the HTTP client's proxies, said before the run: a proxy's credentials when the schemes have different proxies. */
export function proxyWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const { http: forHttp, https: forHttps } = proxySettings(env);
  const proxies = [forHttp, forHttps].filter((p): p is string => Boolean(p)).map((p) => new URL(p));
  const oneServer = proxies.length === 2 && proxies[0].host === proxies[1].host;
  return !oneServer && proxies.some((p) => p.username)
    ? ["HTTP_PROXY / HTTPS_PROXY: the browser takes a proxy's credentials only when one proxy serves both schemes; its requests go without them"]
    : [];
}

/** A browser context for the target: its extra headers on the requests to its own origins. */
export async function openContext(browser: Browser, target: Target): Promise<BrowserContext> {
  const context = await browser.newContext();
  const headers = target.headers;
  if (headers && Object.keys(headers).length) {
    const origins = new Set(targetOrigins(target).map((u) => u.origin));
    await context.route(
      (url) => origins.has(url.origin),
      (route) => route.continue({ headers: { ...route.request().headers(), ...headers } }),
    );
  }
  return context;
}
