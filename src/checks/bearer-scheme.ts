// The Bearer scheme as HTTP defines an authentication scheme: its name is case-insensitive (RFC 9110
// § 11.1; RFC 6750 § 2.1's "Bearer" is an ABNF string, case-insensitive by RFC 5234 § 2.3), and the
// profile's own token record names it `bearer`, which a client may write into the header as it came.
// A server matching the scheme as one spelling refuses those clients every request.
import { type CheckContext, expectStatus, NotRun, statusMatches } from '../check-api';

/** The scheme's name as clients write it besides "Bearer": from the token record's token_type, and in capitals. */
const OTHER_SPELLINGS = ['bearer', 'BEARER'];

/**
 * contracts/decisions.yaml D-BEARER-SCHEME-CASE: the primary token, read GET /users/me with "Bearer "
 * first (else not run: the token checks judge it), is taken the same with the scheme written
 * otherwise (a 2xx answer).
 */
export async function bearerSchemeCase(ctx: CheckContext): Promise<void> {
  const token = ctx.token('full');
  const route = ctx.catalogue.route('GET /users/me');
  const right = await ctx.call(route, { authorization: `Bearer ${token}` });
  if (!statusMatches(right.status, '2xx'))
    throw new NotRun(`GET /users/me refused the primary token as "Bearer <token>" (${right.status}): the token checks judge it`);
  for (const scheme of OTHER_SPELLINGS) {
    const res = await ctx.call(route, { authorization: `${scheme} ${token}` });
    expectStatus(res, '2xx', `the primary token with the scheme written "${scheme}" (RFC 9110 § 11.1: the scheme's name is case-insensitive)`);
  }
}
