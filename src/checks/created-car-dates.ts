// A created car's creationDate and lastUpdateDate are the instant it was created, written with its
// real offset from UTC (vehicle-data-service-v3.md § Car record: "ISO 8601 date-time with UTC offset"):
// a local wall-clock time labelled +00:00 (a column without zone read back as UTC) names another
// instant, an hour or two off. Judged by the server's own clock - the Date header of its answers
// (RFC 9110 § 6.6.1) - never the runner's, with minutes to spare for a slow server and skewed clocks.
import { type CheckContext, CREATED_CAR_PREFIX, expectObjects, expectStatus, fail, NotRun, show, unreadable, validCarBody } from '../check-api';
import { route } from './write-checks';

/** How far from the server's own Date headers a new car's dates may be: far below any zone's offset but UTC's. */
const TOLERANCE_MS = 10 * 60_000;

/** The instant of an answer's Date header (RFC 9110 § 6.6.1), or undefined. */
function dateHeader(headers: Record<string, string>): number | undefined {
  const value = headers.date;
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

export async function coreCarCreatedNow(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const create = route(ctx, 'POST /users/{userId}/cars');
  const list = route(ctx, 'GET /users/{userId}/cars');
  const stamp = ctx.now().toString(36);
  const body: Record<string, unknown> = { ...validCarBody(ctx.now()), model: `Dates ${stamp}`, name: `${CREATED_CAR_PREFIX} dates ${stamp}` };
  const created = await ctx.call(create, { body });
  // The body is the profile's (the spec shows none): refused, it is CAR-CREATE's to judge.
  if (created.status >= 400 && created.status < 500) throw unreadable(`creating a car with the profile's body answered ${created.status}`, 'CAR-CREATE');
  expectStatus(created, '2xx', 'creating a car for the user');
  const listed = await ctx.call(list);
  expectStatus(listed, '2xx', "listing the user's cars");
  const from = dateHeader(created.headers);
  const to = dateHeader(listed.headers);
  if (from === undefined || to === undefined) {
    throw new NotRun("the server's answers carry no Date header (RFC 9110 § 6.6.1): its own clock, which the car's dates are judged by, is unknown");
  }
  const car = expectObjects(listed, "the user's cars").find((c) => c.model === body.model && c.make === body.make);
  if (!car) throw unreadable(`the car created with model ${show(body.model)} is not among the user's cars`, 'CORE-CAR-CREATE');
  // The Date header has a resolution of one second: the creation happened within [from - 1 s, to + 1 s].
  const earliest = from - 1000 - TOLERANCE_MS;
  const latest = to + 1000 + TOLERANCE_MS;
  for (const member of ['creationDate', 'lastUpdateDate']) {
    const value = car[member];
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    // A date of another shape is CORE-CAR-RECORD's to judge.
    if (Number.isNaN(ms)) continue;
    if (ms < earliest || ms > latest) {
      fail({
        expected:
          `the ${member} of a car just created: its creation instant with its real UTC offset, within ${TOLERANCE_MS / 60_000} minutes of the server's own ` +
          `Date headers (${new Date(from).toISOString()} creating it, ${new Date(to).toISOString()} listing it)`,
        actual: `${show(value)}, ${Math.round((ms < earliest ? from - ms : ms - to) / 60_000)} minutes ${ms < earliest ? 'before' : 'after'}`,
        pointer: `/${member}`,
        exchange: listed.exchange,
      });
    }
  }
}
