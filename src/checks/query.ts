// Query parameters, each checked on the data it returns (not only on the status): limit, begin/end
// and their defaults, signal names, inclusive, initialValue, and statistics over an empty range (in
// combination: query-combined.ts).
import {
  canonicalJson,
  type CheckContext,
  documentedKey,
  expectArray,
  expectError,
  expectJson,
  expectObject,
  expectObjects,
  expectStatus,
  fail,
  NotRun,
  rfc3339,
  type Route,
  sameNumber,
  sameValue,
  show,
  together,
} from '../check-api';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Tolerance between the target's clock and ours when checking "not after now". */
export const CLOCK_SKEW_MS = 5 * 60_000;

export type Item = Record<string, unknown>;

export function dateOf(route: Route, item: Item, field = route.dates[0]): number {
  return Date.parse(String(item[field]));
}

/** The route's items over the run's data window, which must hold some for the check to mean anything. */
export async function itemsInWindow(ctx: CheckContext, route: Route, extra: Record<string, string> = {}): Promise<Item[]> {
  const res = await ctx.call(route, { query: { ...ctx.window(), ...extra } });
  expectStatus(res, route.success.status);
  return expectObjects(res, 'items');
}

/**
 * An item's identity in two answers of one route: its documented members (the route's contract), in
 * a fixed key order. Members the documents do not show may differ from answer to answer.
 */
function recordKey(route: Route, item: unknown): string {
  const contract = route.success.contract?.replace(/\[\]$/, '');
  // The same items are compared many times (each limit, each form of a date): each key is made once.
  const memo = item && typeof item === 'object' ? keysOf(contract) : undefined;
  const known = memo?.get(item as object);
  if (known !== undefined) return known;
  const key = contract ? documentedKey(contract, item) : canonicalJson(item);
  memo?.set(item as object, key);
  return key;
}

/** Per contract, the keys made of items (answers' parsed records, never changed once read). */
const recordKeys = new Map<string, WeakMap<object, string>>();
function keysOf(contract: string | undefined): WeakMap<object, string> {
  const name = contract ?? '';
  let keys = recordKeys.get(name);
  if (!keys) recordKeys.set(name, (keys = new WeakMap()));
  return keys;
}

/** The items of `expected` that `answer` does not hold (compared on their documented members). */
export function missingFrom(route: Route, answer: Item[], expected: Item[]): Item[] {
  const answered = new Set(answer.map((item) => recordKey(route, item)));
  return expected.filter((item) => !answered.has(recordKey(route, item)));
}

/**
 * limit=0, 1 and n over the run's window: at most that many items, each of the window. "Of the window"
 * is read on the items' dates, not as "among the answer without limit": neither document states a
 * page size, and a server may answer a default page of the newest items while a limit keeps the oldest.
 * The GeoJSON positions (no dates) are matched with the car's locations by QUERY-LIMIT-RANGE, over a
 * range short enough for any page.
 */
export async function queryLimit(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const all = await itemsInWindow(ctx, route);
  if (all.length === 0) throw new NotRun('the data window holds no item for this route, so limit cannot be observed');
  const window = ctx.window();
  const [begin, end] = [Date.parse(window.begin), Date.parse(window.end)];
  const n = Math.min(3, Math.max(1, all.length - 1));
  for (const limit of new Set([0, 1, n])) {
    const res = await ctx.call(route, { query: { ...ctx.window(), limit: String(limit) } });
    expectStatus(res, route.success.status, `limit=${limit}`);
    const items = expectArray(res, 'items');
    if (limit === 0 && items.length > 0) {
      // "max items returned": that 0 means none (and not "no limit") is an inference. Read as "no
      // limit", it may also answer more than a request without limit, where a server may apply a
      // default page size (neither document states one): its items are not compared.
      ctx.warn(`limit=0 answered ${items.length} items: read as "no limit" rather than "no item"`);
      continue;
    }
    if (items.length > limit) {
      fail({ expected: `at most ${limit} item(s) with limit=${limit}`, actual: `${items.length} items`, exchange: res.exchange });
    }
    if (route.dates.length === 0) continue;
    // An item without readable dates is RESP-CONTRACT's to judge.
    const outside = items.findIndex((i) => i && typeof i === 'object' && datesOf(route, i as Item).some((t) => !Number.isNaN(t) && (t < begin || t > end)));
    if (outside >= 0) {
      fail({
        expected: `with limit=${limit}, items of the window begin=${window.begin} end=${window.end} only`,
        actual: `item ${show(items[outside])} is not in it`,
        pointer: `/${outside}`,
        exchange: res.exchange,
      });
    }
  }
}

