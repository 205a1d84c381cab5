// The HTTP client every check uses. Built on Node's fetch rather than Playwright's request context so
// that the suite controls exactly what is kept: no request headers in error messages or traces,
// bounded time and size for every answer, redirects never followed, and a redacted record of each
// exchange (for the reports) with its latency (for monitoring).
// Connections: every request goes on a kept-alive connection (a new one costs a distant server a round
// trip, two or three over TLS: npm run bench's network-300). A request that meets a kept-alive
// connection the server closed while it sat idle gets no byte of answer: a server closing an idle
// connection does not read what arrives on it, so the request, a POST as any other, is sent again once
// on a fresh connection (connection-reuse.ts), and counted; nothing the server answered, even in part,
// is ever sent again. Only a failure on a fresh connection is the server's. A request that timed out
// while others were in flight is sent once more alone before its time-out counts (the suite's own load
// may have made it late: request-slots.ts), and the requests in flight follow the answers' pace. A route
// that gave no answer gets no more requests this run (breaker.ts).
// Transports: ApiClient builds each request and its redacted record; a Transport answers it. The
// network's (networkTransport: everything above) in a run; in a replay of a certification archive
// (src/setup/replay.ts), the check's recorded answers. A check cannot tell which.
import { runOptions } from '../options/options';
import type { Redactor } from '../util/redact';

import fs from 'node:fs';
import { answered, lateAlone, refusal, routeKeyOf, unanswered, worthSendingAlone } from './breaker';
import { closedBeforeAnswerOnReusedConnection } from './connection-reuse';
import { curlCommand, type SecretRefs } from './curl';
import { freshConnections, httpPolicy, keptAliveConnections, retryAfterMs, throttle } from './http-policy';
import { answeredLate, answeredOnTime, requestsInFlight, requestSlot, sendAlone } from './request-slots';
import { now, requestDone, timelineOn } from './timeline';

/** How many characters of an answer every exchange keeps (bodyExcerpt). */
const EXCERPT_CHARS = 1500;

/** The most of one answer read: a record, an error (a huge or endless body cannot exhaust memory). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The most of a list answer read: its size follows the data, and neither document states a page size. */
export const MAX_LIST_BODY_BYTES = 32 * 1024 * 1024;

/**
 * VDS_RECORD_REQUESTS=FILE appends every request as sent, unredacted, one JSON line each: only the
 * benchmark sets it (scripts/bench.ts replays them against the embedded reference, then deletes it).
 */
const RECORD_TO = runOptions().recordRequests;

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export { MAX_SILENT_REQUESTS } from './breaker';

export interface Exchange {
  method: string;
  url: string;
  /** The catalogue route this request exercised, when known (latency is aggregated per route). */
  route?: string;
  /**
   * The credential the request carried, never its value: "none", the run's token key ("full",
   * "noScopes", "withoutScope.cars_read", ...), or "header" (a raw Authorization header the check
   * wrote). Set by CheckContext.call; absent for other requests. The triage reads it.
   */
  credential?: Credential;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status?: number;
  responseHeaders?: Record<string, string>;
  bodyExcerpt?: string;
  /** The answer was longer than its excerpt (EXCERPT_CHARS): the excerpt alone cannot be judged as JSON. */
  excerptCut?: boolean;
  /** The whole answer, redacted: recorded by a certification (--certify), so that its archive can be replayed. */
  body?: string;
  /** The answer was larger than the request read (body holds what was read). */
  truncated?: boolean;
  durationMs: number;
  error?: string;
  /**
   * Not sent (src/transport/breaker.ts): the no-answer of an earlier request to the same route that stopped
   * the run sending to it, in words ("no complete answer within 10000 ms (requestTimeoutMs)").
   */
  repeats?: string;
  /** What kind of no-answer `error` is (a replay throws the same): timeout, network, or 429s past maxRetries. */
  errorKind?: 'timeout' | 'network' | 'rate-limited';
  /** The request as one shell line, secrets as variable references (src/transport/curl.ts). */
  curl?: string;
  /** 429 answers waited out before this answer (src/transport/http-policy.ts). */
  throttled?: number;
  /** Times it was sent again on a fresh connection: a reused one closed before any byte of answer (connection-reuse.ts). */
  reconnected?: number;
  /** Timed out while other requests were in flight, it was sent again alone (request-slots.ts sendAlone): this answer, or no-answer, is that one's. */
  sentAlone?: boolean;
  /** Refused as expired, the suite's token was renewed and the request sent again with it (token-keeper.ts). */
  tokenRenewed?: boolean;
}

