// Proves that each token minted through the sign-in page is what it was minted for before a check
// relies on it: a token asked for "every scope but X" must be refused for the scope where X is
// needed, and accepted where it is not. An unproven token is dropped and the checks needing it are
// reported as not run, with the reason: the run goes on. A server may read an empty or unknown scope
// request its own way (v3-profile.md § Sign-in page says nothing of it: noScopes); but a token asked
// for a non-empty list of the application's scopes that grants one more broke its word ("the token
// gets the requested scopes"): that is returned too, for TOKEN-SCOPES-KEPT to fail.
import { NoAnswerError, type ApiClient, type ApiResponse } from '../transport/api';
import { fillRoute, type Catalogue, type Route } from '../catalogue/catalogue';
import type { Preparation } from './preparation';
import type { RunContext } from './run-context';
import { unknownIdLike } from '../catalogue/templates';
import { SCOPES, type Scope, type Target, type TokenKey } from './target';

const SCOPE_MESSAGE = 'Token does not have the required scope';
/** Routes tried per token before giving up on proving it lacks a scope. */
const MAX_PROBES = 3;

type Run = Pick<RunContext, 'tokens' | 'tokenNotes' | 'data'>;

function refusedForScope(res: ApiResponse): boolean {
  return res.status === 403 && Array.isArray(res.json) && res.json.some((e) => (e as { message?: unknown })?.message === SCOPE_MESSAGE);
}

/**
 * Checks the scope-limited ones of the tokens signed in (`signedIn`); drops and notes the ones not proven.
 * The tokens are proven side by side, and each one's requests go together (none depends on another's
 * answer): a distant server costs the proofs a round trip or two, not one per request.
 */
export async function proveTokens(prep: Pick<Preparation, 'target' | 'catalogue' | 'api'> & { run: Run }, signedIn: TokenKey[]): Promise<string[]> {
  const { target, catalogue, run, api } = prep;
  const scopeLimited = signedIn.filter((k) => k === 'noScopes' || k.startsWith('withoutScope.'));
  const grantsMore: string[] = [];
  await Promise.all(
    scopeLimited.map(async (key) => {
      const token = run.tokens[key];
      if (!token) return;
      const lacking: Scope[] = key === 'noScopes' ? [...SCOPES] : [key.slice('withoutScope.'.length) as Scope];
      const problem = await disproof(api, target, catalogue, run, token, lacking, key === 'noScopes');
      if (!problem) return;
      // Asked for every scope of the application but one, it served where that one is needed.
      if (key !== 'noScopes' && problem.includes(NOT_REFUSED)) grantsMore.push(`tokens.${key}, signed in for every scope but ${lacking[0]}: ${problem}`);
      delete run.tokens[key];
      run.tokenNotes[key] =
        `tokens.${key} was minted through the sign-in page, but ${problem}: it is not a token ${key === 'noScopes' ? 'without any scope' : `without ${lacking[0]}`} ` +
        `(the documents do not say how a server reads such a scope request). Give one as tokens.${key} in ${target.source}`;
    }),
  );
  return grantsMore.sort();
}

const NOT_REFUSED = 'it was not refused for a missing scope';

/** Why the token is not proven to lack `lacking`, or undefined when it is. */
async function disproof(
  api: ApiClient,
  target: Target,
  catalogue: Catalogue,
  run: Run,
  token: string,
  lacking: Scope[],
  none: boolean,
): Promise<string | undefined> {
  const authorization = `Bearer ${token}`;
  const probes = catalogue.routes
    .filter((r) => !r.public && r.scopes.some((s) => lacking.includes(s)))
    .map((r) => probeRequest(r, run, target))
    .filter((p): p is ProbeRequest => p !== undefined);
  const ask = (p: ProbeRequest) => settled(answerOf(api.request(p.method, p.path, { authorization, body: p.body, query: p.query, route: p.route })));
  // The request where the token must be accepted and the first MAX_PROBES where it must be refused, together.
  const elsewhere = none ? undefined : catalogue.route(lacking[0] === 'users_read' ? 'GET /users/me/cars' : 'GET /users/me');
  const accepted = elsewhere ? settled(answerOf(api.get(elsewhere.path, { authorization, route: elsewhere.route }))) : undefined;
  let asked = probes.slice(0, MAX_PROBES).map(ask);
  if (elsewhere) {
    const res = await accepted;
    if (!res) return `${elsewhere.route}, which does not need ${lacking[0]}, gave no answer`;
    if (res.status !== 200) return `it was refused (${res.status}) on ${elsewhere.route}, which does not need ${lacking[0]}`;
  }
  const tried: string[] = [];
  // Judged in the catalogue's order, as if asked one after another.
  for (let i = 0; i < probes.length && tried.length < MAX_PROBES; i++) {
    // A route that gave no answer proves nothing either way (its own checks fail on it): the next one counts
    // instead, asked (with as many more as may still be needed) when its turn comes.
    if (i >= asked.length) asked = [...asked, ...probes.slice(i, i + MAX_PROBES - tried.length).map(ask)];
    const res = await asked[i];
    const p = probes[i];
    if (!res) continue;
    if (refusedForScope(res)) return undefined;
    tried.push(`${p.route} answered ${res.status}`);
  }
  // Nothing answered where it lacks a scope (no ids, no writes, no answer): nothing disproves it, and the
  // checks needing it there are not run, or fail on the missing answer itself.
  if (tried.length === 0) return undefined;
  return `${NOT_REFUSED} where ${none ? 'a scope' : lacking[0]} is needed (${tried.join('; ')})`;
}

/** A request sent ahead and perhaps never awaited (the proof decided before its turn): its failure is not unhandled. */
function settled<T>(request: Promise<T>): Promise<T> {
  request.catch(() => undefined);
  return request;
}

/** The answer, or undefined when the request got none (a time-out, a dropped connection, a route the run no longer asks). */
async function answerOf(request: Promise<ApiResponse>): Promise<ApiResponse | undefined> {
  try {
    return await request;
  } catch (err) {
    if (err instanceof NoAnswerError) return undefined;
    throw err;
  }
}

interface ProbeRequest {
  method: string;
  path: string;
  route: string;
  query?: Record<string, string>;
  body?: unknown;
}

/**
 * A request to the route that a token lacking its scope must see refused, and that changes nothing
 * on a server that does not check the scope: GETs with the run's ids; car creation with an empty
 * (invalid) body; device routes on a device that does not exist. POSTs only where writes are allowed.
 */
function probeRequest(route: Route, run: Run, target: Target): ProbeRequest | undefined {
  if (route.method !== 'GET' && !target.allowWrites) return undefined;
  const ids: Record<string, string | undefined> = {
    userId: run.data.userId,
    carId: run.data.carId,
    tripId: run.data.tripId,
    deviceId: unknownIdLike(run.data.deviceForCarId ?? 'VDS0000000'),
    pin: '0000',
  };
  const filled = fillRoute(route, (name) => ids[name]);
  if (!filled) return undefined;
  return { method: route.method, path: filled.path, route: route.route, query: filled.query, body: route.method === 'POST' ? {} : undefined };
}
