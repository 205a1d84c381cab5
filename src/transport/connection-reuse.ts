// Whether a request that got no answer died on a connection the server closed before reading it. A
// server, or the load balancer in front of it, may close a connection it holds idle at any time
// without announcing it (no Keep-Alive header says when): a kept-alive connection between two
// requests, or a fresh one the client has not written on yet (an idle time-out counted from the
// accept). A request sent on it as the close travels gets no byte of answer, which says nothing about
// the server's conformance (RFC 9112 § 9.3.1: clients "ought to anticipate the need to recover from
// asynchronous close events"). fetch does not say which connection a request used: undici's
// diagnostics channels do (the same names in Node's bundled undici and the npm one), so each request's
// connection, whether it was reused, how long it had been idle and the bytes it had read when the
// request was sent are noted here, and the error that ended it is looked up against them (network.ts
// decides what is sent again, and how).
// The server's idle time is learnt too, per origin: the shortest idle time after which a connection
// of it was found closed, by a request that met the close or by the close itself arriving while the
// connection sat idle. That is the server's unannounced limit as this client measures it (a busy client
// reads an answer late, so its own idle measure is shorter than the server's), which http-policy.ts
// keeps its connections well under. The run's preparation hands what it learnt to the workers
// (RunContext.idleCloses): they start from it rather than each meeting the closes again.
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

interface Sent {
  socket: Socket;
  /** The server's origin (scheme, host and port). */
  origin: string;
  /** The connection had carried a request before this one: it was reused. */
  reused: boolean;
  /** How long the connection had been idle (since its last answer ended), when reused. */
  idleMs?: number;
  /** socket.bytesRead when the request was sent: unchanged at the error, no byte of answer came. */
  bytesRead: number;
}

interface Connection {
  origin: string;
  /** Requests sent on it. */
  sent: number;
  /** A request is on it (sent, its answer not complete). */
  busy: boolean;
  /** When its last answer ended. */
  answeredAt?: number;
  /** Its last request or answer said it ends there (Connection: close): its close is no idle time. */
  closing: boolean;
}

const connections = new WeakMap<Socket, Connection>();
/** Per origin, the shortest idle time after which a connection was found closed. */
const shortestIdleClose = new Map<string, number>();
/** Grows each time a shorter one is learnt: the kept-alive connections' dispatcher follows it. */
let idleCloseChanges = 0;
/** Each undici request's connection, as it was sent. */
const requests = new WeakMap<object, Sent>();
/** The errors that ended a request before any byte of its answer, the connection closed under it; and whether it was reused. */
const closedUnanswered = new WeakMap<object, { reused: boolean }>();

function connectionOf(socket: Socket, origin: string): Connection {
  let c = connections.get(socket);
  if (!c) {
    connections.set(socket, (c = { origin, sent: 0, busy: false, closing: false }));
    // The server closed it while nothing was on it: it keeps connections idle no longer than that.
    socket.once('end', () => {
      if (!c!.busy && !c!.closing && c!.answeredAt !== undefined) learnIdleClose(c!.origin, performance.now() - c!.answeredAt);
    });
  }
  return c;
}

diagnostics.subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket, headers } = message as { request: { origin?: unknown }; socket: Socket; headers?: string };
  const origin = originOf(String(request.origin));
  const c = connectionOf(socket, origin);
  requests.set(request, {
    socket,
    origin,
    reused: c.sent > 0,
    idleMs: c.answeredAt === undefined ? undefined : performance.now() - c.answeredAt,
    bytesRead: socket.bytesRead,
  });
  c.sent += 1;
  c.busy = true;
  if (typeof headers === 'string' && /\r\nconnection: close\r\n/i.test(headers)) c.closing = true;
});

diagnostics.subscribe('undici:request:headers', (message) => {
  const { request, response } = message as { request: object; response: { headers?: unknown[] } };
  const socket = requests.get(request)?.socket;
  const c = socket && connections.get(socket);
  if (!c) return;
  const raw = response.headers ?? [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (String(raw[i]).toLowerCase() === 'connection' && /close/i.test(String(raw[i + 1]))) c.closing = true;
  }
});

// Published when an answer is complete (with its trailers, usually none).
diagnostics.subscribe('undici:request:trailers', (message) => {
  const sent = requests.get((message as { request: object }).request);
  const c = sent && connections.get(sent.socket);
  if (!c) return;
  c.answeredAt = performance.now();
  c.busy = false;
});

diagnostics.subscribe('undici:request:error', (message) => {
  const { request, error } = message as { request: object; error: unknown };
  const sent = requests.get(request);
  if (!sent) return;
  const c = connections.get(sent.socket);
  if (c) c.busy = false;
  if (sent.socket.bytesRead === sent.bytesRead && isConnectionClose(error) && typeof error === 'object' && error) {
    closedUnanswered.set(error, { reused: sent.reused });
    if (sent.reused && sent.idleMs !== undefined) learnIdleClose(sent.origin, sent.idleMs);
  }
});

function learnIdleClose(origin: string, idleMs: number): void {
  if (idleMs < (shortestIdleClose.get(origin) ?? Infinity)) {
    shortestIdleClose.set(origin, idleMs);
    idleCloseChanges += 1;
  }
}

/** The shortest idle time (ms) after which this origin's server was seen closing a connection unannounced. */
export function idleCloseSeenMs(origin: string): number | undefined {
  return shortestIdleClose.get(originOf(origin));
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Every origin's shortest idle close, and a count that grows when one gets shorter. */
export function idleClosesSeen(): { changes: number; shortest?: number } {
  return { changes: idleCloseChanges, shortest: shortestIdleClose.size ? Math.min(...shortestIdleClose.values()) : undefined };
}

/** What this process learnt of the servers' idle times (origin -> ms): the run's preparation hands it to the workers. */
export function learntIdleCloses(): Record<string, number> {
  return Object.fromEntries(shortestIdleClose);
}

/** Starts from what another process of the run learnt (the preparation's): a worker then keeps its connections under it at once. */
export function rememberIdleCloses(learnt: Record<string, number> | undefined): void {
  // Each check of a run hands the same record: it is learnt once.
  if (learnt === remembered) return;
  remembered = learnt;
  for (const [origin, ms] of Object.entries(learnt ?? {})) learnIdleClose(origin, ms);
}
let remembered: Record<string, number> | undefined;

/** A connection closed or reset under the request (not a refusal, a name that does not resolve, a timeout). */
function isConnectionClose(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * Whether fetch's error is a request whose connection was closed before any byte of its answer came
 * (undefined when it is not), and whether that connection was a reused one.
 */
export function closedBeforeAnswer(fetchError: unknown): { reused: boolean } | undefined {
  const cause = (fetchError as { cause?: unknown })?.cause;
  return typeof cause === 'object' && cause !== null ? closedUnanswered.get(cause) : undefined;
}
