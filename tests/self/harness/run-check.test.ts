// How one check's outcome becomes its record (src/engine/run-check.ts): a failed assertion and a
// request without an answer are the server's (failed); anything else a procedure throws is the
// suite's own defect or that of its inputs: not run, flagged suiteBroke, its reason redacted, never
// a failure. And a check's early part (checks/index.ts EARLY, startEarly): started once, before the
// check's turn, in the check's own context (its requests and its outcome are the check's, also when
// the run stops before the check's turn: earlyExchanges).
import { expect, test } from '@playwright/test';
import { NoAnswerError } from '../../../src/transport/api';
import { loadCatalogue, type PlannedCheck, type Requirement } from '../../../src/catalogue/catalogue';
import { fail, NotRun } from '../../../src/check-api/outcome';
import type { RunContext } from '../../../src/setup/run-context';
import type { Target } from '../../../src/setup/target';
import type { CheckContext } from '../../../src/check-api';
import { CHECKS, EARLY } from '../../../src/checks';
import { earlyExchanges, runCheck, startEarly, type CheckInputs } from '../../../src/engine/run-check';

const SECRET = 'tok_4e5f6a7b8c9d';

function inputs(): CheckInputs {
  const target = {
    name: 't',
    env: 'cloud',
    baseUrl: 'http://127.0.0.1:9/v3',
    requestTimeoutMs: 1000,
    source: 't.yaml',
    oauth: {},
    tokens: {},
    unset: {},
  } as unknown as Target;
  const run = { secrets: [SECRET], tokens: {}, tokenNotes: {}, data: {}, dataNotes: {}, browser: {}, warnings: [], concurrency: 1 } as unknown as RunContext;
  return {
    target,
    run,
    catalogue: loadCatalogue(),
    browserSession: (fn) => fn(undefined as never),
    secretRefs: { headers: new Map(), bearer: new Map(), basic: new Map() },
  };
}

function planned(check: string): PlannedCheck {
  const requirement: Requirement = {
    id: 'SELF-TEST',
    class: 'core',
    title: 't',
    cite: 'c',
    check,
    severity: 'major',
    advisory: false,
    per: 'once',
    env: ['cloud'],
    needs: [],
    routes: [],
    reads: [],
    judgesErrorsSeen: false,
    decisions: [],
    params: {},
    statements: ['S-ERRORS-BODY'],
  };
  return { requirement, group: 'users', key: `SELF-TEST ${check}` };
}

async function outcomeOf(thrown: () => unknown) {
  const name = `self-test-${Math.random().toString(36).slice(2)}`;
  CHECKS[name] = async () => {
    thrown();
  };
  try {
    return await runCheck(planned(name), inputs());
  } finally {
    delete CHECKS[name];
  }
}

test('a TypeError in a procedure is not run (the suite broke), with the first line of it, redacted; never a failure', async () => {
  const record = await outcomeOf(() => {
    throw new TypeError(`Cannot read properties of null (reading '${SECRET}')\n    at somewhere`);
  });
  expect(record.status).toBe('not-run');
  expect(record.suiteBroke).toBe(true);
  expect(record.failure).toBeUndefined();
  expect(record.reason).toMatch(
    /^the suite broke under this check \(a defect of the suite or of its inputs, not anything the server did; please report it\): Cannot read properties of null/,
  );
  expect(record.reason).not.toContain(SECRET);
  expect(record.reason).not.toContain('at somewhere');
});

test('a failed assertion and a request without answer stay failures; a NotRun is not run, not flagged', async () => {
  const failed = await outcomeOf(() => fail({ expected: 'status 200', actual: 'status 500' }));
  expect(failed.status).toBe('failed');
  expect(failed.suiteBroke).toBeUndefined();
  const silent = await outcomeOf(() => {
    throw new NoAnswerError('GET http://x/v3/users/me: the connection was reset by the server', 'network', {
      method: 'GET',
      url: 'http://x/v3/users/me',
      requestHeaders: {},
      durationMs: 1,
    });
  });
  expect(silent.status).toBe('failed');
  expect(silent.failure?.actual).toContain('the connection was reset by the server');
  const notRun = await outcomeOf(() => {
    throw new NotRun('needs tokens.full');
  });
  expect(notRun).toMatchObject({ status: 'not-run', reason: 'needs tokens.full' });
  expect(notRun.suiteBroke).toBeUndefined();
});

test("an early part starts once, before the check runs, and its requests and outcome are the check's", async () => {
  const name = `self-test-early-${Math.random().toString(36).slice(2)}`;
  const calls: number[] = [];
  const got: string[] = [];
  const part = async (ctx: CheckContext): Promise<string> => {
    calls.push(performance.now());
    // A request of the early part: the target does not answer (port 9), so the check fails on it.
    if (ctx.run.data.userId === 'ask') await ctx.api.get('/users/me');
    return 'token';
  };
  EARLY[name] = part;
  CHECKS[name] = async (ctx) => {
    got.push(await ctx.early(part));
  };
  try {
    // Started with the group: called at once; the check, run later, awaits that call's result.
    const group = inputs();
    startEarly([planned(name)], group);
    expect(calls).toHaveLength(1);
    const startedAt = calls[0];
    await new Promise((r) => setTimeout(r, 20));
    const record = await runCheck(planned(name), group);
    expect(record.status).toBe('passed');
    expect(calls).toEqual([startedAt]);
    expect(got).toEqual(['token']);

    // Not started early (a replay, a check run alone through runCheck): the check runs its part itself, once.
    const alone = await runCheck(planned(name), inputs());
    expect(alone.status).toBe('passed');
    expect(calls).toHaveLength(2);

    // Its request is the check's: failed, with that exchange in the record; no unhandled rejection meanwhile.
    const asking = inputs();
    asking.run.data.userId = 'ask';
    startEarly([planned(name)], asking);
    await new Promise((r) => setTimeout(r, 50));
    const failed = await runCheck(planned(name), asking);
    expect(failed.status).toBe('failed');
    expect(failed.exchanges.map((e) => `${e.method} ${new URL(e.url).pathname}`)).toEqual(['GET /v3/users/me']);
    // Its context is let go once the check ran.
    expect(asking.prepared?.has(planned(name).key)).toBe(false);

    // The run stops (--max-failures) before the check's turn: the requests its early part sent are the stopped check's record's.
    const stopping = inputs();
    stopping.run.data.userId = 'ask';
    startEarly([planned(name)], stopping);
    expect((await earlyExchanges(planned(name), stopping)).map((e) => `${e.method} ${new URL(e.url).pathname}`)).toEqual(['GET /v3/users/me']);
    expect(stopping.prepared?.has(planned(name).key)).toBe(false);
    expect(await earlyExchanges(planned(name), inputs())).toEqual([]);
  } finally {
    delete CHECKS[name];
    delete EARLY[name];
  }
});