/** An item's dates: one for history items, begin and end for trips. */
export function datesOf(route: Route, item: Item): number[] {
  return route.dates.map((f) => dateOf(route, item, f));
}

/**
 * The sub-range's end: one second after an item near the middle of the window (so the answer must
 * hold that item), preferring an item not at a whole minute, where an end rounded to the minute
 * would drop it.
 */
function subRangeEnd(route: Route, all: Item[]): number | undefined {
  const lasts = all
    .map((i) => Math.max(...datesOf(route, i)))
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b);
  if (lasts.length < 2 || lasts[0] === lasts[lasts.length - 1]) return undefined;
  const middle = lasts.slice(Math.floor(lasts.length / 3), Math.ceil((2 * lasts.length) / 3) + 1);
  const anchor = middle.find((t) => new Date(t).getUTCSeconds() >= 1 && new Date(t).getUTCSeconds() <= 58) ?? middle[0];
  return Math.floor(anchor / 1000) * 1000 + 1000;
}

/**
 * With begin and end, the answer holds exactly the window's items that lie in the sub-range: none
 * outside it, none of those inside it missing. The sub-range ends just after an item, so that the
 * window has items on both sides.
 */
export async function queryRange(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const all = await itemsInWindow(ctx, route);
  const endMs = subRangeEnd(route, all);
  if (endMs === undefined) {
    throw new NotRun('the data window holds fewer than two distinct dates for this route, so a range inside it cannot be chosen');
  }
  const begin = new Date(Date.parse(ctx.window().begin));
  const end = new Date(endMs);
  const res = await ctx.call(route, { query: { begin: rfc3339(begin), end: rfc3339(end) } });
  expectStatus(res, route.success.status);
  const items = expectObjects(res, 'items');
  const trips = route.dates.length === 2;
  const range = `begin=${rfc3339(begin)} and end=${rfc3339(end)}`;
  items.forEach((item, i) => {
    if (!datesOf(route, item).every((t) => t >= begin.getTime() && t <= end.getTime())) {
      fail({
        expected: `every item ${trips ? 'started and ended' : 'dated'} within ${range}`,
        actual: `item ${i} has ${route.dates.map((f) => `${f} ${show(item[f])}`).join(', ')}`,
        pointer: `/${i}`,
        exchange: res.exchange,
      });
    }
  });
  // Completeness: the window's items strictly inside the sub-range (bounds' inclusiveness is not documented).
  const missing = missingFrom(
    route,
    items,
    all.filter((item) => datesOf(route, item).every((t) => t > begin.getTime() && t < end.getTime())),
  );
  if (missing.length) {
    fail({
      expected: `every item of the window ${trips ? 'that started and ended' : 'dated'} within ${range}`,
      actual: `${missing.length} missing, e.g. ${route.dates.map((f) => `${f} ${show(missing[0][f])}`).join(', ')}`,
      exchange: res.exchange,
    });
  }
}

/**
 * Without begin and end, the answer is that of begin = the 1st of the month 00:00:00+00:00 and
 * end = now: nothing outside that range, nothing of it missing (items of the last minutes, which
 * a clock difference may put on either side, are left out of the comparison).
 */
