// Two conforming variants of how connections end, both unannounced (no Keep-Alive header says when:
// Node announces its keepAliveTimeout as "Keep-Alive: timeout=N", which clients honour, so it is
// turned off and the closing is done by hand).
//
// Variant idle-connection-close: what a load balancer in front of a server often does. A kept-alive
// connection left idle for more than IDLE_MS is closed, without announcing it: no Keep-Alive header
// says when (Node announces its keepAliveTimeout as "Keep-Alive: timeout=N", which clients honour,
// so it is turned off here and the closing is done by hand). Over a network the close takes time to
// reach the client, which may send its next request on the connection meanwhile: that request is
// dropped unanswered. Here: a request arriving on a connection idle for more than IDLE_MS finds it
// closed (the socket is destroyed before the request is read), and a connection idle for LINGER_MS
// is closed outright. A request on a fresh connection is always answered.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import tls from 'node:tls';

/** Idle time after which a kept-alive connection is closed. */
export const IDLE_MS = 100;
/** Idle time after which it is closed even if no request comes. */
const LINGER_MS = 2_000;

interface Tracked {
  idleSince?: number;
  linger?: NodeJS.Timeout;
}

export function closeIdleConnections(server: Server): void {
  server.keepAliveTimeout = 0;
  const tracked = new WeakMap<Socket, Tracked>();
  const handlers = server.listeners('request') as Array<(...args: unknown[]) => void>;
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const socket = req.socket;
    const state = tracked.get(socket) ?? {};
    tracked.set(socket, state);
    clearTimeout(state.linger);
    if (state.idleSince !== undefined && Date.now() - state.idleSince > IDLE_MS) {
      socket.destroy();
      return;
    }
    state.idleSince = undefined;
    res.on('finish', () => {
      state.idleSince = Date.now();
      state.linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    });
    for (const handler of handlers) handler.call(server, req, res);
  });
}

// Variant idle-sockets-closed: what a server's own idle time-out does (Envoy's idle_timeout, a
// proxy's "timeout client"): a connection with no request in progress for IDLE_SOCKET_MS, counted
// from its accept or from its last answer, is closed by a timer, a fresh one as a kept-alive one. A
// client that opens a connection and writes its request late (a busy machine) finds it closed; a
// request that arrives as the timer fires is dropped unread, as the server's own event loop orders it.

/** Idle time after which a connection, fresh or kept alive, is closed. */
export const IDLE_SOCKET_MS = 300;

export function closeIdleSockets(server: Server): void {
  server.keepAliveTimeout = 0;
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  /** Requests of each connection not answered yet. */
  const active = new WeakMap<Socket, number>();
  const arm = (socket: Socket) => {
    clearTimeout(timers.get(socket));
    if (!socket.destroyed) timers.set(socket, setTimeout(() => socket.destroy(), IDLE_SOCKET_MS).unref());
  };
  // Over TLS a request's socket is the TLS one, accepted once its handshake ends.
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (socket: Socket) => {
    arm(socket);
    socket.once('close', () => clearTimeout(timers.get(socket)));
  });
  server.prependListener('request', (req, res) => {
    const socket = req.socket;
    clearTimeout(timers.get(socket));
    active.set(socket, (active.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (active.get(socket) ?? 1) - 1;
      active.set(socket, left);
      if (left === 0) arm(socket);
    });
  });
}
