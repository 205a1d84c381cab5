// Error responses. Every API error is a JSON array of {type, message, tip}; the one legacy body
// ({"message": ...}) is used only by the token endpoint for an invalid code or refresh token.

import type { FastifyError, FastifyReply } from 'fastify';
import type { Faults } from '../faults';

export type ErrorType = 'AUTHENTICATION_ERROR' | 'AUTHORIZATION_ERROR' | 'PARAMETERS_ERROR';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType | 'NOT_FOUND',
    message: string,
    readonly tip: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The token endpoint's legacy error (profile: one of the spec's "legacy routes"). */
export class LegacyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: 'User' | 'Car' | 'Trip', faults: Faults) =>
  new ApiError(
    404,
    'PARAMETERS_ERROR',
    // fault not-found-message-generic: one message for every kind of resource.
    faults.has('not-found-message-generic') && what !== 'Trip' ? 'Resource not found' : `${what} not found`,
    `Check that the ${what.toLowerCase()} exists`,
  );

export const parametersError = (status: number, message: string, tip: string) => new ApiError(status, 'PARAMETERS_ERROR', message, tip);

export function sendApiError(reply: FastifyReply, error: ApiError, faults: Faults): FastifyReply {
  // fault parameters-error-singular: the profile's old spelling leaks into 400s.
  const type = error.type === 'PARAMETERS_ERROR' && faults.has('parameters-error-singular') ? 'PARAMETER_ERROR' : error.type;
  const item: Record<string, string> = { type, message: error.message, tip: error.tip };
  if (faults.has('error-tip-missing')) delete item.tip;
  const body = faults.has('error-body-object-not-array') ? item : [item];
  reply.code(error.status).headers(error.headers);
  if (faults.has('error-content-type-text-plain')) {
    return reply.type('text/plain; charset=utf-8').send(JSON.stringify(body));
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

export function sendLegacyError(reply: FastifyReply, error: LegacyError): FastifyReply {
  return reply.code(error.status).type('application/json; charset=utf-8').send({ message: error.message });
}

/** Turns Fastify's own errors (bad URL, body too large, ...) into an API error; never a 5xx for client faults. */
export function fromFrameworkError(error: FastifyError): ApiError {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) return new ApiError(500, 'PARAMETERS_ERROR', 'Internal server error', 'Retry later; report the problem if it persists');
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return parametersError(413, 'Request body is too large', 'Send a smaller body');
    case 'FST_ERR_BAD_URL':
      return parametersError(400, 'Malformed URL', 'Percent-encode the path correctly');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return parametersError(414, 'Path parameter is too long', 'Use a shorter identifier');
    default:
      return parametersError(status, 'Malformed request', 'Check the request line, headers and body');
  }
}
