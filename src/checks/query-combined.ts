// Query parameters in combination: limit within a range or within the default range, the signal
// name filter by exact name, inclusive=true still bounded by the range; never assuming which items a
// limit keeps nor the order of a list (neither document states them).
import { type CheckContext, expectArray, expectObjects, expectStatus, fail, NotRun, rfc3339, sameNumber, show } from '../check-api';
import { CLOCK_SKEW_MS, dateOf, datesOf, type Item, itemsInWindow, missingFrom, monthStartOf } from './query';

/** An instant's whole second, as the checks write range bounds. */
function wholeSecond(t: number): number {
  return Math.floor(t / 1000) * 1000;
}

/**
 * A short range among dated items with items before and after it: it begins at the second of an item
 * near the middle and ends a second after a later item, grown item by item until at least `want` items
 * lie strictly inside it (whether an item at a bound is in the range is not documented, so those are
 * not counted). Short, so that its answer is small whatever page size a server applies by default.
 */
function innerRange(dates: number[], want: number): { begin: number; end: number; inside: number } | undefined {
  const sorted = dates.filter((t) => !Number.isNaN(t)).sort((a, b) => a - b);
  const seconds = [...new Set(sorted.map(wholeSecond))];
  if (seconds.length < 3) return undefined;
  const begin = seconds[Math.floor(seconds.length / 2)];
  let found: { begin: number; end: number; inside: number } | undefined;
  for (let k = seconds.indexOf(begin); k < seconds.length - 1; k++) {
    const end = seconds[k] + 1000;
    if (!sorted.some((t) => t > end)) break;
    const inside = sorted.filter((t) => t > begin && t < end).length;
    if (inside > 0) found = { begin, end, inside };
    if (inside >= want) break;
  }
  return found;
}

/** The positions of `answer` that are no [longitude, latitude] of `locations`, each location matched once. */
function positionsNotAmong(answer: unknown[], locations: Item[]): number[] {
  const left = [...locations];
  return answer.flatMap((point, i) => {
    const p = (point as Item | null)?.coordinates;
    const at = Array.isArray(p) ? left.findIndex((l) => sameNumber(p[0], l.longitude) && sameNumber(p[1], l.latitude)) : -1;
    if (at < 0) return [i];
    left.splice(at, 1);
    return [];
  });
}

/**
 * limit is the most items of the answer the other parameters define: with begin and end, limit=n over
 * a range holding at least n items answers exactly n of them - not fewer (a limit taken from the whole
 * history before the range filter leaves a range in the past short, or empty), and none from elsewhere.
 * The range is a short one inside the data window, with items before and after it. Which n items are
 * kept (the most recent, the oldest) is not stated, nor the order: only their count and range are
 * judged. The car GeoJSON's positions carry no date: the range is chosen on the car's locations, and
 * each position must be one of theirs over that range.
 */
