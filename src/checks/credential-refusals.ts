// What the token endpoint and the sign-in page must refuse: the right credential presented nearly
// right (a code, a refresh token, the client's id and secret, a user's password: check-api
// near-miss.ts), someone else's (another application's secret, the other user's password), in the
// wrong place (the client's credentials in the request URI), or of another kind (an access token as
// a code or a refresh token). And what they must take: the client's credentials in the form RFC 6749
// § 2.3.1 gives HTTP Basic. Requests that change nothing the others read go together, each answer
// judged in turn.
import {
  type ApiResponse,
  basicAuth,
  basicFormsDiffer,
  type CheckContext,
  expectStatus,
  fail,
  FORGED_FORMS,
  forgeInputs,
  forgeries,
  forgingNeedsTheCredential,
  NEAR_MISS_WORDS,
  nearMisses,
  NotApplicable,
  NotRun,
  readJwt,
  restrictedAppTarget,
  together,
  tokenRequest,
} from '../check-api';
import {
  afterRightSignIn,
  codeForTokenEndpoint,
  codeGrant,
  expectInvalidAuthentication,
  expectTokenEndpointError,
  keepIssued,
  requireOauth,
  tokenOf,
} from './token-endpoint';

/** One request of a check and what it presents, judged in turn once all are back. */
interface Attempt {
  what: string;
  send: () => Promise<ApiResponse>;
}

/** Sends the attempts together; each answer's tokens become secrets, then each is judged in turn. */
async function judgeAttempts(ctx: CheckContext, attempts: Attempt[], judge: (res: ApiResponse, what: string) => void): Promise<void> {
  const answers = await together(attempts.map((a) => a.send()));
  for (const res of answers) keepIssued(ctx, res);
  answers.forEach((res, i) => judge(res, attempts[i].what));
}

/** The near-miss forms of a secret, each registered for redaction (it is almost the secret). */
function redactedNearMisses(ctx: CheckContext, secret: string, forms?: Parameters<typeof nearMisses>[1]) {
  const misses = nearMisses(secret, forms);
  ctx.redactor.add(...misses.map((m) => m.value));
  return misses;
}

/**
 * A fresh code presented nearly right is a code never issued: 403 and the legacy body (v3-profile.md §
 * Token endpoint, an invalid code). A server comparing codes by prefix, or case-insensitively, takes one.
 */
export async function tokenCodeNearMiss(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const attempts = redactedNearMisses(ctx, code).map((m) => ({ what: `a fresh code with ${NEAR_MISS_WORDS[m.form]}`, send: () => codeGrant(ctx, m.value) }));
  await judgeAttempts(ctx, attempts, (res, what) => expectInvalidAuthentication(res, `${what} is a code never issued`));
}

/** A refresh token presented nearly right is one never issued: 403 and the legacy body. */
export async function tokenRefreshNearMiss(ctx: CheckContext): Promise<void> {
  const { code } = await codeForTokenEndpoint(ctx);
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'exchanging a fresh code');
  const token = tokenOf(ctx, first, 'exchanging a fresh code');
  if (typeof token.refresh_token !== 'string' || !token.refresh_token) throw new NotRun('the token record has no refresh_token (TOKEN-REFRESH judges it)');
  const attempts = redactedNearMisses(ctx, token.refresh_token).map((m) => ({
    what: `the refresh token with ${NEAR_MISS_WORDS[m.form]}`,
    send: () => tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: m.value }),
  }));
  await judgeAttempts(ctx, attempts, (res, what) => expectInvalidAuthentication(res, `${what} is a refresh token never issued`));
}

/**
 * A refresh token or a code whose format can be read (a JWT), forged as an attacker would (its claims
 * edited under its signature, its signature stripped or replaced, alg "none", HMAC keyed with the
 * published key or an empty one), is a grant never issued: 403 and the legacy body (v3-profile.md §
 * Token endpoint). The refresh token of a fresh code's grant, and a second fresh code; where neither is
 * a JWT there is nothing to forge (not applicable).
 */
