// The network transport: how a request leaves and its answer comes back in a run.
// Connections: every request goes on a kept-alive connection (a new one costs a distant server a round
// trip, two or three over TLS: npm run bench's network-300). A server may close a connection it holds
// idle, kept alive or fresh, without saying when, and does not read what arrives on it then: a request
// that meets such a close before any byte of answer says nothing about the server. On a reused
// connection it is sent again at once on a fresh one, a POST as any other (connection-reuse.ts), and
// counted. A fresh connection is the server's to close too when the client writes on it late (a busy
// machine: its connect read late, the request written after the server's idle time): a request closed
// unanswered on a fresh connection while others of the run were in flight is sent again alone, nothing
// else of the run in flight, where the client writes as soon as it connects, up to three times, each on
// a fresh connection; closed unanswered each time, it is the server's. Nothing the server answered, even
// in part, is ever sent again. A request that timed out while others were in flight is sent once more alone before its
// time-out counts (the suite's own load may have made it late: request-slots.ts), and the requests in
// flight follow the answers' pace. A route that gave no answer gets no more requests this run
// (breaker.ts). Each request holds one of the process's request slots until its answer is read, 429s
// waited out included (http-policy.ts).
import fs from 'node:fs';
import { runOptions } from '../options/options';
import { answered, failedAlone, refusal, unanswered, worthSendingAlone } from './breaker';
import { closedBeforeAnswer } from './connection-reuse';
import { NoAnswerError, RateLimitedError, type Exchange, type OutgoingRequest, type RawAnswer, type Transport } from './exchange';
import { freshConnections, httpPolicy, keptAliveConnections, retryAfterMs, throttle } from './http-policy';
import { answeredLate, answeredOnTime, requestsInFlight, requestSlot, sendAlone } from './request-slots';
import { now, requestDone, timelineOn } from './timeline';

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
    const attempt = (fresh = false): Promise<RawAnswer> => sendOnce({ method, url, headers, body, maxBytes, timeoutMs }, exchange, fresh);
    /** Why it was sent again alone, if it was. */
    let aloneAfter: keyof typeof ALONE_REASON | undefined;
    /** How many times it was sent alone after a close (the reason counts them). */
    let aloneTries = 0;
    try {
      const crowdedAtStart = requestsInFlight() > 1;
      let answer: RawAnswer;
      try {
        answer = await attempt();
      } catch (err) {
        // A time-out while other requests were in flight may be the suite's own load (their answers
        // read on the same busy cores), and so may a fresh connection the server closed before the
        // request came (written late on those cores): the request is sent once more alone before it
        // counts (breaker.ts worthSendingAlone: not a route that never answered, nor one already
        // unanswered alone), after a close on a fresh connection of its own.
        const late = err instanceof Unanswered && err.timedOut;
        const dropped = err instanceof Unanswered && err.closedUnanswered;
        if (late) answeredLate();
        const evidence = { began: late && err.began, closed: dropped };
        if (!(late || dropped) || !(crowdedAtStart || requestsInFlight() > 1) || !worthSendingAlone(aloneKey(breakerKey, hostile), evidence)) throw err;
        free();
        onHeld?.(true);
        try {
          answer = await sendAlone(async () => {
            onHeld?.(false);
            // Another request of the route, alone before it, may have shown its failures to be the server's.
            if (!worthSendingAlone(aloneKey(breakerKey, hostile), evidence)) throw err;
            exchange.sentAlone = true;
            aloneAfter = late ? 'timeout' : 'closed';
            if (!dropped) return attempt();
            // After a close, on fresh connections, a few times a moment apart: a machine busy with other
            // jobs may still keep the server from reading a request written at once (its idle timer
            // first), now and then; a server that drops the request drops it every time.
            for (let tries = 1; ; tries++) {
              aloneTries = tries;
              exchange.reconnected = (exchange.reconnected ?? 0) + 1;
              try {
                return await attempt(true);
              } catch (again) {
                if (!(again instanceof Unanswered && again.closedUnanswered) || tries >= ALONE_TRIES_AFTER_CLOSE) throw again;
              }
              await new Promise((resolve) => setTimeout(resolve, ALONE_PAUSE_MS));
            }
          });
        } catch (again) {
          if (again !== err && again instanceof Unanswered && (again.timedOut || again.closedUnanswered)) failedAlone(aloneKey(breakerKey, hostile));
          throw again;
        }
      }
      if (answer.durationMs > timeoutMs / 4) answeredLate();
      else answeredOnTime();
      if (!hostile) answered(breakerKey);
      return answer;
    } catch (err) {
      if (!(err instanceof Unanswered)) throw err;
      const reason = err.reason + (aloneAfter ? ALONE_REASON[aloneAfter](aloneTries) : '');
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

/** Times a request closed unanswered is sent alone, each on a fresh connection, before the close is the server's. */
const ALONE_TRIES_AFTER_CLOSE = 3;
/** The moment between two of them. */
const ALONE_PAUSE_MS = 250;

/** What a request's failure says when it was sent again alone, after what. */
const ALONE_REASON = {
  timeout: () => ' (sent again alone, nothing else of the run in flight, after a first time-out)',
  closed: (tries: number) =>
    ` (sent again alone ${tries === 1 ? 'once' : `${tries} times`}, each on a fresh connection, nothing else of the run in flight, after its connection closed unanswered)`,
} as const;

/**
 * A request got no complete answer (thrown by sendOnce): why, whether its answer had begun, and whether
 * its connection was closed before any byte of answer came.
 */
class Unanswered extends Error {
  constructor(
    readonly reason: string,
    readonly timedOut: boolean,
    readonly began: boolean,
    readonly closedUnanswered = false,
  ) {
    super(reason);
  }
}

/** Hostile input's time-outs are kept apart from the route's (a server hanging on hostile input says nothing of the route). */
const aloneKey = (breakerKey: string, hostile?: boolean) => (hostile ? `hostile ${breakerKey}` : breakerKey);

/**
 * One sending of a request and the reading of its answer: its time limit, a reused connection the
 * server closed before answering (sent again once on a fresh one), 429s waited out. `fresh`: on a
 * connection of its own from the start. Throws Unanswered (or RateLimitedError) having set the
 * exchange's duration.
 */
async function sendOnce(
  { method, url, headers, body, maxBytes, timeoutMs }: Pick<OutgoingRequest, 'method' | 'url' | 'headers' | 'body' | 'maxBytes' | 'timeoutMs'>,
  exchange: Exchange,
  fresh: boolean,
): Promise<RawAnswer> {
  await throttle();
  let started = performance.now();
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(), timeoutMs);
  /** The last attempt was the one sent again on a fresh connection. */
  let sentAgain = false;
  /** The last attempt's answer began (its status line came): a time-out after it is a slow answer, not a silent route. */
  let began = false;
  /** The last attempt's connection was closed before any byte of its answer. */
  let closed = false;
  const send = async (): Promise<Response> => {
    const init = { method, headers, body, redirect: 'manual' as const, signal: controller.signal };
    sentAgain = false;
    began = false;
    closed = false;
    const onFresh = () => fetch(url, { ...init, dispatcher: freshConnections() } as RequestInit);
    try {
      return await (fresh ? onFresh() : fetch(url, { ...init, dispatcher: keptAliveConnections() } as RequestInit));
    } catch (err) {
      const close = controller.signal.aborted ? undefined : closedBeforeAnswer(err);
      closed = close !== undefined;
      if (!close?.reused) throw err;
      exchange.reconnected = (exchange.reconnected ?? 0) + 1;
      sentAgain = true;
      started = performance.now();
      try {
        return await onFresh();
      } catch (again) {
        closed = !controller.signal.aborted && closedBeforeAnswer(again) !== undefined;
        throw again;
      }
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
    // Closed unanswered: no byte of an answer came (never once the status line came, whatever broke after).
    throw new Unanswered(reason, timedOut, began, closed && !began && !timedOut);
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
