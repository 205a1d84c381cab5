// How a fuzz check sends its hostile requests (src/checks/fuzz.ts): the first alone; answered, the
// others together (one round trip, not a dozen, on a distant server); not answered, one at a time,
// and no more than two requests to a server that hangs on hostile input. The check is advisory: what
// it finds is a warning. Each run through the engine
// (src/engine/run-check.ts) against a small server on the loopback that counts what it is sent.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { loadCatalogue, planChecks } from '../../../src/catalogue/catalogue';
import { runCheck, type CheckInputs } from '../../../src/engine/run-check';
import { joinRun } from '../../../src/transport/breaker';
import type { RunContext } from '../../../src/setup/run-context';
import type { Target } from '../../../src/setup/target';
import { listenOnLoopback } from '../support/loopback-server';

const CATALOGUE = loadCatalogue();
const FUZZ_IDS = planChecks(CATALOGUE).find((p) => p.key === 'ROBUST-FUZZ-IDS GET /cars/{carId}')!;
const COUNT = FUZZ_IDS.requirement.params.count as number;
const ERROR_ARRAY = JSON.stringify([{ type: 'PARAMETERS_ERROR', message: 'Malformed car id', tip: 'Use a car id' }]);

/**
 * A server answering `answer` (or never, when it returns undefined); counts the requests and the most
 * in flight at once. With `together` the first answer goes at once and the others are held until that
 * many are in flight (or 3 s passed): requests sent together are then all in flight at once, however
 * busy the machine.
 */
async function server(answer: () => number | undefined, together = 0) {
  const seen = { requests: 0, inFlight: 0, mostInFlight: 0 };
  const held: Array<() => void> = [];
  const s = http.createServer((req, res) => {
    req.resume();
    seen.requests += 1;
    const status = answer();
    if (status === undefined) return;
    seen.inFlight += 1;
    seen.mostInFlight = Math.max(seen.mostInFlight, seen.inFlight);
    const send = () => {
      seen.inFlight -= 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end(ERROR_ARRAY);
    };
    if (seen.requests === 1 || !together) return send();
    const timer = setTimeout(send, 3000);
    held.push(() => {
      clearTimeout(timer);
      send();
    });
    if (seen.inFlight >= together) held.splice(0).forEach((release) => release());
  });
  const { origin, close } = await listenOnLoopback(s);
  return { base: `${origin}/v3`, seen, close };
}

function inputs(baseUrl: string, requestTimeoutMs = 2000): CheckInputs {
  const target = { name: 't', env: 'cloud', baseUrl, requestTimeoutMs, source: 't.yaml', oauth: {}, tokens: {}, unset: {} } as unknown as Target;
  const run = {
    secrets: [],
    tokens: { full: 'tok_full_0123456789' },
    tokenNotes: {},
    data: { carId: '5001' },
    dataNotes: {},
    browser: {},
    warnings: [],
    concurrency: 1,
  } as unknown as RunContext;
  joinRun(`fuzz ${Math.random()}`, baseUrl, CATALOGUE.routes);
  return {
    target,
    run,
    catalogue: CATALOGUE,
    browserSession: (fn) => fn(undefined as never),
    secretRefs: { headers: new Map(), bearer: new Map(), basic: new Map() },
  };
}

test('hostile ids refused as the profile says: the first alone, then the others together; every one sent, the check passes', async () => {
  const s = await server(() => 400, COUNT - 1);
  try {
    const record = await runCheck(FUZZ_IDS, inputs(s.base));
    expect(record.status, record.failure?.actual).toBe('passed');
    expect(s.seen.requests).toBe(COUNT);
    expect(s.seen.mostInFlight).toBe(COUNT - 1);
  } finally {
    await s.close();
  }
});

test('a 5xx to some hostile ids: the (advisory) check warns, counting them; every answer recorded in the order sent', async () => {
  let n = 0;
  const s = await server(() => (++n % 3 === 0 ? 500 : 400));
  try {
    const record = await runCheck(FUZZ_IDS, inputs(s.base));
    expect(record.warnings.join('\n')).toMatch(
      new RegExp(
        `^advisory, not a failure: expected: a 4xx with the error array for every hostile id; actual: +${Math.floor(COUNT / 3)} of ${COUNT} hostile inputs answered otherwise`,
      ),
    );
    expect(record.exchanges).toHaveLength(COUNT);
    expect(record.exchanges.filter((e) => e.status === 500)).toHaveLength(Math.floor(COUNT / 3));
  } finally {
    await s.close();
  }
});

test('a server that hangs on hostile ids: two requests, one at a time, and the check warns of them', async () => {
  const s = await server(() => undefined);
  try {
    const started = performance.now();
    const record = await runCheck(FUZZ_IDS, inputs(s.base, 400));
    expect(record.warnings.join('\n')).toMatch(new RegExp(`actual: +2 of ${COUNT} hostile inputs answered otherwise`));
    expect(record.exchanges.map((e) => e.error)).toEqual([
      expect.stringMatching(/^no complete answer within 400 ms/),
      expect.stringMatching(/^no complete answer/),
    ]);
    expect(s.seen.requests).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(800);
  } finally {
    await s.close();
  }
});
