// The embedded reference implementation of Vehicle Data Service v3, as one Fastify instance.
// Written from the spec and the profile only (never from contracts/), so running the suite against
// it is a real cross-check. See docs/ARCHITECTURE.md.

import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorizationServer } from './auth/authorization-server';
import { oauthRoutes } from './auth/oauth';
import { JwtIssuer } from './auth/jwt';
import { SHORT_ACCESS_TOKEN_LIFETIME_S, TokenStore } from './auth/tokens';
import type { AppContext, Mode, Switches } from './context';
import type { SeedOptions } from './data/seed';
import { Store } from './data/store';
import { clientErrorHandler } from './http/client-error';
import { isApiRoute, wireVariants } from './http/wire';
import { closeIdleConnections, closeIdleSockets } from './http/idle-close';
import { answerNotModified, remember, tagSuccess } from './http/response-cache';
import { ApiError, fromFrameworkError, LegacyError, parametersError, sendApiError, sendLegacyError } from './http/errors';
import { carsRoutes } from './routes/cars';
import { controlRoutes } from './routes/control';
import { devicesRoutes } from './routes/devices';
import { tripsRoutes } from './routes/trips';
import { usersRoutes } from './routes/users';
import { checkRouteLatency, routeKeyOf, type RouteLatency } from './route-latency';
import { FAULT_GUARDS_HEADER, Faults, guardsOfThisRequest, trackRequestGuards, Variants } from './switches';

export interface ReferenceAppOptions {
  mode: Mode;
  /** A fault name from faults.ts; undefined, '' or 'none' for the correct server. */
  fault?: string;
  /** A variant name from variants.ts (a conforming alternative behaviour); undefined, '' or 'none' for the default. */
  variant?: string;
  /** The clock; the fake data is generated relative to its value at build time. */
  now?: () => Date;
  logger?: boolean;
  /** Every request (API and control alike) is answered this many ms late, to emulate a remote server. */
  latencyMs?: number;
  /** Some routes answered this much later still ({ 'GET /cars/:carId/status': 200 }): one route got slower. */
  routeLatencyMs?: RouteLatency;
  /**
   * Served over TLS with HTTP/2, HTTP/1.1 offered beside it by ALPN (Fastify's http2 with https.allowHTTP1),
   * as a deployment behind a modern front end is: this certificate and key (PEM).
   */
  http2?: { cert: string; key: string };
}

/** The data a variant asks for: the variants that change the seed (quiet-month, many-cars, fleet-account, dense-history, sandbox-other-data). */
export function seedOptions(variants: Variants): SeedOptions {
  return {
    quietMonth: variants.has('quiet-month'),
    manyCars: variants.has('many-cars'),
    fleetAccount: variants.has('fleet-account'),
    denseMonth: variants.has('dense-history'),
    otherIds: variants.has('sandbox-other-data'),
    encodedPasswords: variants.has('encoded-credentials'),
  };
}

/** The control API is test plumbing: neither faults nor variants change its answers. */
const PLAIN: Switches = { faults: new Faults(null), variants: new Variants(null) };

/**
 * Builds the reference server (not yet listening; use `app.inject` or `app.listen`).
 * Throws when `mode`, `fault` or `variant` is unknown, or `latencyMs` (or a route's) is not a number of ms.
 */
