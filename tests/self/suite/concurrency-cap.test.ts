// The target's maxConcurrency holds: a server that counts the requests it holds at once never sees
// more than the cap, though the round trip it shows (each answer held 40 ms) calls for more checks in
// flight than that (Little's law: src/setup/run-context.ts), and the run's verdict is unchanged. And
// without the key the checks in flight grow with the round trip, up to DEFAULT_MAX_CONCURRENCY.
// In-process (src/engine/in-process.ts: the command's preparation, checks and judgement); the sign-in
// page's checks (a browser, whose requests are not the HTTP client's) are left out.
// And the workers: against a distant target (a long round trip that requests sent together overlap)
// the route groups run side by side, in up to three workers (run-context.ts workersFor, isDistant), through the command.
import http from 'node:http';
import { expect, test } from '@playwright/test';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import { concurrencyFor, GROUPS_SIDE_BY_SIDE_MS, isDistant, requestSlotsFor, SAMPLED_SIDE_BY_SIDE_MS, workersFor } from '../../../src/setup/run-context';
import { DEFAULT_MAX_CONCURRENCY } from '../../../src/transport/http-policy';
import { startReference, writeTargetFile } from '../../../scripts/reference-process';
import { listenOnLoopback } from '../support/loopback-server';
import { runCommand } from '../support/child-run';

const CAP = 6;
const HELD_MS = 40;

test.setTimeout(180_000);

