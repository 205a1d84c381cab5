// How this process talks to the target, as the target file's operator controls say (configured once
// per process, in the runner and in each worker, from playwright.config.ts):
//   headers     extra request headers on every request (an API gateway key): secrets, redacted
//   rateLimit   at most N requests per second from the run (a worker's share: shareRateLimit); a 429 answer waits for its
//               Retry-After and is retried (maxRetries, default 3), and is counted; a 429 is never a
//               conformance failure by itself (run-check.ts reports the check not run)
//   proxy, CA   HTTPS_PROXY / HTTP_PROXY / NO_PROXY as usual, and caFile: a PEM file of extra
//               certificate authorities, trusted besides the system's
//   maxConcurrency  at most N requests in flight at once (default DEFAULT_MAX_CONCURRENCY), the run's:
//               a worker's share when several share it (limitRequestsTo), or its own few slots and
//               those the runner lends it (request-slots.ts); a request waits for a slot before it is
//               sent, and its time-out starts once it has one
// and, whatever the target file says, the connections a request may go on (network.ts): kept alive
// and reused (well under the time the server was seen keeping an idle one: connection-reuse.ts), or a
// fresh one of its own (a request sent again after its connection closed unanswered).
import fs from 'node:fs';
import tls from 'node:tls';
import { Agent, type Dispatcher, EnvHttpProxyAgent, Pool, setGlobalDispatcher } from 'undici';
import { idleCloseSeenMs, idleClosesSeen } from './connection-reuse';

export interface HttpPolicy {
  headers: Record<string, string>;
  /** Milliseconds between two request starts; 0: no limit. */
  intervalMs: number;
  maxRetries: number;
  /** The most requests in flight at once from this process. */
  maxConcurrency: number;
}

/**
 * Requests in flight at once when the target file does not say: 100, the number of concurrent streams
 * RFC 9113 (HTTP/2, § 6.5.2) recommends a server grant one client connection at the least, so what a
 * single browser tab may already send a server behind a common gateway (nginx and AWS's load balancers
 * grant 128). On a distant server it is the run's bound: 100 requests per round trip.
 */
export const DEFAULT_MAX_CONCURRENCY = 100;

const NONE: HttpPolicy = { headers: {}, intervalMs: 0, maxRetries: 3, maxConcurrency: DEFAULT_MAX_CONCURRENCY };
let policy: HttpPolicy = NONE;
let nextStart = 0;
/** How connections are opened (proxy, CA): the fresh connections' dispatcher is built the same way. */
let connectVia: { proxied: boolean; proxies?: ProxySettings; connect?: { secureContext: tls.SecureContext } } = { proxied: false };
let fresh: Dispatcher | undefined;
let pooled: { dispatcher: Dispatcher; changes: number } | undefined;

/** Longest Retry-After honoured: a longer one is cut to this. */
const MAX_RETRY_AFTER_MS = 60_000;

/** The target's operator controls (its target file's headers, rateLimit and caFile, the CA's path resolved). */
export interface OperatorControls {
  headers?: Record<string, string>;
  rateLimit?: { requestsPerSecond?: number; maxRetries?: number };
  caFile?: string;
  maxConcurrency?: number;
}

/**
 * The proxies this process's requests go through, read as undici's EnvHttpProxyAgent reads them (the
 * lower-case variable first; HTTPS_PROXY falls back to HTTP_PROXY; NO_PROXY entries separated by
 * commas or spaces, exact host names, or suffixes when they begin with '.' or '*'). One reading, so the
 * browser (src/setup/browser-network.ts) goes through the same proxy for the same hosts.
 */
export interface ProxySettings {
  http?: string;
  https?: string;
  /** NO_PROXY's entries ('*': no proxy at all). */
  noProxy: string[];
}

export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings {
  const http = env.http_proxy || env.HTTP_PROXY || undefined;
  const https = env.https_proxy || env.HTTPS_PROXY || http;
  const noProxy = (env.no_proxy ?? env.NO_PROXY ?? '').split(/[,\s]/).filter(Boolean);
  return { ...(http ? { http } : {}), ...(https ? { https } : {}), noProxy };
}

/** The proxy a request to `url` goes through under these settings (undici's rules), if any. */
export function proxyFor(url: URL, settings: ProxySettings): string | undefined {
  const proxy = url.protocol === 'https:' ? settings.https : settings.http;
  if (!proxy) return undefined;
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of settings.noProxy) {
    if (entry === '*') return undefined;
    const [, name, entryPort] = /^(.+?)(?::(\d+))?$/.exec(entry.toLowerCase()) ?? [];
    if (entryPort && Number(entryPort) !== port) continue;
    if (/^[.*]/.test(name) ? host.endsWith(name.replace(/^\*/, '')) : host === name) return undefined;
  }
  return proxy;
}

/**
 * The certificate authorities a connection trusts: the system's (Node's roots, and NODE_EXTRA_CA_CERTS
 * as Node itself adds it), and the target's caFile besides.
 */
export function trustedAuthorities(caFile: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (!caFile) return undefined;
  const extra = env.NODE_EXTRA_CA_CERTS && fs.existsSync(env.NODE_EXTRA_CA_CERTS) ? [fs.readFileSync(env.NODE_EXTRA_CA_CERTS, 'utf8')] : [];
  return [...tls.rootCertificates, ...extra, fs.readFileSync(caFile, 'utf8')];
}

