// Registers one protected route of the API from its route key (route-keys.ts): the key is written
// once, typed as RouteKey (a typo does not compile), split into the method and the path Fastify
// routes on, and handed to the check pipeline (auth/guard.ts) for the scope map, the sandbox's open
// routes and the per-route faults.

import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteGenericInterface } from 'fastify';
import { runRoute, type RouteSteps } from '../auth/guard';
import type { AppContext } from '../context';
import type { RouteKey } from '../route-keys';

/** The steps of one request to a registered route (the route key is the one it was registered with). */
export type Steps<R, Q> = Omit<RouteSteps<R, Q>, 'route'>;

export function register<G extends RouteGenericInterface, R = undefined, Q = undefined>(
  app: FastifyInstance,
  ctx: AppContext,
  route: RouteKey,
  steps: (request: FastifyRequest<G>, reply: FastifyReply) => Steps<R, Q>,
): void {
  const space = route.indexOf(' ');
  app.route({
    method: route.slice(0, space) as HTTPMethods,
    url: route.slice(space + 1),
    // The params, query and body types G names are the routes' reading of them (Fastify checks none).
    handler: (request, reply) => runRoute(ctx, request, reply, { route, ...steps(request as FastifyRequest<G>, reply) }),
  });
}