/** A proxy in front of `upstream` that holds every answer HELD_MS and counts the requests it holds at once. */
async function countingProxy(upstream: string) {
  let now = 0;
  let most = 0;
  let total = 0;
  const server = http.createServer((req, res) => {
    now += 1;
    total += 1;
    most = Math.max(most, now);
    let done = false;
    const finish = () => {
      if (!done) now -= 1;
      done = true;
    };
    // Held from its arrival until its answer is handed over ('finish': the client reads the answer
    // after it, then frees its slot), or until given up ('close').
    res.on('finish', finish);
    res.on('close', finish);
    const forward = http.request(new URL(req.url ?? '/', upstream), { method: req.method, headers: req.headers }, (up) => {
      setTimeout(() => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      }, HELD_MS);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  const proxy = await listenOnLoopback(server);
  return { ...proxy, most: () => most, total: () => total };
}

/** The reference's target file, its API behind the counting proxy (its control API reached directly). */
function targetFile(origin: string, control: string, maxConcurrency?: number): string {
  return writeTargetFile(origin, 'local', { control, keys: { name: 'capped', ...(maxConcurrency ? { maxConcurrency } : {}) } });
}

test('maxConcurrency: a server counting its concurrent requests never sees more than the cap, and the verdict is the same', async () => {
  const reference = await startReference();
  const proxy = await countingProxy(`http://127.0.0.1:${reference.port}`);
  try {
    // An uncapped run first, in the same process, as npm test's workers run one test after another:
    // the capped target's run must set its own cap (in-process.ts once kept the earlier one).
    await runInProcess({ target: loadTarget(reference.targetFile), selection: { grep: /@CORE-CAR-RECORD/ } });
    const run = await runInProcess({
      target: loadTarget(targetFile(proxy.origin, reference.control, CAP)),
      latencySampling: true,
      selection: { grep: /@users/ },
    });
    expect(run.certificate.counts.checks.failed, run.console).toBe(0);
    expect(run.exitCode).toBe(0);
    // Little's law asked for more checks than the cap lets requests go: the cap is what bounded them.
    expect(concurrencyFor(HELD_MS, Number.MAX_SAFE_INTEGER, {})).toBeGreaterThan(CAP);
    expect(run.context.concurrency).toBeLessThanOrEqual(CAP);
    expect(proxy.total()).toBeGreaterThan(100);
    expect(proxy.most(), 'requests the server held at once').toBeLessThanOrEqual(CAP);
    expect(proxy.most(), 'the cap was reached: the test tried it').toBe(CAP);
  } finally {
    await proxy.close();
    await reference.stop();
  }
});

test("checks in flight grow with the round trip (Little's law), up to the cap", () => {
  const at = (ms: number, cap?: number) => concurrencyFor(ms, cap, {});
  expect(at(0)).toBe(8);
  expect(at(40)).toBe(28);
  expect(at(300)).toBe(DEFAULT_MAX_CONCURRENCY);
  expect(at(300, 20)).toBe(20);
  expect(at(0, 3)).toBe(3);
  expect(concurrencyFor(300, 20, { VDS_CONCURRENCY: '2' })).toBe(2);
});

test('the cap is shared among the workers (one slot each at least)', () => {
  // The cap is the run's, not each worker's: five workers under a cap of 100 have 20 slots each.
  expect(requestSlotsFor(100, 5)).toBe(20);
  expect(requestSlotsFor(100, 1)).toBe(100);
  expect(requestSlotsFor(6, 5)).toBe(1);
});

test("against a distant target the route groups run side by side and share the cap; the user's workers stand", () => {
  expect(workersFor(false, 5)).toBe(1);
  expect(workersFor(false, 5, undefined, 300)).toBe(1);
  // From 100 ms three: the device checks' lane beside two workers for the other groups (five cost more CPU at start).
  expect(workersFor(true, 5, undefined, 300)).toBe(3);
  expect(workersFor(true, 2, undefined, 300)).toBe(2);
  // From 20 ms two workers (the device checks beside the other groups); five cost more than they save.
  expect(workersFor(true, 5, undefined, 40)).toBe(2);
  expect(workersFor(true, 1, undefined, 40)).toBe(1);
  expect(workersFor(true, 5, undefined, 10)).toBe(1);
  expect(workersFor(true, 5, 3, 300)).toBe(3);
  expect(workersFor(false, 5, 3)).toBe(3);
});

test("distant: a long round trip whose requests sent side by side (the preflight's) come back about as fast as one alone; not a busy machine", () => {
  const rtt = GROUPS_SIDE_BY_SIDE_MS + 200;
  // The network's time: requests sent together each take about the round trip.
  expect(isDistant(rtt, [rtt + 5, rtt + 10, rtt + 2, rtt + 40])).toBe(true);
  // A busy machine (or a slow server on it): requests sent together queue, each taking several round trips.
  expect(isDistant(rtt, [rtt * 3, rtt * 4, rtt * 2.5, rtt * 5])).toBe(false);
  // Nearby, or no requests side by side (the preflight sends none below DISTANT_MS): one worker.
  expect(isDistant(10, [11, 12, 13])).toBe(false);
  expect(isDistant(rtt, [])).toBe(false);
  // Below the round trip from which the samples are taken side by side, there are none to read: never distant.
  expect(isDistant(SAMPLED_SIDE_BY_SIDE_MS - 1, [SAMPLED_SIDE_BY_SIDE_MS - 1])).toBe(false);
});

test('through the command, a target 150 ms away runs its route groups side by side (three groups, a worker each), and they pass', async () => {
  // One check in each of three route groups (users, cars, trips), the reference answering 150 ms late.
  const grep = '^RESP-STATUS (GET /users/me|GET /cars/\\{carId\\}|GET /trips/\\{tripId\\}) ';
  const run = await runCommand(['tsx', 'scripts/conformance.ts', '--grep', grep], {
    env: { VDS_REFERENCE_LATENCY_MS: '150', VDS_REPORTS: 'certificate' },
    timeoutMs: 120_000,
  });
  expect(run.code, run.output.slice(-3000)).toBe(0);
  const groups = Number(/Running \d+ checks? in (\d+) route groups?/.exec(run.output)?.[1]);
  expect(groups, run.output.slice(-3000)).toBe(3);
  expect(run.output).toContain(`${groups} workers (the route groups side by side)`);
});