/** What configureHttp reads, as one string: the same key, the same configuration (in-process.ts sets it again only when it changes). */
export function operatorControlsKey(target: OperatorControls, env: NodeJS.ProcessEnv = process.env): string {
  return JSON.stringify([target.headers ?? {}, target.rateLimit ?? null, target.caFile ?? null, target.maxConcurrency ?? null, proxySettings(env)]);
}

export function configureHttp(target: OperatorControls, env: NodeJS.ProcessEnv = process.env): void {
  const rps = target.rateLimit?.requestsPerSecond;
  policy = {
    headers: target.headers ?? {},
    intervalMs: rps ? 1000 / rps : 0,
    maxRetries: target.rateLimit?.maxRetries ?? 3,
    maxConcurrency: target.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY,
  };
  const proxies = proxySettings(env);
  const proxied = Boolean(proxies.http || proxies.https);
  fresh = undefined;
  pooled = undefined;
  const ca = trustedAuthorities(target.caFile, env);
  // One secure context for every connection: given as \`ca\`, each TLS connection would parse the
  // system's hundred-odd roots again (a POST opens a connection of its own: measured, most of an HTTPS
  // run's extra time).
  const connect = ca ? { secureContext: tls.createSecureContext({ ca }) } : undefined;
  connectVia = { proxied, proxies, ...(connect ? { connect } : {}) };
  // Node's fetch takes its dispatcher from undici's global slot: proxies and CAs apply to every request,
  // and a target without them gets a plain one (in one process, an earlier target's proxy or CA does
  // not outlive its run).
  setGlobalDispatcher(dispatcher({}));
}

type Options = Pick<Agent.Options, 'pipelining' | 'keepAliveTimeout' | 'keepAliveMaxTimeout' | 'factory'>;

function dispatcher(options: Options): Dispatcher {
  const { proxied, proxies, connect } = connectVia;
  return proxied
    ? // Through a proxy's tunnel the target's TLS is requestTls (connect is the proxy's own connection).
      new EnvHttpProxyAgent({
        connect,
        ...(connect ? { requestTls: connect } : {}),
        ...options,
        httpProxy: proxies?.http,
        httpsProxy: proxies?.https,
        noProxy: proxies?.noProxy.join(','),
      })
    : new Agent({ connect, ...options });
}

/**
 * A dispatcher that opens a connection for each request and closes it after the answer (undici's
 * pipelining 0: no keep-alive), through the same proxy and with the same CAs as every request.
 */
export function freshConnections(): Dispatcher {
  fresh ??= dispatcher({ pipelining: 0 });
  return fresh;
}

/**
 * Below the idle time the server was seen closing at, by this much. Well below: that time is the
 * client's measure, from the moment it read the last answer, and a busy client reads answers late and
 * writes its next request late, so the server has seen the connection idle longer than the client
 * counts; and undici's own timer that retires the connection fires late on a busy client too.
 */
const IDLE_MARGIN = 0.5;

/**
 * The kept-alive connections of the requests (POSTs too: one that meets a connection the server closed
 * while idle is sent again, as any other, network.ts). Once the server was seen closing a connection
 * idle for some time without announcing it, connections idle for half that time are no longer reused
 * (undici's keepAliveTimeout, rebuilt lower as shorter closes are seen): the next request opens a
 * connection instead of meeting a closed one, as a client that has learnt the server's habit would.
 */
export function keptAliveConnections(): Dispatcher {
  const { changes, shortest } = idleClosesSeen();
  if (!pooled || pooled.changes !== changes) {
    // Each server's connections by its own habit; through a proxy (one connection pool for all), the shortest.
    // The one it replaces is not closed: a request given it a moment ago may not have reached it yet
    // (closed, it would refuse it: a failure of the run's own making); its connections end as idle ones do.
    pooled = {
      changes,
      dispatcher: connectVia.proxied
        ? dispatcher(keepAlive(shortest))
        : dispatcher({ factory: (origin, options) => new Pool(origin, { ...options, ...keepAlive(idleCloseSeenMs(String(origin))) }) }),
    };
  }
  return pooled.dispatcher;
}

function keepAlive(idleCloseMs: number | undefined): Options {
  if (idleCloseMs === undefined) return {};
  const ms = Math.max(10, Math.floor(idleCloseMs * IDLE_MARGIN));
  return { keepAliveTimeout: ms, keepAliveMaxTimeout: ms };
}

export function httpPolicy(): HttpPolicy {
  return policy;
}

/** Waits for this process's next request slot under the rate limit. */
export async function throttle(): Promise<void> {
  if (!policy.intervalMs) return;
  const now = Date.now();
  const start = Math.max(now, nextStart);
  nextStart = start + policy.intervalMs;
  if (start > now) await new Promise((resolve) => setTimeout(resolve, start - now));
}

/**
 * This process's share of the target's rate limit, when `workers` workers send the run's requests
 * side by side (global setup decides them): requestsPerSecond is the run's, as it was when a run had
 * one worker, so each worker starts a request at most every `workers` intervals.
 */
export function shareRateLimit(workers: number | undefined): void {
  if (workers && workers > 1 && policy.intervalMs) policy = { ...policy, intervalMs: policy.intervalMs * workers };
}

/** This process's share of the target's maxConcurrency, when several workers share it (global setup decides it). */
export function limitRequestsTo(slots: number | undefined): void {
  if (slots !== undefined) policy = { ...policy, maxConcurrency: Math.min(policy.maxConcurrency, slots) };
}

/** Milliseconds a 429 asks to wait: Retry-After in seconds or as an HTTP date; 1 s without it. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header === null || header.trim() === '') return 1000;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Number.isFinite(ms) ? ms : 1000));
}