export async function queryDefaultRange(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const requestedAt = ctx.now();
  const monthStart = monthStartOf(requestedAt);
  const res = await ctx.call(route);
  expectStatus(res, route.success.status);
  const items = expectObjects(res, 'items');
  items.forEach((item, i) => {
    for (const field of route.dates) {
      const t = dateOf(route, item, field);
      if (!(t >= monthStart && t <= requestedAt + CLOCK_SKEW_MS)) {
        fail({
          expected: `without begin/end, only items since ${rfc3339(new Date(monthStart))} (the 1st of the month) and not after now`,
          actual: `item ${i} has ${field} ${show(item[field])}`,
          pointer: `/${i}/${field}`,
          exchange: res.exchange,
        });
      }
    }
  });
  const end = new Date(Math.ceil(ctx.now() / 1000) * 1000);
  const explicit = await ctx.call(route, { query: { begin: rfc3339(new Date(monthStart)), end: rfc3339(end) } });
  expectStatus(explicit, route.success.status, 'the same range given explicitly');
  const expected = expectObjects(explicit, 'items').filter((item) => datesOf(route, item).every((t) => t <= requestedAt - CLOCK_SKEW_MS));
  if (items.length === 0 && expected.length === 0) {
    throw new NotRun('the car has no item since the 1st of the month (not driven this month?): the default range cannot be observed');
  }
  if (monthStartOf(end.getTime()) !== monthStart || requestedAt - monthStart < CLOCK_SKEW_MS) {
    throw new NotRun('the run is at a month boundary: the default range cannot be compared with an explicit one');
  }
  const missing = missingFrom(route, items, expected);
  if (missing.length) {
    fail({
      expected: `without begin/end, the items of begin=${rfc3339(new Date(monthStart))} and end=now (${expected.length} of them dated before the last ${CLOCK_SKEW_MS / 60_000} minutes)`,
      actual: `${missing.length} missing from the default answer, e.g. ${route.dates.map((f) => `${f} ${show(missing[0][f])}`).join(', ')}`,
      exchange: res.exchange,
    });
  }
}

