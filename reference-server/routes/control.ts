// Test-control API, outside /v3 and never part of the API under test (docs/ARCHITECTURE.md):
// reset the writable state, mint tokens and authorization codes without the sign-in page (a suite gets
// its many scoped tokens fast, and the token endpoint's checks need no browser), expire or revoke an access token so the auth checks can get one, and list every secret
// issued (so a test can prove none of them reached the suite's reports), and switch the active fault (the
// mutation gate moves one server from fault to fault). Faults and variants never
// apply here (app.ts): the plumbing must behave the same whatever server is under test.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findApplication } from '../auth/clients';
import { scopesOf } from '../auth/oauth';
import { tokenRecord } from '../auth/tokens';
import type { AppContext } from '../context';
import { isPlainObject, parseJson } from '../http/body';
import { parametersError } from '../http/errors';

interface MintRequest {
  clientId: string;
  username: string;
  /** undefined: all the application's scopes. */
  scopes: string[] | undefined;
  /** tokens/mint: the access token outlives resets and fault switches. */
  keep?: boolean;
}

function parseMintBody(body: unknown): MintRequest {
  const parsed = parseJson(body);
  const value = parsed.ok ? parsed.value : undefined;
  const scopes = isPlainObject(value) ? value.scopes : undefined;
  if (
    !isPlainObject(value) ||
    typeof value.clientId !== 'string' ||
    typeof value.username !== 'string' ||
    (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))) ||
    (value.keep !== undefined && typeof value.keep !== 'boolean')
  ) {
    throw parametersError(
      400,
      'Body must be a JSON object with clientId, username and optional scopes',
      'Send {"clientId": "...", "username": "...", "scopes": ["users_read", ...]}',
    );
  }
  return { clientId: value.clientId, username: value.username, scopes: scopes as string[] | undefined, keep: value.keep === true };
}

export function controlRoutes(ctx: AppContext) {
  /** The access token a body names: the control API's own, or (variant authorization-server-oidc) the authorization server's. */
  async function tokenFrom(request: FastifyRequest) {
    const parsed = parseJson(request.body);
    if (!parsed.ok || !isPlainObject(parsed.value) || typeof parsed.value.token !== 'string') {
      throw parametersError(400, 'Body must be a JSON object with a token string', 'Send {"token": "<access token>"}');
    }
    const token = ctx.tokens.access(parsed.value.token) ?? (await ctx.authorizationServer?.accessToken(parsed.value.token));
    if (!token) throw parametersError(404, 'Token not found', 'Send an access token issued by this server since the last reset');
    return token;
  }

  /** The registered application and the seeded user a mint request names, or 404. */
  function applicationAndUser(mint: MintRequest) {
    const application = findApplication(mint.clientId);
    if (!application) throw parametersError(404, 'Client not found', 'Use the client id of a registered application, e.g. vds-conformance');
    const user = ctx.store.userByEmail(mint.username);
    if (!user) throw parametersError(404, 'User not found', 'Use the email of a seeded user, e.g. alice@reference.test');
    return { application, user };
  }

  return async function plugin(app: FastifyInstance): Promise<void> {
    app.post('/reset', (_request: FastifyRequest, reply: FastifyReply) => {
      ctx.store.reset();
      ctx.tokens.clear();
      ctx.authorizationServer?.reset();
      return reply.code(204).send();
    });

    // The fault guards reached since the last switch, active or not (reference-server/switches.ts): a fault
    // whose guard no request reached changed no answer. {"reached": ["name", "name@<route key>", ...]}.
    app.get('/fault-guards', (_request: FastifyRequest, reply: FastifyReply) => {
      return reply
        .code(200)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ reached: ctx.faults.reached }));
    });
    // {"trace": true}: from now on each answer names the guards its request reached (header x-vds-fault-guards).
    app.post('/fault-guards', (request: FastifyRequest, reply: FastifyReply) => {
      const parsed = parseJson(request.body);
      const trace = parsed.ok && isPlainObject(parsed.value) ? parsed.value.trace : undefined;
      if (typeof trace !== 'boolean') throw parametersError(400, 'Body must be a JSON object with a trace boolean', 'Send {"trace": true}');
      ctx.faults.tracing = trace;
      return reply.code(204).send();
    });

    // Another fault (or none) from the next request on, after a reset: one server serves a whole
    // mutation gate, fault after fault (body {"fault": "name" | "name@<route key>" | null}).
    app.post('/fault', (request: FastifyRequest, reply: FastifyReply) => {
      const parsed = parseJson(request.body);
      const fault = parsed.ok && isPlainObject(parsed.value) ? parsed.value.fault : undefined;
      if (!(fault === null || typeof fault === 'string')) {
        throw parametersError(
          400,
          'Body must be a JSON object with a fault name or null',
          'Send {"fault": "car-date-zulu"}, {"fault": "route-answers-500@GET /cars/:carId"} or {"fault": null}',
        );
      }
      try {
        ctx.faults.set(fault);
      } catch (err) {
        throw parametersError(400, (err as Error).message, 'See npm run reference -- --list-faults');
      }
      ctx.store.reset();
      ctx.tokens.clear();
      ctx.authorizationServer?.reset();
      return reply.code(204).send();
    });

    // The tokens the sign-in page and the token endpoint would give, without the browser: the granted
    // scopes are the requested ones the application has (all of them when none are requested).
    app.post('/tokens/mint', (request: FastifyRequest, reply: FastifyReply) => {
      const mint = parseMintBody(request.body);
      const { application, user } = applicationAndUser(mint);
      // keep: the access token outlives resets and fault switches (a test's fixture token).
      const issued = ctx.tokens.issueTokens(application.clientId, user.id, scopesOf(application, mint.scopes), ctx.now(), mint.keep);
      return reply.code(200).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(tokenRecord(issued));
    });

    // An authorization code, as the sign-in page would redirect with, for the token endpoint's checks:
    // body {"clientId", "username", "scopes"?, "redirectUri"?}; answers {"code": "..."}.
    app.post('/codes/mint', (request: FastifyRequest, reply: FastifyReply) => {
      const mint = parseMintBody(request.body);
      const parsed = parseJson(request.body);
      const redirectUri = parsed.ok && isPlainObject(parsed.value) && typeof parsed.value.redirectUri === 'string' ? parsed.value.redirectUri : null;
      const { application, user } = applicationAndUser(mint);
      const code = ctx.tokens.issueCode(
        { clientId: application.clientId, userId: user.id, scopes: scopesOf(application, mint.scopes), redirectUri },
        ctx.now(),
      );
      return reply.code(200).header('cache-control', 'no-store').send({ code: code.value });
    });

    app.post('/tokens/expire', async (request: FastifyRequest, reply: FastifyReply) => {
      const token = await tokenFrom(request);
      token.forcedExpired = true;
      token.forcedExpiredAt ??= ctx.now();
      return reply.code(204).send();
    });

    // The HTTP versions the server's requests came in (API and control alike): {"1.1": n, "2.0": n}.
    app.get('/protocols', (_request: FastifyRequest, reply: FastifyReply) => {
      return reply.send(Object.fromEntries(ctx.protocols ?? []));
    });

    app.get('/issued', (_request: FastifyRequest, reply: FastifyReply) => {
      return reply.send({ secrets: ctx.tokens.issued() });
    });

    app.post('/tokens/revoke', async (request: FastifyRequest, reply: FastifyReply) => {
      (await tokenFrom(request)).revoked = true;
      return reply.code(204).send();
    });
  };
}
