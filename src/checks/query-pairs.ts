// Query parameters in combination, systematically: every pair of one route's query parameters
// (routes.yaml `query`; begin and end together are one, the range) is sent together at least once,
// and the answer is judged against the meaning of each parameter it carries (v3-profile.md § Query
// parameters), whatever the other one is. A parameter's meaning is one entry of MEANINGS: what it
// sends, chosen from the run's data, and what an answer carrying it must be; the pairs come from the
// catalogue, so a new parameter of a route is paired with the others by adding its meaning, and a
// new route's parameters by data alone. Never assumed: which items a limit keeps, the order of a list.
import { type CheckContext, expectObjects, expectStatus, fail, type ApiResponse, NotRun, rfc3339, type Route, sameNumber, show } from '../check-api';

type Item = Record<string, unknown>;
type Query = Record<string, string>;

/** What the pair's answers are, for a meaning to judge: the answer to the pair, and without each parameter. */
interface Answers {
  sent: Query;
  body: unknown;
  /** The answer to the same query without this meaning's own parameters (the meanings that ask for it). */
  without?: unknown;
}

interface Meaning {
  /** The route's query parameters it stands for. */
  params: string[];
  /** The query it sends on this route, chosen from the run's data (undefined: nothing to choose from). */
  query(ctx: CheckContext, route: Route, sample: Item[]): Query | undefined;
  /** Judged against the answer without its own parameters too (the same other parameters). */
  needsWithout?: boolean;
  /** What is wrong with an answer carrying it, if anything. */
  problem(route: Route, a: Answers): string | undefined;
}

const LIMIT = 2;
const INITIAL_VALUE = 1000;

/** The dates of a dated item (one for history items, begin and end for trips); NaN where unreadable. */
const datesOf = (route: Route, item: Item) => route.dates.map((f) => Date.parse(String(item[f])));
const asItems = (body: unknown): Item[] => (Array.isArray(body) ? body.filter((i): i is Item => Boolean(i) && typeof i === 'object') : []);

const MEANINGS: Record<string, Meaning> = {
  // The later half of the data window: items on both sides of its begin.
  range: {
    params: ['begin', 'end'],
    query: (ctx) => {
      const w = ctx.window();
      const begin = Date.parse(w.begin);
      const end = Date.parse(w.end);
      return { begin: rfc3339(new Date(Math.floor((begin + (end - begin) / 2) / 1000) * 1000)), end: w.end };
    },
    problem: (route, { sent, body }) => {
      const [begin, end] = [Date.parse(sent.begin), Date.parse(sent.end)];
      const within = (t: number) => t >= begin && t <= end;
      if (!Array.isArray(body)) {
        // A statistic covers the range asked (its beginDate and endDate within it).
        const stat = body as Item | undefined;
        const dates = ['beginDate', 'endDate'].map((f) => Date.parse(String(stat?.[f]))).filter((t) => !Number.isNaN(t));
        return dates.every(within) ? undefined : `the statistic covers ${show(stat?.beginDate)} .. ${show(stat?.endDate)}`;
      }
      if (route.dates.length === 0) return undefined; // no dates (the GeoJSON positions): nothing to read the range from
      // inclusive=true: the trips that began or ended in the range; otherwise both within it.
      const inside = sent.inclusive === 'true' ? (ds: number[]) => ds.some(within) : (ds: number[]) => ds.every(within);
      const i = asItems(body).findIndex((item) => {
        const ds = datesOf(route, item);
        return !ds.some(Number.isNaN) && !inside(ds);
      });
      return i < 0 ? undefined : `item ${i} (${route.dates.map((f) => `${f} ${show(asItems(body)[i][f])}`).join(', ')}) lies outside the range`;
    },
  },
  limit: {
    params: ['limit'],
    query: () => ({ limit: String(LIMIT) }),
    needsWithout: true,
    // At most n; exactly n where the answer without limit holds n or more (a default page holds at least
    // what a limit of n keeps), else as many as it holds.
    problem: (_route, { body, without }) => {
      const n = asItems(body).length;
      const all = Array.isArray(without) ? without.length : undefined;
      if (n > LIMIT) return `${n} items with limit=${LIMIT}`;
      if (all !== undefined && n !== Math.min(LIMIT, all)) return `${n} items with limit=${LIMIT}, where the same query without limit answers ${all}`;
      return undefined;
    },
  },
  // Two of the names the route's items carry over the data window.
  name: {
    params: ['name'],
    query: (_ctx, _route, sample) => {
      const names = [...new Set(sample.map((s) => s.name).filter((n): n is string => typeof n === 'string' && n !== ''))].slice(0, 2);
      return names.length ? { name: names.join(',') } : undefined;
    },
    problem: (_route, { sent, body }) => {
      const names = sent.name.split(',');
      const i = asItems(body).findIndex((item) => !names.includes(String(item.name)));
      return i < 0 ? undefined : `item ${i} is named ${show(asItems(body)[i].name)}, not one of ${names.join(', ')}`;
    },
  },
  // inclusive=true widens which trips the range takes: judged with the range (above).
  inclusive: { params: ['inclusive'], query: () => ({ inclusive: 'true' }), problem: () => undefined },
  initialValue: {
    params: ['initialValue'],
    query: () => ({ initialValue: String(INITIAL_VALUE) }),
    needsWithout: true,
    problem: (_route, { body, without }) => {
      const value = (body as Item | undefined)?.value;
      const base = (without as Item | undefined)?.value;
      if (typeof base !== 'number') return undefined; // the statistic without it is QUERY-RANGE-STATS's and RESP-CONTRACT's
      return sameNumber(value, base + INITIAL_VALUE) ? undefined : `value ${show(value)}, without initialValue ${show(base)}`;
    },
  },
};