/** Which credential a request carried (Exchange.credential): a name, never the secret. */
export type Credential = 'none' | 'header' | (string & {});

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  text: string;
  /** Parsed JSON body; undefined when the body is empty or not JSON (see jsonError). */
  json: unknown;
  jsonError?: string;
  /** True when the body was larger than the request's maxBytes and reading stopped there. */
  truncated: boolean;
  durationMs: number;
  exchange: Exchange;
}

export type Query = Record<string, string | number | boolean | undefined> | Array<[string, string]>;

export interface RequestOptions {
  /** Parameters; a list of pairs may repeat a name (limit=1&limit=2). */
  query?: Query;
  /** Raw Authorization header value; null sends none. */
  authorization?: string | null;
  headers?: Record<string, string>;
  /** A JSON value to send, or a raw string (sent as is, for bodies that are not JSON). */
  body?: unknown;
  rawBody?: string;
  form?: Record<string, string>;
  route?: string;
  /** Which credential `authorization` is (recorded on the exchange; never the value). */
  credential?: Credential;
  /** The most of the body read (default MAX_BODY_BYTES). */
  maxBytes?: number;
  /**
   * Hostile input (a fuzzed id or query): not sent to a route the breaker opened, but its answer or
   * missing answer is not counted there (breaker.ts): what a server does with hostile input says nothing
   * of the route's service to the other checks, so such requests may go together.
   */
  hostile?: boolean;
}

/** An exchange in one line: "GET http://host/v3/cars/1 -> 404", or "(no answer)" with why. */
export function requestLine(e: Pick<Exchange, 'method' | 'url' | 'status' | 'error'>): string {
  return `${e.method} ${e.url}${e.status !== undefined ? ` -> ${e.status}` : ''}${e.error ? ` (${e.error})` : ''}`;
}

/** The target kept answering 429 Too Many Requests: the check cannot run now (never a failure). */
export class RateLimitedError extends Error {
  constructor(
    message: string,
    readonly exchange: Exchange,
  ) {
    super(message);
    this.name = 'RateLimitedError';
  }
}

/** A request that got no HTTP answer at all: connection refused, reset, DNS failure, timeout. */
export class NoAnswerError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network',
    readonly exchange: Exchange,
  ) {
    super(message);
    this.name = 'NoAnswerError';
  }
}

/** A request's Authorization as the run's token keeper sends it (src/setup/token-keeper.ts). */
export interface KeptAuthorization {
  /** The header to send now: the token's current value, renewed first if it was about to run out. */
  header: string;
  /** After the answer: a renewed header when it says the token expired (send again once), else undefined. */
  afterAnswer: (status: number, text: string) => Promise<string | undefined>;
  /** The secrets its renewals added (the client's redactor learns them). */
  secrets: () => string[];
}

/** The run's token keeper, when one keeps the tokens of this process's run (it registers itself). */
let tokenKeeper: ((authorization: string | null | undefined) => Promise<KeptAuthorization | undefined>) | undefined;

export function setTokenKeeper(keeper: typeof tokenKeeper): void {
  tokenKeeper = keeper;
}

/** What a check's client adds to setup's (ApiClient's last argument). */
export interface ClientOptions {
  /** Given, every exchange carries its curl line (the checks' clients; not setup's). */
  secretRefs?: SecretRefs;
  /** Where requests go: the network unless a replay answers them (src/setup/replay.ts). */
  transport?: Transport;
  /** Keep each answer's whole body (redacted) on its exchange: a certification's archive is replayed from it. */
  recordBodies?: boolean;
  /** The check whose requests these are (its key): the run's timeline names it (src/transport/timeline.ts). */
  check?: string;
  /** A check of a write lane (its checks one after another): its requests are first in line for a slot. */
  inLane?: boolean;
}

