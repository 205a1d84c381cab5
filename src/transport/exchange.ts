// A request and its answer as the suite records them (Exchange: redacted, for the reports), and the
// contract between the client that builds them (ApiClient, api.ts) and the transport that answers
// them: the network (network.ts) in a run, a certification archive's recorded answers in a replay
// (src/setup/replay.ts). Either may end a request without an answer (NoAnswerError, RateLimitedError).

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
  /** The answer was longer than its excerpt (api.ts EXCERPT_CHARS): the excerpt alone cannot be judged as JSON. */
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
  /**
   * Times it was sent again on a fresh connection: its connection closed before any byte of answer (a
   * reused one; or, others in flight, a fresh one: then alone) (connection-reuse.ts, network.ts).
   */
  reconnected?: number;
  /**
   * Timed out, or its fresh connection closed unanswered, while other requests were in flight: it was
   * sent again alone (request-slots.ts sendAlone): this answer, or no-answer, is that one's.
   */
  sentAlone?: boolean;
  /** Refused as expired, the suite's token was renewed and the request sent again with it (token-keeper.ts). */
  tokenRenewed?: boolean;
}

/** Which credential a request carried (Exchange.credential): a name, never the secret. */
export type Credential = 'none' | 'header' | (string & {});

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
