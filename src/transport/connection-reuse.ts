// Whether a request that got no answer died on a kept-alive connection the server had closed while it
// sat idle. A server, or the load balancer in front of it, may close an idle connection at any time
// without announcing it (no Keep-Alive header says when); a request sent on it as the close travels
// gets no byte of answer, which says nothing about the server's conformance (RFC 9112 § 9.3.1:
// clients "ought to anticipate the need to recover from asynchronous close events"). Only a request
// that fails on a fresh connection is the server's. fetch does not say which connection a request
// used: undici's diagnostics channels do (the same names in Node's bundled undici and the npm one),
// so each request's connection, how long that connection had been idle and the bytes it had read
// when the request was sent are noted here, and the error that ended it is looked up against them.
// The shortest idle time after which a server's connection was found closed is kept too, per
// origin: that server's unannounced limit as this client meets it (a busy server reads a request
// late, so it may drop one sent sooner than its own limit), which http-policy.ts then keeps its
// connections under.
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

/** Requests sent per connection (a connection is new when it has sent none). */
const sentOn = new WeakMap<Socket, number>();
/** When each connection's last answer ended. */
const answeredAt = new WeakMap<Socket, number>();
/** Per origin, the shortest idle time after which a reused connection was found closed. */
const shortestIdleClose = new Map<string, number>();
/** Grows each time a shorter one is seen: the kept-alive connections' dispatcher follows it. */
let idleCloseChanges = 0;
/** Each undici request's connection, as it was sent. */
const requests = new WeakMap<object, Sent>();
/** The errors that ended a request sent on a reused connection before any byte of its answer. */
const closedUnanswered = new WeakSet<object>();

diagnostics.subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as { request: { origin?: unknown }; socket: Socket };
  const count = sentOn.get(socket) ?? 0;
  sentOn.set(socket, count + 1);
  const last = answeredAt.get(socket);
  requests.set(request, {
    socket,
    origin: String(request.origin),
    reused: count > 0,
    idleMs: last === undefined ? undefined : performance.now() - last,
    bytesRead: socket.bytesRead,
  });
});

// Published when an answer is complete (with its trailers, usually none).
diagnostics.subscribe('undici:request:trailers', (message) => {
  const sent = requests.get((message as { request: object }).request);
  if (sent) answeredAt.set(sent.socket, performance.now());
});

diagnostics.subscribe('undici:request:error', (message) => {
  const { request, error } = message as { request: object; error: unknown };
  const sent = requests.get(request);
  if (sent?.reused && sent.socket.bytesRead === sent.bytesRead && isConnectionClose(error) && typeof error === 'object' && error) {
    closedUnanswered.add(error);
    const origin = originOf(sent.origin);
    const idle = sent.idleMs;
    if (idle !== undefined && idle < (shortestIdleClose.get(origin) ?? Infinity)) {
      shortestIdleClose.set(origin, idle);
      idleCloseChanges += 1;
    }
  }
});

/** The shortest idle time (ms) after which this origin's server was seen closing a kept-alive connection unannounced. */
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

/** A connection closed or reset under the request (not a refusal, a name that does not resolve, a timeout). */
function isConnectionClose(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * True when fetch's error is a request that went on a reused connection and was closed before any
 * byte of its answer came: sending it again on a fresh connection is what any client does.
 */
export function closedBeforeAnswerOnReusedConnection(fetchError: unknown): boolean {
  const cause = (fetchError as { cause?: unknown })?.cause;
  return typeof cause === 'object' && cause !== null && closedUnanswered.has(cause);
}