export class ApiClient {
  readonly exchanges: Exchange[] = [];
  /** Every 4xx answer, whole (parsed body included): CORE-ERROR-BODY judges those of the group's checks (src/engine/errors-seen.ts). */
  readonly clientErrors: ApiResponse[] = [];
  private readonly secretRefs?: SecretRefs;
  private readonly transport: Transport;
  private readonly recordBodies: boolean;
  private readonly check?: string;
  private readonly inLane: boolean;
  /** Requests being sent, those of them waiting behind the run's own (a slot, a turn alone), and since when all were waiting. */
  private active = 0;
  private held = 0;
  private heldSince?: number;
  private heldTotal = 0;

  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly redactor: Redactor,
    options: ClientOptions = {},
  ) {
    this.secretRefs = options.secretRefs;
    this.transport = options.transport ?? networkTransport;
    this.recordBodies = options.recordBodies ?? false;
    this.check = options.check;
    this.inLane = options.inLane ?? false;
  }

  /**
   * How long this client's requests were all held by the run itself (waiting for a slot, or for their
   * turn to be sent alone), none of them with the server: a check's time limit does not count it
   * (src/engine/run-check.ts).
   */
  heldMs(): number {
    return this.heldTotal + (this.heldSince === undefined ? 0 : performance.now() - this.heldSince);
  }

  /** A request of this client began (+1) or ended (-1) being sent; or began (held) or stopped waiting behind the run's own. */
  private count(change: { active?: number; held?: number }): void {
    this.active += change.active ?? 0;
    this.held += change.held ?? 0;
    const allHeld = this.held > 0 && this.held === this.active;
    if (allHeld && this.heldSince === undefined) this.heldSince = performance.now();
    if (!allHeld && this.heldSince !== undefined) {
      this.heldTotal += performance.now() - this.heldSince;
      this.heldSince = undefined;
    }
  }

  url(pathOrUrl: string, query?: Query): string {
    const u = new URL(/^https?:/.test(pathOrUrl) ? pathOrUrl : this.baseUrl + pathOrUrl);
    const pairs = Array.isArray(query) ? query : Object.entries(query ?? {});
    for (const [k, v] of pairs) if (v !== undefined) u.searchParams.append(k, String(v));
    return u.toString();
  }

  get(pathOrUrl: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request('GET', pathOrUrl, options);
  }

  post(pathOrUrl: string, options: RequestOptions = {}): Promise<ApiResponse> {
    return this.request('POST', pathOrUrl, options);
  }

  async request(method: string, pathOrUrl: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const url = this.url(pathOrUrl, options.query);
    const headers: Record<string, string> = { accept: 'application/json', ...httpPolicy().headers, ...options.headers };
    if (options.authorization) headers.authorization = options.authorization;
    let body: string | undefined;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const exchange: Exchange = {
      method,
      url: this.redactor.redact(url),
      route: options.route,
      ...(options.credential ? { credential: options.credential } : {}),
      requestHeaders: this.redactor.redactValue(headers),
      requestBody: body === undefined ? undefined : this.redactor.redact(body).slice(0, 2000),
      durationMs: 0,
      ...(this.secretRefs ? { curl: curlCommand({ method, url, headers, body }, this.secretRefs, this.redactor) } : {}),
    };
    this.exchanges.push(exchange);
    const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
    const breakerKey = routeKeyOf(method, url, options.route);
    // A token the suite minted goes out as its current value (token-keeper.ts: renewed before it runs
    // out); the exchange and its curl line keep the value the check gave, named by its key.
    const kept = this.transport === networkTransport && tokenKeeper ? await tokenKeeper(options.authorization) : undefined;
    const onHeld = (held: boolean) => this.count({ held: held ? 1 : -1 });
    const sendWith = (authorization?: string) => {
      this.count({ active: 1 });
      return this.transport
        .send(
          {
            method,
            url,
            headers: authorization ? { ...headers, authorization } : headers,
            body,
            maxBytes,
            timeoutMs: this.timeoutMs,
            breakerKey,
            ...(options.hostile ? { hostile: true } : {}),
            check: this.check,
            ...(this.inLane ? { inLane: true } : {}),
            onHeld,
          },
          exchange,
        )
        .finally(() => this.count({ active: -1 }));
    };
    let answer = await sendWith(kept?.header);
    // Refused as expired all the same (the server's clock ran ahead of ours): renewed, and sent once more.
    const renewed = kept ? await kept.afterAnswer(answer.status, answer.text) : undefined;
    if (renewed) {
      answer = await sendWith(renewed);
      exchange.tokenRenewed = true;
    }
    if (kept) this.redactor.add(...kept.secrets());
    const { status, headers: responseHeaders, text, truncated, durationMs } = answer;
    const contentType = responseHeaders['content-type'] ?? '';
    let json: unknown;
    let jsonError: string | undefined;
    if (text.length === 0) jsonError = 'the body is empty';
    else if (truncated) jsonError = `the body is larger than ${maxBytes} bytes`;
    else {
      try {
        json = JSON.parse(text);
      } catch (err) {
        jsonError = `the body is not JSON (${(err as Error).message})`;
      }
    }
    Object.assign(exchange, {
      status,
      responseHeaders: this.redactor.redactValue(responseHeaders),
      bodyExcerpt: this.redactor.redact(text.slice(0, EXCERPT_CHARS)),
      ...(text.length > EXCERPT_CHARS ? { excerptCut: true } : {}),
      durationMs,
      // A certification keeps every answer whole (redacted), so that its archive can be replayed.
      ...(this.recordBodies ? { body: this.redactor.redact(text), ...(truncated ? { truncated } : {}) } : {}),
    });
    const response: ApiResponse = { status, headers: responseHeaders, contentType, text, json, jsonError, truncated, durationMs, exchange };
    if (status >= 400 && status < 500) this.clientErrors.push(response);
    return response;
  }
}