/** The meanings of a route's query parameters, each once (begin and end are the range). */
function meaningsOf(route: Route): string[] {
  return Object.keys(MEANINGS).filter((m) => MEANINGS[m].params.some((p) => route.query.includes(p)));
}

/** Every pair of a route's meanings, once. */
function pairsOf(route: Route): Array<[string, string]> {
  const ms = meaningsOf(route);
  return ms.flatMap((a, i) => ms.slice(i + 1).map((b) => [a, b] as [string, string]));
}

const shown = (query: Query) =>
  Object.entries(query)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
const without = (query: Query, params: string[]) => Object.fromEntries(Object.entries(query).filter(([k]) => !params.includes(k)));

/**
 * Each pair of the route's query parameters, sent together (the pairs at once: nothing orders them),
 * and each answer judged against the meaning of both; a meaning that needs the answer without its own
 * parameters gets that one too.
 */
export async function queryPairs(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const pairs = pairsOf(route);
  if (!pairs.length) throw new NotRun(`the route has fewer than two query parameters to combine (${route.query.join(', ') || 'none'})`);
  const sampleRes = await ctx.call(route, { query: ctx.window() });
  expectStatus(sampleRes, route.success.status, 'the route over the data window');
  const sample = Array.isArray(sampleRes.json) ? expectObjects(sampleRes, 'items') : [];
  if (Array.isArray(sampleRes.json) && sample.length === 0) throw new NotRun('the data window holds no item for this route: a combination would judge nothing');
  const send = async (query: Query): Promise<ApiResponse> => {
    const res = await ctx.call(route, { query });
    expectStatus(res, route.success.status, `${route.method} ${route.path} with ${shown(query)}`);
    return res;
  };
  await Promise.all(
    pairs.map(async (pair) => {
      const queries = pair.map((m) => MEANINGS[m].query(ctx, route, sample));
      if (queries.some((q) => q === undefined)) return; // nothing to choose from for one of them: judged alone elsewhere
      // A pair without the range still asks over the data window, where the data is.
      const sent: Query = { ...(pair.includes('range') ? {} : ctx.window()), ...Object.assign({}, ...queries) };
      const res = await send(sent);
      for (const m of pair) {
        const meaning = MEANINGS[m];
        const other = meaning.needsWithout ? (await send(without(sent, meaning.params))).json : undefined;
        const problem = meaning.problem(route, { sent, body: res.json, without: other });
        if (problem) {
          fail({
            expected: `with ${pair.join(' and ')} together (${shown(sent)}), an answer that ${m === 'range' ? 'keeps to the range' : `honours ${meaning.params.join('/')}`}`,
            actual: problem,
            exchange: res.exchange,
          });
        }
      }
    }),
  );
}
