// The sign-in flows of deployed authorization servers, as their pages drive them (variants
// signin-ory, signin-authentik, signin-okta): the sign-in link sends the browser into the server's
// own flow (its URLs, its cookies, its CSRF field or state handle, a page script talking JSON to its
// API), and once the user is signed in the flow ends where the reference's own does (oauth.ts
// signedIn: a page between, or the redirect with the code). Wrong credentials keep the user in the
// flow with the server's own message, as those servers do.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import type { User } from '../data/types';
import { parseFields, parseJson, isPlainObject } from '../http/body';
import { asQuery } from '../http/params';
import type { Application } from './clients';
import { cookies } from '../http/cookies';
import { first, type SignInRequest } from './signin-request';
import { renderErrorPage } from './signin-page';
import { renderAuthentikFlow, renderOktaWidget, renderOryLogin } from './vendor-pages';

interface Deps {
  ctx: AppContext;
  sendHtml: (reply: FastifyReply, status: number, html: string) => FastifyReply;
  signedIn: (reply: FastifyReply, app: Application, user: User, req: SignInRequest, redirectUri: string) => FastifyReply;
}

interface Flow {
  req: SignInRequest;
  app: Application;
  redirectUri: string;
  csrf: string;
  /** The account given at the flow's first step (Authentik, Okta); the user once signed in. */
  identified?: User;
  signedIn?: User;
  /** Ory: the message the login page shows again (wrong credentials). */
  message?: string;
}

/** The cookie of each flow's session. */
const ORY_CSRF_COOKIE = 'csrf_token_vds';
const AUTHENTIK_COOKIE = 'authentik_session';
const FLOW_PATH = '/v3/auth/';
const ORY_INVALID = 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';