export async function buildReferenceApp(options: ReferenceAppOptions): Promise<FastifyInstance> {
  if (options.mode !== 'cloud' && options.mode !== 'sandbox') throw new Error(`Unknown mode '${String(options.mode)}' (valid: cloud, sandbox)`);
  const faults = new Faults(options.fault);
  const variants = new Variants(options.variant);
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isSafeInteger(latencyMs) || latencyMs < 0)
    throw new Error(`Invalid latencyMs '${String(options.latencyMs)}' (valid: an integer number of ms, 0 or more)`);
  const routeLatency: Record<string, number> = checkRouteLatency(options.routeLatencyMs ?? {});
  const clock = options.now ?? (() => new Date());
  const ctx: AppContext = {
    mode: options.mode,
    faults,
    variants,
    now: () => clock().getTime(),
    store: new Store(() => clock().getTime(), seedOptions(variants)),
    // variant short-lived-tokens: access tokens expire within a run.
    // variant jwt-access-tokens: tokens are JWTs, signed with a key of this instance's own.
    tokens: new TokenStore(variants.has('short-lived-tokens') ? SHORT_ACCESS_TOKEN_LIFETIME_S : undefined, {
      faults,
      // variants blindp-tokens-base64-padded, blindp-codes-base64-padded: values in plain base64 with its padding.
      paddedTokens: variants.has('blindp-tokens-base64-padded'),
      paddedCodes: variants.has('blindp-codes-base64-padded'),
      ...(variants.has('jwt-access-tokens') ? { jwt: new JwtIssuer() } : {}),
    }),
  };

  const switchesFor = (request: FastifyRequest): Switches => (request.url.startsWith('/_control') ? PLAIN : ctx);

  // Over HTTP/2 Fastify types its instance for an HTTP/2 server; the routes and hooks only use what
  // both have (Fastify's request and reply), so it is handled as the plain instance.
  const fastify = Fastify as unknown as (serverOptions: object) => FastifyInstance;
  const app = fastify({
    ...(options.http2 ? { http2: true, https: { allowHTTP1: true, cert: options.http2.cert, key: options.http2.key } } : {}),
    logger: options.logger ?? false,
    // Long ids (10k characters) must reach the routes so they get the normal auth/404 answers.
    routerOptions: { maxParamLength: 20000 },
    // Faults never reached this handler (it answers before Fastify does); variants do, so that every error array follows the variant.
    clientErrorHandler: clientErrorHandler({ faults: PLAIN.faults, variants }),
    // Bad percent-encoding and similar router errors: an error array, not Fastify's default object.
    // They never reach the onRequest hooks, so they wait for the emulated latency here.
    frameworkErrors: async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      if (latencyMs > 0) await sleep(latencyMs);
      sendApiError(reply, fromFrameworkError(error), switchesFor(request));
    },
  });

  // The HTTP versions the requests came in (GET /_control/protocols).
  const protocols = new Map<string, number>();
  ctx.protocols = protocols;
  app.addHook('onRequest', (request, _reply, done) => {
    protocols.set(request.raw.httpVersion, (protocols.get(request.raw.httpVersion) ?? 0) + 1);
    done();
  });

  // variant jwt-access-tokens: the issuer its tokens name is the sign-in page's base URL, on the host the API's requests name.
  const jwt = ctx.tokens.jwt;
  if (jwt) {
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.url.startsWith('/v3/')) jwt.issuer = `${request.protocol}://${request.host}/v3/auth`;
      done();
    });
  }

  // Each request reaches fault guards of its own (switches.ts); traced, its answer names them.
  app.addHook('onRequest', (_request, _reply, done) => trackRequestGuards(done));
  app.addHook('onSend', async (request, reply, payload) => {
    if (faults.tracing) reply.header(FAULT_GUARDS_HEADER, guardsOfThisRequest().join(','));
    // faults of family caches: a success of a read route that looked the cache up is kept (http/response-cache.ts).
    remember(ctx.store, request, reply, payload);
    return payload;
  });

  // Bodies are kept as raw strings and judged by each route after authentication, so a bad body
  // never answers before a missing token (check order) and never escapes as a framework error.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  // Latency emulation: every request (the 404 handler included) waits before it is handled.
  if (latencyMs > 0) {
    app.addHook('onRequest', async () => {
      await sleep(latencyMs);
    });
  }
  // One route slower than the others (routeLatencyMs), on top of the latency of every request.
  if (Object.keys(routeLatency).length) {
    app.addHook('onRequest', async (request) => {
      const extra = routeLatency[routeKeyOf(request.method, request.routeOptions.url) ?? ''];
      if (extra) await sleep(extra);
    });
  }

  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return sendApiError(reply, error, switchesFor(request));
    if (error instanceof LegacyError) return sendLegacyError(reply, error, switchesFor(request));
    if (options.logger && !('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode < 500)) request.log.error(error);
    return sendApiError(reply, fromFrameworkError(error as FastifyError), switchesFor(request));
  });

  // fault blind-conditional-before-auth: an ETag layer answers a matching If-None-Match before any route runs.
  app.addHook('onRequest', async (request, reply) => {
    if ((request.method === 'GET' || request.method === 'HEAD') && isApiRoute(request) && faults.has('blind-conditional-before-auth')) {
      if (answerNotModified(ctx.store, request, reply)) return reply;
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!isApiRoute(request)) return payload;
    // fault blind-conditional-before-auth: each success of a read gets an entity tag.
    if (faults.has('blind-conditional-before-auth')) tagSuccess(ctx.store, request, reply, payload);
    // fault blind-api-cache-public: a CDN-friendly default on every successful read, whoever it was for.
    if (request.method === 'GET' && reply.statusCode === 200 && faults.has('blind-api-cache-public')) reply.header('cache-control', 'public, max-age=300');
    // fault blind-json-bom: the CSV export's helper, which writes a byte order mark for Excel, sends the JSON answers too.
    const type = String(reply.getHeader('content-type') ?? '');
    if (reply.statusCode < 300 && type.startsWith('application/json') && typeof payload === 'string' && faults.has('blind-json-bom')) return `\uFEFF${payload}`;
    return payload;
  });

  // variant records-text-plain: the API's JSON records (not GeoJSON, not the token) labelled text/plain.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 300 && variants.has('records-text-plain') && isApiRoute(request) && !(request.routeOptions.url ?? '').endsWith('.geojson')) {
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('application/json')) reply.header('content-type', 'text/plain; charset=utf-8');
    }
    return payload;
  });

  // The blindp- wire variants (http/wire.ts): how answers are written, after every hook that changes what they say.
  wireVariants(app, variants, switchesFor);

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    // Unknown routes and known paths with another method both answer 404 with an error array.
    sendApiError(reply, parametersError(404, 'Route not found', 'Check the method and the path; every route starts with /v3'), switchesFor(request));
  });

  await app.register(usersRoutes(ctx), { prefix: '/v3' });
  await app.register(carsRoutes(ctx), { prefix: '/v3' });
  await app.register(tripsRoutes(ctx), { prefix: '/v3' });
  await app.register(devicesRoutes(ctx), { prefix: '/v3' });
  // variant authorization-server-oidc: oidc-provider in place of the hand-written sign-in page and token endpoint.
  if (variants.has('authorization-server-oidc')) {
    ctx.authorizationServer = await authorizationServer(ctx);
    await app.register(ctx.authorizationServer.plugin, { prefix: '/v3' });
  } else await app.register(oauthRoutes(ctx), { prefix: '/v3' });
  await app.register(controlRoutes(ctx), { prefix: '/_control' });
  // variant idle-connection-close: kept-alive connections closed after a short idle time, unannounced.
  if (variants.has('idle-connection-close')) closeIdleConnections(app.server);
  // variant idle-sockets-closed: any connection with no request in progress closed after a short idle time, unannounced.
  if (variants.has('idle-sockets-closed')) closeIdleSockets(app.server);
  return app;
}
