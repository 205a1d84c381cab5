// Requests Node's HTTP parser rejects before Fastify sees them (bad header bytes, oversized headers,
// timeouts): answered on the socket with the same error array as everything else.

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'Malformed HTTP request';
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'Request headers are too large';
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'Request timed out';
  }
  const body = JSON.stringify([{ type: 'PARAMETERS_ERROR', message, tip: 'Send a well-formed HTTP/1.1 request' }]);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // end() flushes the answer before closing (destroy() could drop it).
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