export async function tokenGrantForged(ctx: CheckContext): Promise<void> {
  forgingNeedsTheCredential();
  const [{ code }, { code: unused }] = await together([codeForTokenEndpoint(ctx), codeForTokenEndpoint(ctx)]);
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'exchanging a fresh code');
  const { refresh_token: refresh } = tokenOf(ctx, first, 'exchanging a fresh code');
  // Another user's subject (a grant's own subject is never claimed), as a token of the run would claim it.
  const inputs = forgeInputs(ctx.run);
  const forged = (value: string | undefined, what: string, send: (v: string) => Promise<ApiResponse>): Attempt[] => {
    const token = value ? readJwt(value) : undefined;
    return (token ? forgeries(token, FORGED_FORMS, inputs) : []).map((f) => {
      ctx.redactor.add(f.value);
      return { what: `${what} forged: ${f.what}`, send: () => send(f.value) };
    });
  };
  const attempts = [
    ...forged(typeof refresh === 'string' ? refresh : undefined, 'the refresh token', (v) =>
      tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: v }),
    ),
    ...forged(unused, 'a fresh code', (v) => codeGrant(ctx, v)),
  ];
  if (attempts.length === 0) throw new NotApplicable('the refresh token and the code are opaque - neither is a JWT: an opaque grant offers nothing to forge');
  await judgeAttempts(ctx, attempts, (res, what) => expectInvalidAuthentication(res, `${what} is a grant never issued`));
}

/**
 * The client's credentials nearly right are no client credentials: 401 AUTHENTICATION_ERROR (v3-profile.md
 * § Conflicts and decisions; RFC 6749 § 5.2 invalid_client). Presented with a fresh code, as a client
 * would: the secret with one character changed, one shorter, one longer, its case flipped; the client id
 * likewise but its case (an id is not a secret: a server may look it up in any case), with the right
 * secret; and, where the target file gives a second application, its secret with the first one's id
 * (someone else's), and its own secret nearly right. Each in the form of HTTP Basic the server takes
 * (basic-form.ts).
 */
export async function tokenClientNearMiss(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const withClient = (what: string, authorization: string): Attempt => ({ what, send: () => codeGrant(ctx, code, authorization) });
  const attempts = [
    ...redactedNearMisses(ctx, o.clientSecret).map((m) => withClient(`oauth.clientSecret with ${NEAR_MISS_WORDS[m.form]}`, basicAuth(ctx.target, m.value))),
    ...nearMisses(o.clientId, ['changed', 'shorter', 'longer']).map((m) =>
      withClient(`oauth.clientId with ${NEAR_MISS_WORDS[m.form]} (and its secret)`, basicAuth({ ...ctx.target, oauth: { ...o, clientId: m.value } })),
    ),
  ];
  const other = restrictedAppTarget(ctx.target).oauth;
  if (other?.clientId && other.clientSecret && other.clientId !== o.clientId && other.clientSecret !== o.clientSecret) {
    attempts.push(withClient("oauth.clientId with the second application's secret (oauth.restrictedClientSecret)", basicAuth(ctx.target, other.clientSecret)));
    const second = restrictedAppTarget(ctx.target);
    attempts.push(
      ...redactedNearMisses(ctx, other.clientSecret).map((m) =>
        withClient(`oauth.restrictedClientSecret with ${NEAR_MISS_WORDS[m.form]}`, basicAuth(second, m.value)),
      ),
    );
  } else {
    ctx.warn(`no second application's secret was presented (oauth.restrictedClientId and oauth.restrictedClientSecret of ${ctx.target.source})`);
  }
  await judgeAttempts(ctx, attempts, (res, what) =>
    expectTokenEndpointError(res, { status: 401, type: 'AUTHENTICATION_ERROR', why: `${what}: no valid client credentials` }),
  );
}

/**
 * A confidential client's id without its secret is no client authentication (RFC 6749 § 2.3.1, § 3.2.1:
 * a confidential client authenticates at the token endpoint; v3-profile.md § Conflicts and decisions:
 * 401 AUTHENTICATION_ERROR): with a fresh code, client_id in the form and no secret, client_id with an
 * empty client_secret, HTTP Basic with the id and an empty password. A server that compares the secret
 * only when one is given takes the id alone as the client.
 */
