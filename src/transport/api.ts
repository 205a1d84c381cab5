// The HTTP client every check uses. Built on Node's fetch rather than Playwright's request context so
// that the suite controls exactly what is kept: no request headers in error messages or traces,
// bounded time and size for every answer, redirects never followed, and a redacted record of each
// exchange (for the reports) with its latency (for monitoring).
// Transports: ApiClient builds each request and its redacted record (exchange.ts); a Transport answers
// it: the network's (network.ts: connections, request slots, a late request sent again alone, 429s, the
// breaker) in a run; in a replay of a certification archive (src/setup/replay.ts), the check's
// recorded answers. A check cannot tell which.
import type { Redactor } from '../util/redact';
import { routeKeyOf } from './breaker';
import { curlCommand, type SecretRefs } from './curl';
import type { Credential, Exchange, Transport } from './exchange';
import { httpPolicy } from './http-policy';
import { networkTransport } from './network';

// What a caller of the client reads in its answers and errors, from where it is defined.
export { NoAnswerError, RateLimitedError, type Credential, type Exchange } from './exchange';
export { MAX_SILENT_REQUESTS } from './breaker';

/** How many characters of an answer every exchange keeps (bodyExcerpt). */
const EXCERPT_CHARS = 1500;

/** The most of one answer read: a record, an error (a huge or endless body cannot exhaust memory). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The most of a list answer read: its size follows the data, and neither document states a page size. */
export const MAX_LIST_BODY_BYTES = 32 * 1024 * 1024;

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
  /** This request's time limit, when it is not the client's (the preflight asks a target that may be down: at most 15 s). */
  timeoutMs?: number;
  /**
   * Hostile input (a fuzzed id or query): not sent to a route the breaker opened, but its answer or
   * missing answer is not counted there (breaker.ts): what a server does with hostile input says nothing
   * of the route's service to the other checks, so such requests may go together.
   */
  hostile?: boolean;
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
            timeoutMs: options.timeoutMs ?? this.timeoutMs,
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
