// A request without a token is refused however else it is written: the layers in front of a route
// (a framework's generated HEAD route, an entity-tag layer answering If-None-Match) run before or
// beside the authentication the route itself was given, and answer a caller without a token what
// the route refuses it. HEAD is GET without content (RFC 9110 § 9.3.2); preconditions are ignored
// where the answer without them would not be a success (RFC 9110 § 13.2.1): neither makes the
// missing Authorization header matter less.
import { type CheckContext, expectError, fail, NotRun, show, statusMatches } from '../check-api';
import { callValid, validQuery } from './responses';

/**
 * The spec's part: in the cloud, HEAD on a protected read route without an Authorization header is
 * not answered as a success (2xx) nor "not modified" (304): the cloud requires the header. Any other
 * answer will do (401, or 404 / 405 where a server serves no HEAD).
 */
export async function coreHeadRefused(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const { path, query } = ctx.resolve(route);
  const res = await ctx.api.request('HEAD', path, { query, authorization: null, route: route.route, credential: 'none' });
  if (statusMatches(res.status, '2xx') || res.status === 304) {
    fail({
      expected: `HEAD ${route.route} without an Authorization header is refused as its GET is (HEAD is GET without content, RFC 9110 § 9.3.2; the cloud requires the header): no 2xx nor 304`,
      actual: `status ${res.status}`,
      exchange: res.exchange,
    });
  }
}

/**
 * The profile's part: right after the primary user's success, the same URL without an Authorization
 * header but with If-None-Match - the entity tag that success carried (where it carried one), and "*" -
 * is 401 "Authorization is missing", never 304: the precondition is ignored (RFC 9110 § 13.2.1).
 */
export async function conditionalStillRefused(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const first = await callValid(ctx, route);
  if (!statusMatches(first.status, '2xx')) {
    throw new NotRun(
      `the primary user's request answered ${first.status}, not a success whose entity tag could be named (CORE-ROUTE-ANSWERS judges the route)`,
    );
  }
  const etag = first.headers.etag;
  const tags = [...(typeof etag === 'string' && etag ? [etag] : []), '*'];
  // The same URL as the first request: its data window where callValid added one.
  const query = validQuery(ctx, route);
  for (const tag of tags) {
    const res = await ctx.call(route, { query, authorization: null, headers: { 'if-none-match': tag } });
    expectError(res, {
      status: 401,
      type: 'AUTHENTICATION_ERROR',
      message: 'Authorization is missing',
      why: `If-None-Match: ${show(tag)} (${tag === '*' ? 'any entity tag' : "the primary user's success's entity tag"}) changes nothing without a token, RFC 9110 § 13.2.1`,
    });
  }
}