/** What a transport is asked to send: the request as it goes out (secrets included: never recorded as is). */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  maxBytes: number;
  timeoutMs: number;
  /** The route (or path) whose missing answers the breaker counts (src/transport/breaker.ts). */
  breakerKey: string;
  /** Hostile input (RequestOptions.hostile): refused on an open route, never counted by the breaker. */
  hostile?: boolean;
  /** The check that sends it (its key), for the run's timeline. */
  check?: string;
  /** Sent by a check of a write lane: first in line for a request slot (request-slots.ts). */
  inLane?: boolean;
  /** Told when the request starts or stops waiting behind the run's own requests (a slot, a turn alone): the client's held time. */
  onHeld?: (held: boolean) => void;
}

/** An HTTP answer as a transport got it. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
  truncated: boolean;
  durationMs: number;
}

/**
 * Where a request goes: the network (networkTransport), or a certification archive's recorded answers
 * (src/setup/replay.ts). The checks never know which: ApiClient builds the request and its redacted
 * record, the transport answers it, or throws NoAnswerError / RateLimitedError (having set the record's
 * error, status, throttled or reconnected members).
 */
export interface Transport {
  send(request: OutgoingRequest, exchange: Exchange): Promise<RawAnswer>;
}

/** The network: the target's operator controls, kept-alive or fresh connections, 429s waited out, the breaker. */
export const networkTransport: Transport = {
  async send({ method, url, headers, body, maxBytes, timeoutMs, breakerKey, hostile, check, inLane, onHeld }, exchange) {
    // A route that gave no answer earlier in the run (a time-out, or several in a row) gets no more requests.
    const silent = refusal(breakerKey);
    if (silent !== undefined) {
      exchange.error = `not sent: ${breakerKey} gave no answer earlier in this run: ${silent}; the run sends it no more requests`;
      exchange.repeats = silent;
      exchange.errorKind = 'network';
      throw new NoAnswerError(`${method} ${exchange.url}: ${exchange.error}`, 'network', exchange);
    }
    if (RECORD_TO) fs.appendFileSync(RECORD_TO, `${JSON.stringify({ method, url, headers, body } satisfies RecordedRequest)}\n`);
    // One of the process's slots, held until the answer is read (429s waited out included).
    const queuedAt = timelineOn ? now() : 0;
    onHeld?.(true);
    const release = await requestSlot(inLane).finally(() => onHeld?.(false));
    const sentAt = timelineOn ? now() : 0;
    let held = true;
    const free = () => {
      if (held) release();
      held = false;
    };
    const attempt = (): Promise<RawAnswer> => sendOnce({ method, url, headers, body, maxBytes, timeoutMs }, exchange);
    try {
      const crowdedAtStart = requestsInFlight() > 1;
      let answer: RawAnswer;
      try {
        answer = await attempt();
      } catch (err) {
        // A time-out while other requests were in flight may be the suite's own load (their answers
        // read on the same busy cores): the request is sent once more alone before it counts (breaker.ts
        // worthSendingAlone: not a route that never answered, nor one already late alone).
        const late = err instanceof Unanswered && err.timedOut;
        if (late) answeredLate();
        if (!late || !(crowdedAtStart || requestsInFlight() > 1) || !worthSendingAlone(aloneKey(breakerKey, hostile), err.began)) throw err;
        free();
        onHeld?.(true);
        try {
          answer = await sendAlone(() => {
            onHeld?.(false);
            // Another request of the route, alone before it, may have shown its time-outs to be the server's.
            if (!worthSendingAlone(aloneKey(breakerKey, hostile), err.began)) throw err;
            exchange.sentAlone = true;
            return attempt();
          });
        } catch (again) {
          if (again !== err && again instanceof Unanswered && again.timedOut) lateAlone(aloneKey(breakerKey, hostile));
          throw again;
        }
      }
      if (answer.durationMs > timeoutMs / 4) answeredLate();
      else answeredOnTime();
      if (!hostile) answered(breakerKey);
      return answer;
    } catch (err) {
      if (!(err instanceof Unanswered)) throw err;
      const reason = err.reason + (exchange.sentAlone ? ' (sent again alone, nothing else of the run in flight, after a first time-out)' : '');
      exchange.error = reason;
      exchange.errorKind = err.timedOut ? 'timeout' : 'network';
      if (!hostile) unanswered(breakerKey, err.timedOut ? (err.began ? 'slow' : 'silent') : 'network', reason);
      throw new NoAnswerError(`${method} ${exchange.url}: ${reason}`, err.timedOut ? 'timeout' : 'network', exchange);
    } finally {
      free();
      if (timelineOn) requestDone(breakerKey, queuedAt, sentAt, check);
    }
  },
};

