// Broken object level authorization through the query (OWASP API1): a route that checks the owner of
// the resource its path names, then reads the resource a query parameter of the same name names (a
// helper preferring a legacy ?carId= to the path, a framework merging query and path parameters),
// answers another user's data to a token that cannot access it. The primary user's request on their
// own resource, with the second user's id of that kind in the query under the path parameter's name,
// must be refused or answer about the path's resource: never what the second user reads with their
// own token on their resource (v3-profile.md § Errors: a token that cannot access the user / car /
// trip is refused). Generated for every protected read route with a path id, from the catalogue.
import { type CheckContext, canonicalJson, documentedKey, fail, NotRun, resourceParam, show, statusMatches, together, OTHER_ID } from '../check-api';
import { callValid, validQuery } from './responses';

export async function pathIdInQuery(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const param = resourceParam(route);
  const otherId = ctx.data(OTHER_ID[param]);
  ctx.token('otherUser');
  // The same query on the three requests: the run's data window where the route may answer "no data".
  const query = validQuery(ctx, route);
  const [own, mixed, theirs] = await together([
    callValid(ctx, route),
    ctx.call(route, { query: { ...query, [param]: otherId } }),
    ctx.call(route, { query, ids: { [param]: otherId }, token: 'otherUser' }),
  ]);
  // Refused (the parameter is not the route's, or names what the token cannot access): nothing disclosed.
  if (!statusMatches(mixed.status, '2xx')) return;
  if (!statusMatches(own.status, '2xx') || !statusMatches(theirs.status, '2xx')) {
    throw new NotRun(
      `the primary user's own request answered ${own.status} and the second user's on their ${param} ${theirs.status}: ` +
        'without both answers there is nothing to tell the two resources apart (CORE-ROUTE-ANSWERS judges the route)',
    );
  }
  // Compared on the members the documents show: a vendor's member (a request id) differs every time.
  const contract = route.success.contract;
  const key = (r: typeof own) => (contract && r.json !== undefined ? documentedKey(contract, r.json) : canonicalJson(r.json ?? r.text));
  const [o, m, t] = [own, mixed, theirs].map(key);
  if (m === t && m !== o) {
    fail({
      expected:
        `${route.route} for the primary user's own ${param} with ${param}=${otherId} (the second user's) in the query is refused (4xx) ` +
        `or answers about the path's ${param}: a token that cannot access another user's resource never gets its data`,
      actual: `${mixed.status}, the second user's data (as they read it with their own token): ${show(mixed.json ?? mixed.text)}`,
      exchange: mixed.exchange,
    });
  }
  if (o === t) ctx.warn(`the two users' answers on ${route.route} are the same: an answer taken from the query's ${param} would not show here`);
}
