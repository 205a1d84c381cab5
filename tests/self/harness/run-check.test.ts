// How one check's outcome becomes its record (src/engine/run-check.ts): a failed assertion and a
// request without an answer are the server's (failed); anything else a procedure throws is the
// suite's own defect or that of its inputs: not run, flagged suiteBroke, its reason redacted, never
// a failure.
import { expect, test } from '@playwright/test';
import { NoAnswerError } from '../../../src/transport/api';
import { loadCatalogue, type PlannedCheck, type Requirement } from '../../../src/catalogue/catalogue';
import { fail, NotRun } from '../../../src/check-api/outcome';
import type { RunContext } from '../../../src/setup/run-context';
import type { Target } from '../../../src/setup/target';
import { CHECKS } from '../../../src/checks';
import { runCheck, type CheckInputs } from '../../../src/engine/run-check';

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
    routes: [],
    reads: [],
    judgesErrorsSeen: false,
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