/** A request got no complete answer (thrown by sendOnce): why, and whether its answer had begun. */
class Unanswered extends Error {
  constructor(
    readonly reason: string,
    readonly timedOut: boolean,
    readonly began: boolean,
  ) {
    super(reason);
  }
}

/** Hostile input's time-outs are kept apart from the route's (a server hanging on hostile input says nothing of the route). */
const aloneKey = (breakerKey: string, hostile?: boolean) => (hostile ? `hostile ${breakerKey}` : breakerKey);

/**
 * One sending of a request and the reading of its answer: its time limit, a connection the server
 * closed while idle (sent again once on a fresh one), 429s waited out. Throws Unanswered (or
 * RateLimitedError) having set the exchange's duration.
 */
async function sendOnce(
  { method, url, headers, body, maxBytes, timeoutMs }: Pick<OutgoingRequest, 'method' | 'url' | 'headers' | 'body' | 'maxBytes' | 'timeoutMs'>,
  exchange: Exchange,
): Promise<RawAnswer> {
  await throttle();
  let started = performance.now();
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(), timeoutMs);
  /** The last attempt was the one sent again on a fresh connection. */
  let sentAgain = false;
  /** The last attempt's answer began (its status line came): a time-out after it is a slow answer, not a silent route. */
  let began = false;
  const send = async (): Promise<Response> => {
    const init = { method, headers, body, redirect: 'manual' as const, signal: controller.signal };
    sentAgain = false;
    began = false;
    try {
      return await fetch(url, { ...init, dispatcher: keptAliveConnections() } as RequestInit);
    } catch (err) {
      if (controller.signal.aborted || !closedBeforeAnswerOnReusedConnection(err)) throw err;
      exchange.reconnected = (exchange.reconnected ?? 0) + 1;
      sentAgain = true;
      started = performance.now();
      return fetch(url, { ...init, dispatcher: freshConnections() } as RequestInit);
    }
  };
  try {
    let res = await send();
    began = true;
    // Too many requests: wait as the answer asks, then again, a few times (never a failure by itself).
    for (let retries = 0; res.status === 429; retries++) {
      await res.arrayBuffer().catch(() => undefined);
      if (retries >= httpPolicy().maxRetries) {
        exchange.status = 429;
        exchange.durationMs = Math.round(performance.now() - started);
        exchange.errorKind = 'rate-limited';
        throw new RateLimitedError(`${method} ${exchange.url}: still 429 Too Many Requests after ${retries} retries`, exchange);
      }
      clearTimeout(timer);
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs(res.headers.get('retry-after'))));
      exchange.throttled = retries + 1;
      await throttle();
      started = performance.now();
      timer = setTimeout(() => controller.abort(), timeoutMs);
      res = await send();
      began = true;
    }
    const { text, truncated } = await readCapped(res, maxBytes);
    return { status: res.status, headers: Object.fromEntries(res.headers.entries()), text, truncated, durationMs: Math.round(performance.now() - started) };
  } catch (err) {
    if (err instanceof RateLimitedError) throw err;
    exchange.durationMs = Math.round(performance.now() - started);
    const timedOut = controller.signal.aborted;
    const reason =
      (timedOut ? `no complete answer within ${timeoutMs} ms (requestTimeoutMs)` : describeNetworkError(err)) +
      (sentAgain ? ' (on a fresh connection, sent again after the kept-alive one closed unanswered)' : '');
    throw new Unanswered(reason, timedOut, began);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads at most maxBytes, so a huge or endless body cannot exhaust memory. */
async function readCapped(res: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) {
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}

function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? '';
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is the server running at this address?)',
    ECONNRESET: 'the connection was reset by the server',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name could not be resolved (DNS)',
    UND_ERR_SOCKET: 'the server closed the connection before answering',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host is unreachable',
  };
  if (known[code]) return known[code];
  // TLS: the server's certificate is not one this machine trusts (a private authority, self-signed).
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)) {
    return `the server's TLS certificate is not trusted (${code}): if a private authority issued it, give its PEM file as caFile in the target file`;
  }
  return `no HTTP answer (${code || cause?.message || (err as Error).message})`;
}