export async function tokenClientIdOnly(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const grant = { grant_type: 'authorization_code', code, redirect_uri: o.redirectUri };
  const attempts: Attempt[] = [
    { what: 'client_id in the form and no secret', send: () => tokenRequest(ctx.api, ctx.target, { ...grant, client_id: o.clientId }, null) },
    {
      what: 'client_id and an empty client_secret in the form',
      send: () => tokenRequest(ctx.api, ctx.target, { ...grant, client_id: o.clientId, client_secret: '' }, null),
    },
    { what: 'HTTP Basic with oauth.clientId and an empty password', send: () => codeGrant(ctx, code, basicAuth(ctx.target, '')) },
  ];
  await judgeAttempts(ctx, attempts, (res, what) =>
    expectTokenEndpointError(res, { status: 401, type: 'AUTHENTICATION_ERROR', why: `${what}: a confidential client's id without its secret` }),
  );
}

/**
 * The client's credentials in the request URI are no client credentials: RFC 6749 § 2.3.1 says they
 * MUST NOT be there (they end in logs and proxies); sent there alone (no HTTP Basic, nothing in the
 * body) with a fresh code, they are refused as absent: 401 AUTHENTICATION_ERROR (decision D-CLIENT-IN-URI).
 */
export async function tokenClientInQuery(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const { code } = await codeForTokenEndpoint(ctx);
  const res = await ctx.api.post('/auth/access_token', {
    query: { client_id: o.clientId, client_secret: o.clientSecret },
    form: { grant_type: 'authorization_code', code, redirect_uri: o.redirectUri },
    authorization: null,
    route: 'POST /auth/access_token',
  });
  keepIssued(ctx, res);
  expectTokenEndpointError(res, {
    status: 401,
    type: 'AUTHENTICATION_ERROR',
    why: 'client_id and client_secret in the request URI only, which RFC 6749 § 2.3.1 forbids: no client credentials',
  });
}

/**
 * A credential of another kind where a grant's belongs is an invalid grant: 403 and the legacy body.
 * The run's access token as a code and as a refresh token; a fresh code as a refresh token; a refresh
 * token as a code. A server keeping its tokens in one table without their kind takes them.
 */
export async function tokenOtherKind(ctx: CheckContext): Promise<void> {
  requireOauth(ctx);
  const access = ctx.token('full');
  const [{ code }, { code: unused }] = await together([codeForTokenEndpoint(ctx), codeForTokenEndpoint(ctx)]);
  const first = await codeGrant(ctx, code);
  expectStatus(first, 200, 'exchanging a fresh code');
  const refresh = tokenOf(ctx, first, 'exchanging a fresh code').refresh_token;
  const refreshGrant = (value: string) => () => tokenRequest(ctx.api, ctx.target, { grant_type: 'refresh_token', refresh_token: value });
  const attempts: Attempt[] = [
    { what: "the run's access token (tokens.full) as a code", send: () => codeGrant(ctx, access) },
    { what: "the run's access token (tokens.full) as a refresh token", send: refreshGrant(access) },
    { what: 'a fresh, unused code as a refresh token', send: refreshGrant(unused) },
  ];
  if (typeof refresh === 'string' && refresh) attempts.push({ what: 'a refresh token as a code', send: () => codeGrant(ctx, refresh) });
  else ctx.warn('the token record has no refresh_token: no refresh token was presented as a code (TOKEN-REFRESH judges it)');
  await judgeAttempts(ctx, attempts, (res, what) => expectInvalidAuthentication(res, `${what} is not a valid grant`));
}

/**
 * The client's credentials in the form RFC 6749 § 2.3.1 gives HTTP Basic: each form-urlencoded before
 * they are joined with ':' and base64-encoded. Where that form is the raw one (nothing in the id and
 * secret it would encode) there is nothing to tell: not applicable. Else a fresh code exchanged with
 * the RFC's form is not refused for its client (401); a server that refuses it and takes the raw form
 * fails here, and only here: every other check of the run goes on with the form it takes (basic-form.ts).
 */
