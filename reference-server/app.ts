// The embedded reference implementation of Vehicle Data Service v3, as one Fastify instance.
// Written from the spec and the profile only (never from contracts/), so running the suite against
// it is a real cross-check. See docs/ARCHITECTURE.md.

import Fastify, { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthRoutes } from './auth/oauth';
import { TokenStore } from './auth/tokens';
import type { AppContext, Mode } from './context';
import { Store } from './data/store';
import { Faults } from './faults';
import { clientErrorHandler } from './http/client-error';
import { ApiError, fromFrameworkError, LegacyError, parametersError, sendApiError, sendLegacyError } from './http/errors';
import { carsRoutes } from './routes/cars';
import { controlRoutes } from './routes/control';
import { devicesRoutes } from './routes/devices';
import { tripsRoutes } from './routes/trips';
import { usersRoutes } from './routes/users';

export type { Mode } from './context';

export interface ReferenceAppOptions {
  mode: Mode;
  /** A fault name from faults.ts; undefined, '' or 'none' for the correct server. */
  fault?: string;
  /** The clock; the fake data is generated relative to its value at build time. */
  now?: () => Date;
  logger?: boolean;
}

const NO_FAULT = new Faults(null);

/**
 * Builds the reference server (not yet listening; use `app.inject` or `app.listen`).
 * Throws when `mode` or `fault` is unknown.
 */
export async function buildReferenceApp(options: ReferenceAppOptions): Promise<FastifyInstance> {
  if (options.mode !== 'cloud' && options.mode !== 'sandbox') throw new Error(`Unknown mode '${String(options.mode)}' (valid: cloud, sandbox)`);
  const faults = new Faults(options.fault);
  const clock = options.now ?? (() => new Date());
  const ctx: AppContext = {
    mode: options.mode,
    faults,
    now: () => clock().getTime(),
    store: new Store(clock().getTime()),
    tokens: new TokenStore(),
  };

  // The control API is test plumbing: faults never change its error bodies.
  const faultsFor = (request: FastifyRequest) => (request.url.startsWith('/_control') ? NO_FAULT : faults);

  const app = Fastify({
    logger: options.logger ?? false,
    // Long ids (10k characters) must reach the routes so they get the normal auth/404 answers.
    routerOptions: { maxParamLength: 20000 },
    clientErrorHandler,
    // Bad percent-encoding and similar router errors: an error array, not Fastify's default object.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      sendApiError(reply, fromFrameworkError(error), faultsFor(request));
    },
  });

  // Bodies are kept as raw strings and judged by each route after authentication, so a bad body
  // never answers before a missing token (check order) and never escapes as a framework error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return sendApiError(reply, error, faultsFor(request));
    if (error instanceof LegacyError) return sendLegacyError(reply, error);
    if (options.logger && !('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode < 500)) request.log.error(error);
    return sendApiError(reply, fromFrameworkError(error as FastifyError), faultsFor(request));
  });

  // fault route-json-text-plain: one route's successful answer is labelled text/plain.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 300 && faults.on('route-json-text-plain', `${request.method} ${request.routeOptions.url?.replace(/^\/v3/, '')}`)) {
      reply.header('content-type', 'text/plain; charset=utf-8');
    }
    return payload;
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    // Unknown routes and known paths with another method both answer 404 with an error array.
    sendApiError(reply, parametersError(404, 'Route not found', 'Check the method and the path; every route starts with /v3'), faultsFor(request));
  });

  await app.register(usersRoutes(ctx), { prefix: '/v3' });
  await app.register(carsRoutes(ctx), { prefix: '/v3' });
  await app.register(tripsRoutes(ctx), { prefix: '/v3' });
  await app.register(devicesRoutes(ctx), { prefix: '/v3' });
  await app.register(oauthRoutes(ctx), { prefix: '/v3' });
  await app.register(controlRoutes(ctx), { prefix: '/_control' });
  return app;
}
