// Whether a request that got no answer died on a kept-alive connection the server had closed while it
// sat idle. A server, or the load balancer in front of it, may close an idle connection at any time
// without announcing it (no Keep-Alive header says when); a request sent on it as the close travels
// gets no byte of answer, which says nothing about the server's conformance (RFC 9112 § 9.3.1:
// clients "ought to anticipate the need to recover from asynchronous close events"). Only a request
// that fails on a fresh connection is the server's. fetch does not say which connection a request
// used: undici's diagnostics channels do (the same names in Node's bundled undici and the npm one),
// so each request's connection and the bytes it had read when the request was sent are noted here,
// and the error that ended it is looked up against them.
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

interface Sent {
  socket: Socket;
  /** The connection had carried a request before this one: it was reused. */
  reused: boolean;
  /** socket.bytesRead when the request was sent: unchanged at the error, no byte of answer came. */
  bytesRead: number;
}

/** Requests sent per connection (a connection is new when it has sent none). */
const sentOn = new WeakMap<Socket, number>();
/** Each undici request's connection, as it was sent. */
const requests = new WeakMap<object, Sent>();
/** The errors that ended a request sent on a reused connection before any byte of its answer. */
const closedUnanswered = new WeakSet<object>();

diagnostics.subscribe('undici:client:sendHeaders', (message) => {
  const { request, socket } = message as { request: object; socket: Socket };
  const count = sentOn.get(socket) ?? 0;
  sentOn.set(socket, count + 1);
  requests.set(request, { socket, reused: count > 0, bytesRead: socket.bytesRead });
});

diagnostics.subscribe('undici:request:error', (message) => {
  const { request, error } = message as { request: object; error: unknown };
  const sent = requests.get(request);
  if (sent?.reused && sent.socket.bytesRead === sent.bytesRead && isConnectionClose(error) && typeof error === 'object' && error) {
    closedUnanswered.add(error);
  }
});

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