export async function tokenClientEncoded(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const apps = [ctx.target, restrictedAppTarget(ctx.target)].filter(
    (t, i) =>
      t.oauth?.clientId && t.oauth.clientSecret && basicFormsDiffer(t.oauth.clientId, t.oauth.clientSecret) && (i === 0 || t.oauth.clientId !== o.clientId),
  );
  if (apps.length === 0) {
    throw new NotApplicable(
      "the applications' client ids and secrets hold no character RFC 6749 § 2.3.1's form encodes (a space, + % & : / or non-ASCII...): both forms of HTTP Basic are the same",
    );
  }
  // A never-issued grant tells whether the client is taken; the first application's with a fresh code, as a client sends it.
  const { code } = await codeForTokenEndpoint(ctx);
  const neverIssued = { grant_type: 'authorization_code', code: 'vds-conformance-never-issued-code' };
  for (const app of apps) {
    const which = app === ctx.target ? 'oauth.clientId and oauth.clientSecret' : 'oauth.restrictedClientId and oauth.restrictedClientSecret';
    const grant = app === ctx.target ? { grant_type: 'authorization_code', code, redirect_uri: o.redirectUri } : neverIssued;
    const [rfc, raw] = await together([
      tokenRequest(ctx.api, app, grant, basicAuth(app, undefined, 'rfc')),
      tokenRequest(ctx.api, app, neverIssued, basicAuth(app, undefined, 'raw')),
    ]);
    keepIssued(ctx, rfc);
    if (rfc.status !== 401) continue;
    if (raw.status === 401) throw new NotRun(`the token endpoint refuses ${which} of ${ctx.target.source} in either form of HTTP Basic (401): check them`);
    fail({
      expected: `the client credentials (${which}) taken in HTTP Basic as RFC 6749 § 2.3.1 writes them: each form-urlencoded, then joined with ':' and base64-encoded`,
      actual: `status 401 to that form, while the same credentials raw (not form-urlencoded) were taken (status ${raw.status}): the server does not decode them`,
      exchange: rfc.exchange,
    });
  }
}

/** Wrong passwords sent in a row before the right one again: fewer than the three a lock commonly follows. */
const WRONG_IN_A_ROW = 2;

/**
 * A password nearly right lets no one in: signing in with the primary user's password with one
 * character changed in the middle, its last dropped, one more, or with the other user's password,
 * issues no code (the browser is not sent to redirect_uri with one). Its letters' case flipped is not
 * tried: some services accept a password typed with caps lock on, by design (decision D-PASSWORD-NEAR-MISS).
 * The right password first, on the same page: a page that gives no code to it shows nothing here.
 */
export async function signinPasswordNearMiss(ctx: CheckContext): Promise<void> {
  const o = requireOauth(ctx);
  const wrong = redactedNearMisses(ctx, o.password, ['changed', 'shorter', 'longer']).map((m) => ({
    what: `oauth.password with ${NEAR_MISS_WORDS[m.form]}`,
    password: m.value,
  }));
  const otherPassword = ctx.target.oauth?.otherPassword;
  if (otherPassword && otherPassword !== o.password) wrong.push({ what: "the other user's password (oauth.otherPassword)", password: otherPassword });
  await afterRightSignIn(ctx, async (_code, attempt) => {
    const right = async (after: string) => {
      const signed = await attempt(o.password);
      if (!signed.code)
        throw new NotRun(
          `signing in with the right password${after} gave no code (${ctx.redactor.redact(signed.problem ?? 'no redirect')}): the sign-in checks judge it`,
        );
      ctx.redactor.add(signed.code);
    };
    // At most WRONG_IN_A_ROW wrong passwords, then the right one: a server that locks an account after
    // three failures in a row (as Keycloak's brute-force detection does) is never locked by the check,
    // and the run's other sign-ins of the user go on.
    for (let i = 0; i < wrong.length; i += WRONG_IN_A_ROW) {
      const tried = wrong.slice(i, i + WRONG_IN_A_ROW);
      const answers = await together(tried.map((w) => attempt(w.password)));
      answers.forEach((signed, j) => {
        if (!signed.code) return;
        ctx.redactor.add(signed.code);
        fail({
          expected: `signing in as oauth.username with ${tried[j].what} is refused: no redirect to redirect_uri with a code`,
          actual: `a redirect with a code (${ctx.redactor.redact(signed.redirectedTo ?? '')})`,
        });
      });
      await right(` after ${tried.length} wrong ones`);
    }
  });
}
