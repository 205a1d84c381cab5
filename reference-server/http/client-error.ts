// Requests Node's HTTP parser rejects before Fastify sees them (bad header bytes, oversized headers,
// timeouts): answered on the socket with the same error array as everything else.

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Switches } from '../context';
import { ApiError, errorPayload } from './errors';

/** The handler for one app: its error arrays follow the app's variant like every other error answer. */
export function clientErrorHandler(switches: Switches) {
  return function handle(error: Error & { code?: string }, socket: Socket): void {
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
    const payload = errorPayload(new ApiError(status, 'PARAMETERS_ERROR', message, 'Send a well-formed HTTP/1.1 request'), switches);
    const body = JSON.stringify(payload.body);
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // end() flushes the answer before closing (destroy() could drop it).
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${payload.contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
