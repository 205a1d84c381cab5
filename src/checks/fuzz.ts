// Hostile input from a seeded corpus (src/check-api/fuzz.ts): the server must refuse it as a client error
// with the spec's error body, never fail with a 5xx, never hang. Failures name the seed to replay.
import {
  type ApiResponse,
  type CheckContext,
  checkContract,
  describeViolations,
  fail,
  fuzzSeed,
  hostileIds,
  hostileQueries,
  NoAnswerError,
  resourceParam,
} from '../check-api';

const shorten = (v: string) => (v.length > 40 ? `${JSON.stringify(v.slice(0, 20))}…(${v.length} chars)` : JSON.stringify(v));

/** What is wrong with one answer to hostile input, or undefined. `mustRefuse`: only a 4xx will do. */
function problemWith(res: ApiResponse, mustRefuse: boolean): string | undefined {
  if (res.status >= 500) return `status ${res.status}`;
  if (res.status >= 400) {
    if (res.json === undefined) return `status ${res.status} without an error array (${res.jsonError})`;
    const violations = checkContract('errorArray', res.json);
    return violations.length ? `status ${res.status}, error body: ${describeViolations(violations, 1).trim()}` : undefined;
  }
  return mustRefuse ? `status ${res.status} (accepted)` : undefined;
}

/** After this many requests without an answer the server is hanging: probing on only costs time. */
const MAX_NO_ANSWERS = 2;

/** Sends one hostile request; returns false once the server has stopped answering too often. */
async function probe(label: string, send: () => Promise<ApiResponse>, mustRefuse: boolean, problems: string[]): Promise<boolean> {
  try {
    const p = problemWith(await send(), mustRefuse);
    if (p) problems.push(`${label}: ${p}`);
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    problems.push(`${label}: ${err.message.replace(/^\S+ \S+: /, '')}`);
    if (problems.filter((x) => x.includes('no complete answer') || x.includes('no HTTP answer')).length >= MAX_NO_ANSWERS) return false;
  }
  return true;
}

function report(problems: string[], total: number, seed: number, expected: string): void {
  if (!problems.length) return;
  fail({
    expected,
    actual: `${problems.length} of ${total} hostile inputs answered otherwise (replay with VDS_FUZZ_SEED=${seed}):\n          ${problems.slice(0, 6).join('\n          ')}`,
  });
}

export async function fuzzIds(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const seed = fuzzSeed();
  const param = resourceParam(route);
  ctx.resolve(route); // NotRun early when the run has no ids for the route's other parameters
  const ids = hostileIds(seed, route.route, ctx.param<number>('count'));
  const problems: string[] = [];
  for (const id of ids) {
    if (!(await probe(`{${param}}=${shorten(id)}`, () => ctx.call(route, { ids: { [param]: id } }), true, problems))) break;
  }
  report(problems, ids.length, seed, 'a 4xx with the error array for every hostile id');
}

export async function fuzzQuery(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const seed = fuzzSeed();
  const queries = hostileQueries(seed, route.route, route.query, ctx.param<number>('count'));
  const problems: string[] = [];
  for (const pairs of queries) {
    const label = pairs.map(([k, v]) => `${k}=${shorten(v)}`).join('&');
    if (!(await probe(label, () => ctx.call(route, { queryPairs: pairs }), false, problems))) break;
  }
  report(problems, queries.length, seed, 'no 5xx and no hang for hostile query values; any 4xx with the error array');
}
