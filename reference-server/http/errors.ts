// Error responses. Every API error is a JSON array of {type, message, tip}; the one legacy body
// ({"message": ...}) is used only by the token endpoint for an invalid code or refresh token.

import type { FastifyError, FastifyReply } from 'fastify';
import type { Switches } from '../context';
import type { Faults, Variants } from '../switches';
import { extraMembers } from './extension';

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

/** A 500 with an error array, as the server's own failures (and the faults that imitate one) answer. */
export const internalError = (message = 'Internal server error') =>
  new ApiError(500, 'PARAMETERS_ERROR', message, 'Retry later; report the problem if it persists');

/** Tips in the style of the tips-reworded variant start with this (auth/guard.ts words the scope tip so). */
export const REWORDED_TIP_PREFIX = 'Please check that ';

function tipOf(error: ApiError, variants: Variants): string {
  // variant tips-reworded: every tip in the profile's "Please check that ..." style (a tip already
  // in that style, the missing-scope one that must name the scope, is kept).
  if (!variants.has('tips-reworded') || error.tip.startsWith(REWORDED_TIP_PREFIX)) return error.tip;
  return `${REWORDED_TIP_PREFIX}the request is valid (${error.message})`;
}

/** The error array of an ApiError and its content type, as every error answer sends them. */
export function errorPayload(error: ApiError, switches: Switches): { body: unknown; contentType: string } {
  const { faults, variants } = switches;
  // fault parameters-error-singular: the profile's old spelling leaks into 400s.
  const type = error.type === 'PARAMETERS_ERROR' && faults.has('parameters-error-singular') ? 'PARAMETER_ERROR' : error.type;
  const element = (message: string, tip: string): Record<string, unknown> => {
    const item: Record<string, unknown> = { type, message, tip };
    // fault error-tip-missing: the field is never written.
    // fault range-error-no-tip: the range check builds its error without one.
    if (faults.has('error-tip-missing') || (faults.has('range-error-no-tip') && error.status === 416)) delete item.tip;
    return extraMembers(item, variants);
  };
  const item = element(error.message, tipOf(error, variants));
  // variant error-array-two-elements: a generic element first, then the documented one.
  const items = variants.has('error-array-two-elements') ? [element('Request refused', 'See the other errors of this answer'), item] : [item];
  // fault error-body-object-not-array: the element itself instead of the array.
  // fault conflict-error-object: the device routes' conflict handler sends the element alone.
  const body = faults.has('error-body-object-not-array') || (faults.has('conflict-error-object') && error.status === 409) ? item : items;
  return { body, contentType: errorContentType(switches) };
}

function errorContentType({ variants }: Switches): string {
  // variant errors-text-plain: the (unchanged) JSON text labelled as plain text.
  return variants.has('errors-text-plain') ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
}

export function sendApiError(reply: FastifyReply, error: ApiError, switches: Switches): FastifyReply {
  const { body, contentType } = errorPayload(error, switches);
  reply.code(error.status).headers(error.headers);
  return reply.type(contentType).send(JSON.stringify(body));
}

export function sendLegacyError(reply: FastifyReply, error: LegacyError, switches: Switches): FastifyReply {
  return reply
    .code(error.status)
    .type(errorContentType(switches))
    .send(JSON.stringify({ message: error.message }));
}

/** Turns Fastify's own errors (bad URL, body too large, ...) into an API error; never a 5xx for client faults. */
export function fromFrameworkError(error: FastifyError): ApiError {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) return internalError();
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
