// Test-control API, outside /v3 and never part of the API under test (docs/ARCHITECTURE.md):
// reset the writable state, expire or revoke an access token so the auth checks can get one, and
// list every secret issued (so a test can prove none of them reached the suite's reports).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { isPlainObject, parseJson } from '../http/body';
import { ApiError, parametersError } from '../http/errors';

export function controlRoutes(ctx: AppContext) {
  function tokenFrom(request: FastifyRequest) {
    const parsed = parseJson(request.body);
    if (!parsed.ok || !isPlainObject(parsed.value) || typeof parsed.value.token !== 'string') {
      throw parametersError(400, 'Body must be a JSON object with a token string', 'Send {"token": "<access token>"}');
    }
    const token = ctx.tokens.access(parsed.value.token);
    if (!token) throw new ApiError(404, 'PARAMETERS_ERROR', 'Token not found', 'Send an access token issued by this server since the last reset');
    return token;
  }

  return async function plugin(app: FastifyInstance): Promise<void> {
    app.post('/reset', (_request: FastifyRequest, reply: FastifyReply) => {
      ctx.store.reset();
      ctx.tokens.clear();
      return reply.code(204).send();
    });

    app.post('/tokens/expire', (request: FastifyRequest, reply: FastifyReply) => {
      tokenFrom(request).forcedExpired = true;
      return reply.code(204).send();
    });

    app.get('/issued', (_request: FastifyRequest, reply: FastifyReply) => {
      return reply.send({ secrets: ctx.tokens.issued() });
    });

    app.post('/tokens/revoke', (request: FastifyRequest, reply: FastifyReply) => {
      tokenFrom(request).revoked = true;
      return reply.code(204).send();
    });
  };
}
