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

/** After this many hostile requests without an answer the server is hanging: probing on only costs time. */
const MAX_NO_ANSWERS = 2;

/** One hostile request: its label and how to send it. */
interface Probe {
  label: string;
  send: () => Promise<ApiResponse>;
}

/** What is wrong with one probe's answer (its missing answer included), or undefined; `silent` when it got no answer. */
async function attempt({ label, send }: Probe, mustRefuse: boolean): Promise<{ problem?: string; silent?: boolean }> {
  try {
    const p = problemWith(await send(), mustRefuse);
    return p ? { problem: `${label}: ${p}` } : {};
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    return { problem: `${label}: ${err.message.replace(/^\S+ \S+: /, '')}`, silent: true };
  }
}

/**
 * Sends the probes and returns the problems, in the probes' order. The first goes alone: answered, the
 * others go together (nothing orders them; on a distant server one round trip instead of a dozen). Not
 * answered, they go one at a time, and stop after MAX_NO_ANSWERS without an answer: a server
 * that hangs on hostile input then holds no more than that many requests, and costs the check that
 * many time-outs. Their answers never open nor close the route for the other checks (hostile: api.ts).
 */
async function probeAll(probes: Probe[], mustRefuse: boolean): Promise<string[]> {
  const [first, ...rest] = probes;
  if (!first) return [];
  const opening = await attempt(first, mustRefuse);
  const outcomes = [opening];
  if (!opening.silent) outcomes.push(...(await Promise.all(rest.map((p) => attempt(p, mustRefuse)))));
  else {
    for (const p of rest) {
      if (outcomes.filter((o) => o.silent).length >= MAX_NO_ANSWERS) break;
      outcomes.push(await attempt(p, mustRefuse));
    }
  }
  return outcomes.flatMap((o) => (o.problem ? [o.problem] : []));
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
  const probes = ids.map((id) => ({ label: `{${param}}=${shorten(id)}`, send: () => ctx.call(route, { ids: { [param]: id }, hostile: true }) }));
  const problems = await probeAll(probes, true);
  report(problems, ids.length, seed, 'a 4xx with the error array for every hostile id');
}

export async function fuzzQuery(ctx: CheckContext): Promise<void> {
  const route = ctx.requireRoute();
  const seed = fuzzSeed();
  const queries = hostileQueries(seed, route.route, route.query, ctx.param<number>('count'));
  const probes = queries.map((pairs) => ({
    label: pairs.map(([k, v]) => `${k}=${shorten(v)}`).join('&'),
    send: () => ctx.call(route, { queryPairs: pairs, hostile: true }),
  }));
  const problems = await probeAll(probes, false);
  report(problems, queries.length, seed, 'no 5xx and no hang for hostile query values; any 4xx with the error array');
}