export function monthStartOf(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** A range clearly inside "one month" is accepted; statistics may answer "no data" instead. */
export async function queryRangeAccepted(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const days = ctx.param<number>('days');
  // Ends now, not in the discovered data window: a server that refuses such a range also leaves
  // discovery without a window, and this check must still run and say so.
  const end = new Date(Math.floor(ctx.now() / 1000) * 1000);
  const begin = new Date(end.getTime() - days * DAY);
  const res = await ctx.call(route, { query: { begin: rfc3339(begin), end: rfc3339(end) } });
  if (res.status === 404 && route.query.includes('initialValue')) {
    expectError(res, { status: 404, type: 'PARAMETERS_ERROR', message: 'Statistics not found' });
    return;
  }
  expectStatus(res, route.success.status, `a ${days}-day range is within "at most one month"`);
}

export async function signalNameFilter(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const range = route.query.includes('begin') ? ctx.window() : {};
  const unfiltered = await ctx.call(route, { query: range });
  expectStatus(unfiltered, route.success.status);
  const all = expectObjects(unfiltered, 'signals');
  const names = [...new Set(all.map((s) => s.name).filter((n): n is string => typeof n === 'string'))];
  if (names.length < 2) throw new NotRun(`the data holds ${names.length} signal name(s); two are needed to see a filter`);
  const chosen = names.slice(0, 2);
  const res = await ctx.call(route, { query: { ...range, name: chosen.join(',') } });
  expectStatus(res, route.success.status);
  const filtered = expectObjects(res, 'signals');
  const other = filtered.findIndex((s) => !chosen.includes(String(s.name)));
  if (other >= 0) {
    fail({
      expected: `only signals named ${chosen.join(' or ')}`,
      actual: `a signal named ${show(filtered[other].name)}`,
      pointer: `/${other}/name`,
      exchange: res.exchange,
    });
  }
  // Every signal of those names in the unfiltered answer is in the filtered one (a subset rather
  // than equal counts: a server may page a long answer by default, in the same order both times).
  for (const name of chosen) {
    const expected = all.filter((s) => s.name === name);
    const missing = missingFrom(route, filtered, expected);
    if (missing.length) {
      fail({
        expected: `the ${expected.length} ${name} signals of the unfiltered answer`,
        actual: `${missing.length} of them missing, e.g. ${show(missing[0])}`,
        exchange: res.exchange,
      });
    }
  }
}

/**
 * A trip straddling a bound of the range - started before begin and ended in the range, or started in
 * the range and ended after end - is listed with inclusive=true ("started or ended in the range"),
 * and not with inclusive=false nor by default ("started and ended in it").
 */
export async function tripsInclusive(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const trips = await itemsInWindow(ctx, route, { inclusive: 'true' });
  const now = ctx.now();
  const trip = trips.find((t) => {
    const b = Date.parse(String(t.beginDate));
    const e = Date.parse(String(t.endDate));
    return e - b >= 2000 && e < now - 60_000;
  });
  if (!trip) throw new NotRun('no trip of at least 2 seconds in the data window');
  const b = Date.parse(String(trip.beginDate));
  const e = Date.parse(String(trip.endDate));
  // A bound inside the trip (whole seconds, strictly after its start and before its end); the other
  // bound an hour beyond the trip, so that each answer is short whatever page size a server applies
  // by default (neither document states one, nor which items a page keeps).
  const inside = Math.ceil((b + (e - b) / 2) / 1000) * 1000;
  const ranges = [
    {
      query: { begin: rfc3339(new Date(inside)), end: rfc3339(new Date(Math.min(Math.ceil((e + HOUR) / 1000) * 1000, Math.floor(now / 1000) * 1000))) },
      straddles: 'started before begin and ended in the range',
    },
    {
      query: { begin: rfc3339(new Date(Math.floor((b - HOUR) / 1000) * 1000)), end: rfc3339(new Date(inside)) },
      straddles: 'started in the range and ended after end',
    },
  ];
  for (const { query, straddles } of ranges) {
    const listed = async (inclusive?: string) => {
      const res = await ctx.call(route, { query: inclusive ? { ...query, inclusive } : query });
      expectStatus(res, route.success.status);
      return { ids: expectObjects(res, 'trips').map((t) => t.id), res };
    };
    const rule = `trip ${show(trip.id)} ${straddles} (begin=${query.begin}, end=${query.end})`;
    const withInclusive = await listed('true');
    if (!withInclusive.ids.some((id) => sameValue(id, trip.id))) {
      fail({ expected: `${rule}: listed with inclusive=true`, actual: 'not listed', exchange: withInclusive.res.exchange });
    }
    for (const inclusive of ['false', undefined]) {
      const answer = await listed(inclusive);
      if (answer.ids.some((id) => sameValue(id, trip.id))) {
        fail({
          expected: `${rule}: not listed ${inclusive ? 'with inclusive=false' : 'by default (inclusive=false)'}`,
          actual: 'listed',
          exchange: answer.res.exchange,
        });
      }
    }
  }
}

export async function statsInitialValue(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const base = await ctx.call(route, { query: ctx.window() });
  if (base.status === 404) throw new NotRun('the statistic has no data in the data window');
  expectStatus(base, route.success.status);
  const value = expectObject(base, 'a statistic').value;
  // The default initialValue is 0.
  const zero = await ctx.call(route, { query: { ...ctx.window(), initialValue: '0' } });
  expectStatus(zero, route.success.status);
  const withZero = expectObject(zero, 'a statistic').value;
  if (!sameNumber(withZero, value)) {
    fail({
      expected: `initialValue=0 answers the value without initialValue (${show(value)}): its default is 0`,
      actual: `value ${show(withZero)}`,
      pointer: '/value',
      exchange: zero.exchange,
    });
  }
  // The offset the requirement gives the statistic: a fraction of a km sent as a half (decision D-INITIAL-VALUE-FRACTION).
  const offset = ctx.param<Record<string, number>>('offsets')[route.route];
  if (typeof offset !== 'number') throw new Error(`requirements.yaml: ${ctx.requirement.id} gives no offset for ${route.route}`);
  const res = await ctx.call(route, { query: { ...ctx.window(), initialValue: String(offset) } });
  expectStatus(res, route.success.status);
  const shifted = expectObject(res, 'a statistic').value;
  if (typeof value !== 'number' || !addedAsWritten(shifted, value, offset)) {
    fail({
      expected: `value ${show(value)} + initialValue ${offset} = ${typeof value === 'number' ? value + offset : '?'}`,
      actual: `value ${show(shifted)}`,
      pointer: '/value',
      exchange: res.exchange,
    });
  }
}

/** The decimals a number is written with (1357.25: 2): the precision of the answer that holds it. */
const decimalsOf = (n: number) => (Number.isFinite(n) ? (String(n).split('.')[1]?.length ?? 0) : 0);

/**
 * `shifted` is `value` + `offset`, to the precision the answers are written with: a server writing its
 * statistic rounded to d decimals is off by at most 10^-d between two answers, and one writing whole
 * units cannot show the fraction of an offset (decision D-INITIAL-VALUE-FRACTION).
 */
function addedAsWritten(shifted: unknown, value: number, offset: number): boolean {
  if (sameNumber(shifted, value + offset)) return true;
  if (typeof shifted !== 'number' || Number.isInteger(offset)) return false;
  return Math.abs(shifted - (value + offset)) <= 10 ** -Math.max(decimalsOf(value), decimalsOf(shifted));
}

/** Over a range with no trip, a statistic is 0 (+ initialValue) or 404 "Statistics not found". */
export async function statsNoData(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const trips = ctx.catalogue.route('GET /cars/{carId}/trips');
  // Long before any connected car: the range is confirmed empty through the trips route below.
  const query = { begin: '2001-01-01T00:00:00+00:00', end: '2001-01-28T00:00:00+00:00' };
  const list = expectArray(await ctx.call(trips, { query: { ...query, inclusive: 'true' } }), 'trips');
  if (list.length > 0) throw new NotRun(`the car has trips in ${query.begin} .. ${query.end}; no empty range is known`);
  for (const initialValue of ['0', '7']) {
    const res = await ctx.call(route, { query: { ...query, initialValue } });
    if (res.status === 404) {
      expectError(res, { status: 404, type: 'PARAMETERS_ERROR', message: 'Statistics not found' });
      continue;
    }
    expectStatus(res, [route.success.status, 404]);
    const value = expectObject(res, 'a statistic').value;
    if (!sameNumber(value, Number(initialValue))) {
      fail({
        expected: `over a range with no trips: value ${initialValue} (0 + initialValue) or 404 "Statistics not found"`,
        actual: `value ${show(value)}`,
        pointer: '/value',
        exchange: res.exchange,
      });
    }
  }
}

/** A route's answer to one range: the success (or, for a statistic, its documented no-data answer). */
async function answerFor(
  ctx: CheckContext,
  route: Route,
  query: Record<string, string>,
): Promise<{ status: number; body: unknown; res: Awaited<ReturnType<CheckContext['call']>> }> {
  const res = await ctx.call(route, { query });
  if (route.noData && res.status === route.noData.status) {
    expectError(res, { status: route.noData.status, type: 'PARAMETERS_ERROR', message: route.noData.message });
    return { status: res.status, body: undefined, res };
  }
  expectStatus(res, route.success.status);
  return { status: res.status, body: expectJson(res), res };
}

/** begin = end is a range (empty, or one instant): only begin after end is 416. */
export async function queryRangeEqual(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const instant = ctx.window().end;
  await answerFor(ctx, route, { begin: instant, end: instant });
}

/** The three ways of writing one instant the profile and clients use: +00:00, Z, and fractional seconds with Z. */
/**
 * One instant in the RFC 3339 forms a client may write it in: +00:00, Z, fractional seconds, and a
 * local time with its offset, east of UTC with minutes (+05:30) and west (-07:00, with fractions).
 */
function forms(text: string): Record<string, string> {
  const t = Date.parse(text);
  const iso = new Date(t).toISOString();
  const withOffset = (minutes: number, fraction: boolean) => {
    const local = new Date(t + minutes * 60_000).toISOString().replace('Z', '');
    const sign = minutes < 0 ? '-' : '+';
    const abs = Math.abs(minutes);
    const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return `${fraction ? local : local.replace(/\.\d+$/, '')}${offset}`;
  };
  return {
    '+00:00': rfc3339(new Date(t)),
    Z: iso.replace('.000Z', 'Z'),
    'fractional seconds and Z': iso,
    'a local time east of UTC (+05:30)': withOffset(330, false),
    'a local time west of UTC with fractional seconds (-07:00)': withOffset(-420, true),
  };
}

/**
 * begin and end written in each RFC 3339 form (Z, fractions, a local time with its offset east or west
 * of UTC) are the same instants as with +00:00: the same answer (the same items for a list, the same
 * value for a statistic). The forms are asked together: nothing orders them.
 */
export async function queryDateForms(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const window = ctx.window();
  const begins = forms(window.begin);
  const ends = forms(window.end);
  const answers = await Promise.all(
    Object.keys(begins).map(async (form) => {
      const { status, body, res } = await answerFor(ctx, route, { begin: begins[form], end: ends[form] });
      const key = Array.isArray(body)
        ? JSON.stringify(body.map((item) => recordKey(route, item)).sort())
        : JSON.stringify((body as Item | undefined)?.value ?? null);
      return { form, status, key, res };
    }),
  );
  const [base, ...others] = answers;
  for (const a of others) {
    if (a.status !== base.status || a.key !== base.key) {
      fail({
        expected: `begin/end written with ${a.form} (${begins[a.form]} .. ${ends[a.form]}) answer as with ${base.form} (the same instants, RFC 3339)`,
        actual: a.status !== base.status ? `status ${a.status} (with ${base.form}: ${base.status})` : 'another answer',
        exchange: a.res.exchange,
      });
    }
  }
}

export async function queryRangeGeojson(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const locations = ctx.catalogue.route('GET /cars/{carId}/locations');
  const window = ctx.window();
  const inWindow = (await itemsInWindow(ctx, locations))
    .map((l) => Date.parse(String(l.date)))
    .filter((t) => !Number.isNaN(t))
    .sort((a, b) => a - b);
  if (inWindow.length < 2) throw new NotRun('the data window holds fewer than two locations: a range inside it cannot be chosen');
  // A range holding about half of the window's locations, so that a range ignored shows.
  const end = rfc3339(new Date(Math.floor(inWindow[Math.floor(inWindow.length / 2)] / 1000) * 1000 + 1000));
  for (const query of [{ begin: window.begin, end }, {}] as Array<Record<string, string>>) {
    const plain = await ctx.call(locations, { query });
    expectStatus(plain, locations.success.status);
    const geo = await ctx.call(route, { query });
    expectStatus(geo, route.success.status);
    const points = expectJson(geo);
    const count = Array.isArray(points) ? points.length : undefined;
    const expected = (expectArray(plain, 'locations') as unknown[]).length;
    const which = 'begin' in query ? `begin=${query.begin} and end=${query.end}` : 'the default range (no begin, no end)';
    if (count !== expected) {
      fail({
        expected: `over ${which}, as many positions as the car's locations (${expected})`,
        actual: count === undefined ? `not an array: ${show(points)}` : `${count} positions`,
        exchange: geo.exchange,
      });
    }
  }
}

/**
 * A car statistic covers the range asked, given or default: its beginDate..endDate lies within
 * begin..end, and without them within the 1st of the month 00:00:00+00:00..now. (That they are the
 * range's own bounds is not stated: a server may give the span of the data it summed.) The range
 * asked is one day at the start of the data window, which the default range does not fit in.
 */
export async function queryRangeStats(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const begin = Date.parse(ctx.window().begin);
  const asked = { begin: rfc3339(new Date(begin)), end: rfc3339(new Date(begin + DAY)) };
  const expectWithin = (answer: Awaited<ReturnType<typeof answerFor>>, from: number, to: number, which: string) => {
    if (answer.body === undefined) return; // no data: the documented answer
    const stat = answer.body as Item;
    for (const field of ['beginDate', 'endDate']) {
      const t = Date.parse(String(stat[field]));
      if (!(t >= from && t <= to)) {
        fail({
          expected: `a statistic of ${which}: ${field} within ${rfc3339(new Date(from))} .. ${rfc3339(new Date(to))}`,
          actual: `${field} ${show(stat[field])}`,
          pointer: `/${field}`,
          exchange: answer.res.exchange,
        });
      }
    }
  };
  expectWithin(await answerFor(ctx, route, asked), begin, begin + DAY, `begin=${asked.begin} and end=${asked.end}`);
  const requestedAt = ctx.now();
  expectWithin(await answerFor(ctx, route, {}), monthStartOf(requestedAt), requestedAt + CLOCK_SKEW_MS, 'the default range (the 1st of the month to now)');
}

/** A used time in seconds cannot exceed the time it covers; no statistic is negative. */
export async function statsBounds(ctx: CheckContext): Promise<void> {
  const window = ctx.window();
  const problems: string[] = [];
  const lengthS = (Date.parse(window.end) - Date.parse(window.begin)) / 1000;
  const statRoutes = [
    ['GET /cars/{carId}/stats/usedtime', true],
    ['GET /cars/{carId}/stats/mileage', false],
  ] as const;
  // Reads only: the car's statistics and its trips together, then the trips' records and statistics together.
  const [answers, inWindow] = await together([
    together(statRoutes.map(([routeId]) => answerFor(ctx, ctx.catalogue.route(routeId), window))),
    itemsInWindow(ctx, ctx.catalogue.route('GET /cars/{carId}/trips')),
  ]);
  statRoutes.forEach(([routeId, usedTime], i) => {
    const value = (answers[i].body as Item | undefined)?.value;
    if (typeof value !== 'number') return; // no data, or not a number: RESP-CONTRACT's
    if (value < 0) problems.push(`${routeId} over the data window: value ${value}, negative`);
    if (usedTime && value > lengthS + 1) problems.push(`${routeId}: ${value} s over a range of ${lengthS} s`);
  });
  const read = (routeId: string, ids: Record<string, string>) => ctx.call(ctx.catalogue.route(routeId), { ids });
  const trips = await together(
    inWindow.slice(0, 3).map((summary) => {
      const ids = { tripId: String(summary.id) };
      return together([read('GET /trips/{tripId}', ids), read('GET /trips/{tripId}/stats', ids), read('GET /trips/{tripId}/stats/usedtime', ids)]);
    }),
  );
  for (const [tripRes, statsRes, usedRes] of trips) {
    expectStatus(tripRes, 200, 'reading a trip of the window');
    const trip = expectJson(tripRes) as Item;
    const duration = (Date.parse(String(trip.endDate)) - Date.parse(String(trip.beginDate))) / 1000;
    if (Number.isNaN(duration)) continue;
    const stats = expectJson(statsRes) as Item[];
    const used = expectJson(usedRes) as Item;
    const values: Array<[string, unknown]> = [
      ['usedTime', trip.usedTime],
      ['stats USED_TIME', Array.isArray(stats) ? stats.find((s) => s?.type === 'USED_TIME')?.value : undefined],
      ['stats/usedtime', used?.value],
    ];
    for (const [name, v] of values) {
      if (typeof v !== 'number') continue;
      if (v < 0 || v > duration + 1)
        problems.push(`trip ${show(trip.id)}: ${name} ${v} s for a trip of ${duration} s (${show(trip.beginDate)} .. ${show(trip.endDate)})`);
    }
    if (typeof trip.mileage === 'number' && trip.mileage < 0) problems.push(`trip ${show(trip.id)}: mileage ${trip.mileage}, negative`);
  }
  if (problems.length) {
    fail({ expected: 'used times in seconds within the time they cover, and no negative statistic', actual: problems.slice(0, 5).join('; ') });
  }
}