export async function queryLimitRange(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const dated = route.dates.length > 0;
  const source = dated ? route : ctx.catalogue.route('GET /cars/{carId}/locations');
  const window = await itemsInWindow(ctx, source);
  const range = innerRange(
    window.map((item) => dateOf(source, item)),
    3,
  );
  if (!range) {
    throw new NotRun(
      `the data window holds too few ${dated ? 'items' : 'locations'} at distinct dates to choose a range with some before, inside and after it`,
    );
  }
  const bounds = { begin: rfc3339(new Date(range.begin)), end: rfc3339(new Date(range.end)) };
  let locations: Item[] = [];
  if (!dated) {
    const res = await ctx.call(source, { query: bounds });
    expectStatus(res, source.success.status, 'the locations of the range');
    locations = expectObjects(res, 'locations');
    if (locations.length < range.inside) {
      throw new NotRun(
        `GET /cars/{carId}/locations over begin=${bounds.begin} and end=${bounds.end} answered ${locations.length} of the ${range.inside} locations the window shows in it: the positions cannot be matched (QUERY-RANGE judges the locations route)`,
      );
    }
  }
  for (const n of new Set([1, Math.min(3, range.inside)])) {
    const res = await ctx.call(route, { query: { ...bounds, limit: String(n) } });
    expectStatus(res, route.success.status, `limit=${n}`);
    const items = dated ? expectObjects(res, 'items') : expectArray(res, 'positions');
    const asked = `limit=${n} with begin=${bounds.begin} and end=${bounds.end} (a range holding at least ${range.inside} ${dated ? 'item(s)' : 'location(s)'})`;
    if (items.length !== n) {
      fail({
        expected: `${asked}: exactly ${n} ${dated ? 'item(s)' : 'position(s)'} of that range (limit is the most of the range's items answered)`,
        actual: `${items.length}`,
        exchange: res.exchange,
      });
    }
    if (dated) {
      const outside = items.findIndex((item) => !datesOf(route, item as Item).every((t) => t >= range.begin && t <= range.end));
      if (outside >= 0) {
        const item = items[outside] as Item;
        fail({
          expected: `${asked}: items of that range only`,
          actual: `item ${outside} has ${route.dates.map((f) => `${f} ${show(item[f])}`).join(', ')}`,
          pointer: `/${outside}`,
          exchange: res.exchange,
        });
      }
    } else {
      const stranger = positionsNotAmong(items, locations);
      if (stranger.length) {
        fail({
          expected: `${asked}: positions of the car's ${locations.length} locations of that range`,
          actual: `position ${stranger[0]} ${show(items[stranger[0]])} is none of them`,
          pointer: `/${stranger[0]}`,
          exchange: res.exchange,
        });
      }
    }
  }
}

/**
 * limit applies to the default range too (the 1st of the month 00:00:00+00:00 to now): limit=1 answers
 * one item of it, and a limit larger than the items the default answer holds answers them and nothing
 * from before the month (a "latest n" shortcut taking them from the whole history shows there). Not
 * run when the car has no item this month (it was not driven: nothing to limit).
 */
export async function queryLimitDefaultRange(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const requestedAt = ctx.now();
  const monthStart = monthStartOf(requestedAt);
  const res = await ctx.call(route);
  expectStatus(res, route.success.status, 'without begin, end and limit');
  const all = expectObjects(res, 'items');
  // Items of the last minutes, which a clock difference may put on either side of now, are not counted.
  const held = all.filter((item) => datesOf(route, item).every((t) => t >= monthStart && t <= requestedAt - CLOCK_SKEW_MS)).length;
  if (held === 0) {
    throw new NotRun(
      'the default range (the 1st of the month 00:00:00+00:00 to now) holds no item of the car before the last minutes (not driven this month?): limit over it cannot be observed',
    );
  }
  for (const n of [1, all.length + 1]) {
    const limited = await ctx.call(route, { query: { limit: String(n) } });
    const answeredAt = ctx.now();
    if (monthStartOf(answeredAt) !== monthStart) throw new NotRun('the month changed during the check: its default range moved');
    expectStatus(limited, route.success.status, `limit=${n}`);
    const items = expectObjects(limited, 'items');
    const least = Math.min(n, held);
    const asked = `limit=${n} without begin and end (the default range holds at least ${held} item(s); the answer without limit held ${all.length})`;
    if (items.length > n || items.length < least) {
      fail({
        expected: `${asked}: ${least === n ? `exactly ${n}` : `${least} to ${n}`} items of the default range`,
        actual: `${items.length} items`,
        exchange: limited.exchange,
      });
    }
    const outside = items.findIndex((item) => !datesOf(route, item).every((t) => t >= monthStart && t <= answeredAt + CLOCK_SKEW_MS));
    if (outside >= 0) {
      fail({
        expected: `${asked}: items since ${rfc3339(new Date(monthStart))} (the 1st of the month) and not after now only`,
        actual: `item ${outside} has ${route.dates.map((f) => `${f} ${show(items[outside][f])}`).join(', ')}`,
        pointer: `/${outside}`,
        exchange: limited.exchange,
      });
    }
  }
}

/**
 * The name filter selects signals by exact name: name=X answers only X signals, and every X signal of
 * the unfiltered answer, for a single name (no comma) and for a name contained in another name the car
 * reports (FuelLevel in ComputedFuelLevel, both in the profile's catalogue), tried both ways. A car that
 * reports no such pair is tried on one name, with a warning.
 */
