// Values used exactly as sent: a parameter's value as the documents define it, not a looser reading
// of it. A date bound to the fraction of a second it is written with (RFC 3339), and in the offset it
// is written in; a device id as the serial number string it is, case and all. (A signal name's case
// is data: QUERY-SIGNAL-NAME-CASE, an error case.) Only values the documents define are judged:
// inclusive=TRUE or limit=2.5 are not defined, so not here.
import {
  type ApiResponse,
  type CheckContext,
  expectError,
  expectObjects,
  expectStatus,
  fail,
  NotApplicable,
  NotRun,
  type Route,
  show,
  statusMatches,
  together,
} from '../check-api';
import { carDeviceId, DISSOCIATE, withDevice } from './devices';
import { route as routeOf } from './write-checks';
import { dateOf, type Item, itemsInWindow } from './query';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** An instant written in UTC with its milliseconds and Z (as JavaScript's toISOString writes it). */
const zulu = (ms: number) => new Date(ms).toISOString();

/** The same instant written as a local time two hours east of UTC (its offset sent as %2B02:00). */
const plusTwo = (ms: number) => new Date(ms + 2 * HOUR).toISOString().replace('Z', '+02:00');

/** A date as written carries a fraction of a second (the writer's precision is finer than the second). */
const hasFraction = (written: unknown) => typeof written === 'string' && /T\d\d:\d\d:\d\d[.,]\d+/.test(written);

/** One range whose begin lies a fraction of a second after an item: that item must stay out. */
interface Probe {
  item: Item;
  begin: number;
  end: number;
  /** How begin is written. */
  form: string;
  query: Record<string, string>;
}

/**
 * Items of the window to put begin just after, each in a second of its own: the second's fraction
 * (.999) must be later than the item, whatever finer precision its date hides (a date written to the
 * millisecond is at most .998 here), and well inside the window.
 */
function anchors(route: Route, items: Item[], window: { begin: string; end: string }, now: number): Item[] {
  const [from, to] = [Date.parse(window.begin) + MINUTE, Date.parse(window.end)];
  const usable = items
    .filter((i) => {
      const t = dateOf(route, i);
      // The range ends a minute after the item (a trip: after its end), and not after now.
      const last = Math.max(...route.dates.map((f) => dateOf(route, i, f)));
      return !Number.isNaN(t) && t > from && t < to && t % 1000 <= 998 && last + 2 * MINUTE < now;
    })
    .sort((a, b) => dateOf(route, a) - dateOf(route, b));
  const picked: Item[] = [];
  for (const at of [1 / 3, 2 / 3]) {
    const candidate = usable
      .slice(Math.floor(usable.length * at))
      .find((i) => picked.every((p) => Math.floor(dateOf(route, p) / 1000) !== Math.floor(dateOf(route, i) / 1000)));
    if (candidate) picked.push(candidate);
  }
  return picked;
}

/**
 * "begin, end: RFC 3339 date-times" (v3-profile.md § Query parameters): a bound is the instant it
 * writes, to its fraction of a second and in its offset. With begin a fraction of a second after an
 * item of the route (...:ss.999Z), and the same instant written +02:00, that item is not listed: a
 * server that reads the bound to the whole second lists it. The end is a minute later (for trips,
 * a minute after the trip's end: a trip is listed when it started and ended in the range). Two items
 * in seconds of their own; where the route writes its dates without a fraction, an item dated before
 * begin fails only when both ranges list one (a date written to the second may hide a later fraction).
 */
export async function queryDateExact(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const window = ctx.window();
  const picked = anchors(route, await itemsInWindow(ctx, route), window, ctx.now());
  if (picked.length === 0) throw new NotRun('the data window holds no item to put a range just after');
  const probes: Probe[] = picked.flatMap((item, n) => {
    const begin = Math.floor(dateOf(route, item) / 1000) * 1000 + 999;
    const last = Math.max(...route.dates.map((f) => dateOf(route, item, f)));
    const end = Math.ceil((Math.max(begin, last) + MINUTE) / 1000) * 1000;
    const forms = n === 0 ? [zulu, plusTwo] : [zulu];
    return forms.map((write) => ({ item, begin, end, form: write(begin), query: { begin: write(begin), end: zulu(end) } }));
  });
  const answers = await together(probes.map((p) => ctx.call(route, { query: p.query })));
  const early = answers.map((res, i) => {
    const p = probes[i];
    expectStatus(res, route.success.status, `begin=${p.query.begin} end=${p.query.end}`);
    return expectObjects(res, 'items').filter((item) => dateOf(route, item) < p.begin);
  });
  const written = (item: Item) => item[route.dates[0]];
  // A date written with a fraction shows an item before begin for sure; one written to the second, only when both items' ranges agree.
  const certain = early.findIndex((items) => items.some((item) => hasFraction(written(item))));
  const byItem = picked.map((item) => early.some((items, i) => probes[i].item === item && items.length > 0));
  const twice = picked.length > 1 && byItem.every(Boolean);
  if (certain >= 0 || twice) {
    const i = certain >= 0 ? certain : early.findIndex((items) => items.length > 0);
    const p = probes[i];
    fail({
      expected: `begin=${p.form} is that instant, to its fraction of a second (RFC 3339): no item dated before it`,
      actual: `${early[i].length} item(s) dated before it, e.g. ${route.dates[0]} ${show(written(early[i][0]))}: begin read to the whole second?`,
      exchange: answers[i].exchange,
    });
  }
  if (picked.length === 1 && byItem[0] && !hasFraction(written(picked[0]))) {
    throw new NotRun(
      `an item dated ${show(written(picked[0]))} (to the second) is listed after begin=${probes[0].form}: its date may hide a later fraction; a second item in a second of its own would tell`,
    );
  }
}

/** The id with every letter's case changed (VDSREF0101 -> vdsref0101). */
function otherCase(id: string): string {
  return [...id].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}

/**
 * "A device is identified by a device id, which is the serial number string" (vehicle-data-service-v3.md
 * § Other resources): the serial with its letters' case changed is another string, which names no
 * device (the suite's decision, docs/REQUIREMENTS.md). data.deviceForCarId on data.deviceCarId is
 * dissociated under that other string: refused as a device that does not exist (404, or 400 where the
 * server takes it for malformed, PARAMETERS_ERROR), and the device stays on its car.
 */
export async function deviceIdExact(ctx: CheckContext): Promise<void> {
  ctx.requireWrites();
  const device = ctx.data('deviceForCarId');
  const altered = otherCase(device);
  // A serial without letters has no other case: the requirement cannot apply to it.
  if (altered === device) throw new NotApplicable(`${ctx.dataName('deviceForCarId')} ${device} has no letter: it has no other case to send`);
  await withDevice(ctx, true, async () => {
    const res: ApiResponse = await ctx.call(routeOf(ctx, DISSOCIATE), { ids: { deviceId: altered } });
    const after = await carDeviceId(ctx);
    if (statusMatches(res.status, '2xx') || after !== device) {
      fail({
        expected: `device ${altered} names no device (the serial ${device} is another string): refused, and ${device} stays on car ${ctx.data('deviceCarId')}`,
        actual: `status ${res.status}; the car's deviceId is now ${show(after)}`,
        exchange: res.exchange,
      });
    }
    expectError(res, { status: [400, 404], type: 'PARAMETERS_ERROR' });
  });
}