export function vendorFlows({ ctx, sendHtml, signedIn }: Deps) {
  const { variants, store } = ctx;
  const flows = new Map<string, Flow>();
  const cookie = (name: string, value: string) => `${name}=${value}; Path=${FLOW_PATH}; HttpOnly; SameSite=Lax`;
  const expired = (reply: FastifyReply) =>
    sendHtml(reply, 410, renderErrorPage('Sign in again', 'This sign-in has expired: start again from the application.'));

  /** The sign-in link of a registered client: into the server's flow (undefined: no such variant). */
  function start(reply: FastifyReply, req: SignInRequest, app: Application, redirectUri: string): FastifyReply | undefined {
    const flow: Flow = { req, app, redirectUri, csrf: randomBytes(24).toString('base64url') };
    const id = randomUUID();
    if (variants.has('signin-ory')) {
      flows.set(id, flow);
      return reply
        .code(303)
        .header('set-cookie', cookie(ORY_CSRF_COOKIE, flow.csrf))
        .header('location', `ui/login?flow=${id}`)
        .header('cache-control', 'no-store')
        .send();
    }
    if (variants.has('signin-authentik')) {
      flows.set(id, flow);
      return reply
        .code(302)
        .header('set-cookie', cookie(AUTHENTIK_COOKIE, id))
        .header('location', 'if/flow/default-authentication-flow/')
        .header('cache-control', 'no-store')
        .send();
    }
    if (variants.has('signin-okta')) {
      flows.set(flow.csrf, flow);
      return sendHtml(reply, 200, renderOktaWidget({ stateHandle: flow.csrf, base: '/v3/auth', applicationName: app.name }));
    }
    return undefined;
  }

  const passwordOf = (user: User | undefined, password: string | undefined) => user !== undefined && password !== undefined && user.password === password;

  // Ory: the login UI of a flow, and the flow's form posted back (its CSRF field matched to its cookie).
  function oryPage(request: FastifyRequest, reply: FastifyReply) {
    const id = first(asQuery(request.query), 'flow') ?? '';
    const flow = flows.get(id);
    if (!flow) return expired(reply);
    return sendHtml(
      reply,
      200,
      renderOryLogin({ action: `/v3/auth/self-service/login?flow=${id}`, csrf: flow.csrf, applicationName: flow.app.name, message: flow.message }),
    );
  }

  function oryLogin(request: FastifyRequest, reply: FastifyReply) {
    const id = first(asQuery(request.query), 'flow') ?? '';
    const flow = flows.get(id);
    const { fields } = parseFields(request.body, request.headers['content-type']);
    if (!flow || fields.csrf_token !== flow.csrf || cookies(request)[ORY_CSRF_COOKIE] !== flow.csrf)
      return sendHtml(reply, 403, renderErrorPage('Forbidden', 'The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF).'));
    // The social button: the browser leaves for the identity provider.
    if (fields.provider) return reply.code(303).header('location', `https://${fields.provider}.invalid/login/oauth/authorize?flow=${id}`).send();
    const user = store.userByEmail(fields.identifier ?? '');
    if (fields.method !== 'password' || !passwordOf(user, fields.password)) {
      flow.message = ORY_INVALID;
      return reply.code(303).header('location', `/v3/auth/ui/login?flow=${id}`).send();
    }
    flows.delete(id);
    return signedIn(reply, flow.app, user!, flow.req, flow.redirectUri);
  }

  // Authentik: the flow executor's page, its flow API (a challenge per stage), and the authorize step the flow ends on.
  const authentikFlow = (request: FastifyRequest) => {
    const id = cookies(request)[AUTHENTIK_COOKIE];
    return id === undefined ? undefined : { id, flow: flows.get(id) };
  };
  const TITLE = 'Welcome to authentik!';

  function authentikPage(_request: FastifyRequest, reply: FastifyReply) {
    return sendHtml(reply, 200, renderAuthentikFlow({ api: '/v3/auth/api/v3/flows/executor/default-authentication-flow/', title: TITLE }));
  }

  function authentikApi(request: FastifyRequest, reply: FastifyReply) {
    const found = authentikFlow(request);
    if (!found?.flow) return reply.code(404).send({ detail: 'Flow not found.' });
    const { id, flow } = found;
    const flowInfo = { title: TITLE, layout: 'stacked', cancel_url: '/flows/-/cancel/' };
    const identification = (errors?: object) => ({
      component: 'ak-stage-identification',
      flow_info: flowInfo,
      user_fields: ['username', 'email'],
      password_fields: false,
      primary_action: 'Log in',
      ...(errors ? { response_errors: errors } : {}),
    });
    const password = (errors?: object) => ({
      component: 'ak-stage-password',
      flow_info: flowInfo,
      pending_user: flow.identified!.email,
      ...(errors ? { response_errors: errors } : {}),
    });
    if (request.method === 'GET') return reply.send(flow.identified ? password() : identification());
    const parsed = parseJson(request.body);
    const body = parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
    if (body.component === 'ak-stage-identification') {
      flow.identified = store.userByEmail(String(body.uid_field ?? ''));
      return reply.send(flow.identified ? password() : identification({ non_field_errors: [{ string: 'Failed to authenticate.', code: 'invalid' }] }));
    }
    if (body.component === 'ak-stage-password' && flow.identified) {
      if (!passwordOf(flow.identified, typeof body.password === 'string' ? body.password : undefined))
        return reply.send(password({ password: [{ string: 'Invalid password', code: 'invalid' }] }));
      flow.signedIn = flow.identified;
      return reply.send({ component: 'xak-flow-redirect', to: `/v3/auth/application/o/authorize/?flow=${id}` });
    }
    return reply.send(flow.identified ? password() : identification());
  }

  function authentikAuthorize(request: FastifyRequest, reply: FastifyReply) {
    const found = authentikFlow(request);
    if (!found?.flow?.signedIn || first(asQuery(request.query), 'flow') !== found.id) return expired(reply);
    flows.delete(found.id);
    return signedIn(reply, found.flow.app, found.flow.signedIn, found.flow.req, found.flow.redirectUri);
  }

  // Okta: the identity engine's identify and password steps (JSON, by state handle), and the redirect the widget sends the browser to.
  function oktaStep(step: 'identify' | 'answer') {
    return (request: FastifyRequest, reply: FastifyReply) => {
      const parsed = parseJson(request.body);
      const body = parsed.ok && isPlainObject(parsed.value) ? parsed.value : {};
      const flow = flows.get(String(body.stateHandle ?? ''));
      if (!flow) return reply.code(401).send({ messages: ['The session has expired.'] });
      if (step === 'identify') {
        flow.identified = store.userByEmail(String(body.identifier ?? ''));
        return reply.send(flow.identified ? { remediation: 'challenge-authenticator' } : { messages: ['There is no account with the Username.'] });
      }
      const credentials = isPlainObject(body.credentials) ? body.credentials : {};
      if (!passwordOf(flow.identified, typeof credentials.passcode === 'string' ? credentials.passcode : undefined))
        return reply.send({ messages: ['Password is incorrect'] });
      flow.signedIn = flow.identified;
      return reply.send({
        success: { name: 'success-redirect', href: `/v3/auth/login/token/redirect?stateToken=${encodeURIComponent(String(body.stateHandle))}` },
      });
    };
  }

  function oktaRedirect(request: FastifyRequest, reply: FastifyReply) {
    const stateToken = first(asQuery(request.query), 'stateToken') ?? '';
    const flow = flows.get(stateToken);
    if (!flow?.signedIn) return expired(reply);
    flows.delete(stateToken);
    return signedIn(reply, flow.app, flow.signedIn, flow.req, flow.redirectUri);
  }

  function routes(app: FastifyInstance): void {
    app.get('/auth/ui/login', oryPage);
    app.post('/auth/self-service/login', oryLogin);
    app.get('/auth/if/flow/default-authentication-flow/', authentikPage);
    app.get('/auth/api/v3/flows/executor/default-authentication-flow/', authentikApi);
    app.post('/auth/api/v3/flows/executor/default-authentication-flow/', authentikApi);
    app.get('/auth/application/o/authorize/', authentikAuthorize);
    app.post('/auth/idp/idx/identify', oktaStep('identify'));
    app.post('/auth/idp/idx/challenge/answer', oktaStep('answer'));
    app.get('/auth/login/token/redirect', oktaRedirect);
  }

  return { start, routes };
}