export async function signalNameExact(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const range = route.query.includes('begin') ? ctx.window() : {};
  const unfiltered = await ctx.call(route, { query: range });
  expectStatus(unfiltered, route.success.status);
  const all = expectObjects(unfiltered, 'signals');
  const names = [...new Set(all.map((s) => s.name).filter((n): n is string => typeof n === 'string'))];
  if (names.length === 0) throw new NotRun('the data holds no signal: a name filter cannot be observed');
  const pair = names.flatMap((short) => names.filter((long) => long !== short && long.includes(short)).map((long) => [short, long])).at(0);
  if (!pair) ctx.warn(`no signal name the data holds is contained in another (${names.join(', ')}): one name tried, not a name against a longer one`);
  for (const name of pair ?? [names[0]]) {
    const res = await ctx.call(route, { query: { ...range, name } });
    expectStatus(res, route.success.status, `name=${name}`);
    const filtered = expectObjects(res, 'signals');
    const other = filtered.findIndex((s) => s.name !== name);
    if (other >= 0) {
      fail({
        expected: `name=${name} (one name): only signals named exactly ${name}`,
        actual: `a signal named ${show(filtered[other].name)}`,
        pointer: `/${other}/name`,
        exchange: res.exchange,
      });
    }
    const expected = all.filter((s) => s.name === name);
    const missing = missingFrom(route, filtered, expected);
    if (missing.length) {
      fail({
        expected: `name=${name}: the ${expected.length} ${name} signal(s) of the unfiltered answer`,
        actual: `${missing.length} of them missing (${filtered.length} answered), e.g. ${show(missing[0])}`,
        exchange: res.exchange,
      });
    }
  }
}

/**
 * inclusive=true adds the trips that started or ended in the range, and only those: a range around
 * one trip of the data window, whose other trips lie wholly before or after it, lists none of them
 * (nor any other trip that neither started nor ended in it). That the straddling trips are added is
 * QUERY-TRIPS-INCLUSIVE's.
 */
export async function tripsInclusiveRange(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const trips = (await itemsInWindow(ctx, route))
    .map((trip) => ({ trip, b: Date.parse(String(trip.beginDate)), e: Date.parse(String(trip.endDate)) }))
    .filter((t) => !Number.isNaN(t.b) && !Number.isNaN(t.e))
    .sort((x, y) => x.b - y.b);
  const middle = trips[Math.floor(trips.length / 2)];
  if (!middle) throw new NotRun('no trip with dates in the data window');
  const begin = wholeSecond(middle.b);
  const end = wholeSecond(middle.e) + 1000;
  const outside = trips.filter((t) => t.e < begin || t.b > end);
  if (outside.length === 0) {
    throw new NotRun(`the data window holds no trip wholly before or after trip ${show(middle.trip.id)}: leaving such trips out cannot be observed`);
  }
  const query = { begin: rfc3339(new Date(begin)), end: rfc3339(new Date(end)), inclusive: 'true' };
  const res = await ctx.call(route, { query });
  expectStatus(res, route.success.status);
  const within = (t: number) => t >= begin && t <= end;
  expectObjects(res, 'trips').forEach((trip, i) => {
    const [b, e] = [Date.parse(String(trip.beginDate)), Date.parse(String(trip.endDate))];
    // A trip without readable dates is RESP-CONTRACT's to fail, not this check's.
    if (Number.isNaN(b) || Number.isNaN(e) || within(b) || within(e)) return;
    const where = e < begin ? 'ended before begin' : b > end ? 'started after end' : 'started before begin and ended after end';
    fail({
      expected: `inclusive=true with begin=${query.begin} and end=${query.end}: only trips that started or ended in the range (${outside.length} trip(s) of the window lie wholly outside it)`,
      actual: `trip ${show(trip.id)} ${where} (beginDate ${show(trip.beginDate)}, endDate ${show(trip.endDate)})`,
      pointer: `/${i}`,
      exchange: res.exchange,
    });
  });
}
