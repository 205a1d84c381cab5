// The target's maxConcurrency holds: a server that counts the requests it holds at once never sees
// more than the cap, though the round trip it shows (each answer held 40 ms) calls for more checks in
// flight than that (Little's law: src/setup/run-context.ts), and the run's verdict is unchanged. And
// without the key the checks in flight grow with the round trip, up to DEFAULT_MAX_CONCURRENCY.
// In-process (src/engine/in-process.ts: the command's preparation, checks and judgement); the sign-in
// page's checks (a browser, whose requests are not the HTTP client's) are left out.
// And the workers: against a distant target (a long round trip that requests sent together overlap)
// the route groups run side by side, in up to three workers (run-context.ts workersFor, isDistant),
// through the command; the cap is theirs together, a few slots each and the rest lent by the runner
// as they ask (src/transport/request-slots.ts): a group with many checks uses more than a fixed share
// would give it, and the server still never sees more than the cap.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import {
  concurrencyFor,
  GROUPS_SIDE_BY_SIDE_MS,
  isDistant,
  requestSlotsFor,
  SAMPLED_SIDE_BY_SIDE_MS,
  shareSlots,
  workersFor,
} from '../../../src/setup/run-context';
import { configureHttp, DEFAULT_MAX_CONCURRENCY } from '../../../src/transport/http-policy';
import { answeredLate, borrowSlotsFrom, lendSlots, poolAddress, requestSlot, resetPace, SlotPool } from '../../../src/transport/request-slots';
import { startReference, writeTargetFile } from '../../../scripts/reference-process';
import { listenOnLoopback } from '../support/loopback-server';
import { runCommand } from '../support/child-run';

const CAP = 6;
const HELD_MS = 40;

test.setTimeout(180_000);

/**
 * A proxy in front of `upstream` that holds every answer `heldMs` and counts the requests it holds at
 * once, all together and by the segment after the API's version (/cars, /users: a route group's requests).
 */
async function countingProxy(upstream: string, heldMs = HELD_MS) {
  let now = 0;
  let most = 0;
  let total = 0;
  const nowBy = new Map<string, number>();
  const mostBy = new Map<string, number>();
  /** Each request's arrival (ms) and path. */
  const arrivals: Array<{ at: number; path: string }> = [];
  const server = http.createServer((req, res) => {
    arrivals.push({ at: performance.now(), path: req.url ?? '/' });
    const first = /^\/v3(\/[^/?]*)/.exec(req.url ?? '/')?.[1] ?? '/';
    now += 1;
    total += 1;
    most = Math.max(most, now);
    nowBy.set(first, (nowBy.get(first) ?? 0) + 1);
    mostBy.set(first, Math.max(mostBy.get(first) ?? 0, nowBy.get(first)!));
    let done = false;
    const finish = () => {
      if (!done) {
        now -= 1;
        nowBy.set(first, nowBy.get(first)! - 1);
      }
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
      }, heldMs);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  const proxy = await listenOnLoopback(server);
  return { ...proxy, most: () => most, total: () => total, mostOn: (first: string) => mostBy.get(first) ?? 0, arrivals };
}

/** The reference's target file, its API behind the counting proxy (its control API reached directly). */
function targetFile(origin: string, control: string, maxConcurrency?: number, keys: Record<string, unknown> = {}): string {
  return writeTargetFile(origin, 'local', { control, keys: { name: 'capped', ...(maxConcurrency ? { maxConcurrency } : {}), ...keys } });
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

test('the workers share the cap: a share each when the round trip asks no more, else a few slots each and the rest lent by the runner', () => {
  // 40 ms asks 28 checks in flight: two workers' shares of 50 are enough.
  expect(shareSlots(100, 2, 40, true, {})).toEqual({ requestSlots: 50, lent: 0, concurrency: 28 });
  // 300 ms asks for the whole cap: three workers keep 8 slots each, the runner 1, and lends 75.
  expect(shareSlots(100, 3, 300, true, {})).toEqual({ requestSlots: 8, lent: 75, concurrency: 100 });
  // Every slot accounted for: the workers' own, the runner's one, the pool: never more than the cap.
  for (const [cap, workers] of [
    [100, 3],
    [40, 3],
    [100, 2],
    [13, 2],
  ]) {
    const share = shareSlots(cap, workers, 300, true, {});
    expect(workers * share.requestSlots + (share.lent ? share.lent + 1 : 0)).toBeLessThanOrEqual(cap);
  }
  // A pool no bigger than a share is not worth its messages; one worker, or no pool to be had: the shares.
  expect(shareSlots(12, 3, 300, true, {}).lent).toBe(0);
  expect(shareSlots(100, 1, 300, true, {})).toEqual({ requestSlots: 100, lent: 0, concurrency: 100 });
  expect(shareSlots(100, 3, 300, false, {})).toEqual({ requestSlots: 33, lent: 0, concurrency: 33 });
});

test('the pool lends in turn among the workers that ask, never more than it holds, and takes back what a worker that leaves held', () => {
  const pool = new SlotPool(4);
  const got = { a: 0, b: 0, c: 0 };
  const a = pool.join((line) => (got.a += Number(line.slice(1))));
  const b = pool.join((line) => (got.b += Number(line.slice(1))));
  const c = pool.join((line) => (got.c += Number(line.slice(1))));
  a.receive('+10'); // a long queue first...
  expect(got).toEqual({ a: 4, b: 0, c: 0 });
  b.receive('+2'); // ...does not keep the next one waiting behind it: slots given back go in turn
  c.receive('+1');
  a.receive('-3');
  expect(got).toEqual({ a: 5, b: 1, c: 1 });
  expect(pool.lent).toBe(4);
  c.receive('~5'); // no longer wanted (it had none outstanding): nothing changes
  a.receive('-1');
  expect(got).toEqual({ a: 5, b: 2, c: 1 });
  // A worker gone gives back what it held: the others get it.
  c.leave();
  expect(got.a).toBe(6);
  expect(pool.lent).toBe(4);
  // More given back than lent, or a line that means nothing, changes nothing.
  b.receive('-9');
  b.receive('+x');
  expect(pool.lent).toBeLessThanOrEqual(4);
});

test("through the socket: a worker's requests beyond its own slots wait for the runner's, and give them back", async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-slots-'));
  const { pool, close } = await lendSlots(poolAddress(stateDir), 2);
  // This process keeps one slot of its own; another worker asks for one too.
  configureHttp({ maxConcurrency: 1 });
  let otherGot = 0;
  const other = pool.join(() => (otherGot += 1));
  try {
    borrowSlotsFrom(poolAddress(stateDir));
    const releases = await Promise.all([requestSlot(), requestSlot(), requestSlot()]);
    expect(pool.lent).toBe(2);
    let fourthStarted = false;
    const fourth = requestSlot().then((release) => ((fourthStarted = true), release));
    other.receive('+1');
    await new Promise((r) => setTimeout(r, 50));
    expect(fourthStarted).toBe(false); // every slot is taken: one own, two lent
    releases[2](); // a lent slot goes back to the pool, whose next in turn is the other worker
    await expect.poll(() => otherGot).toBe(1);
    expect(fourthStarted).toBe(false);
    releases[0](); // the own slot goes to the request waiting here
    const release = await fourth;
    for (const r of [releases[1], release]) r();
    await expect.poll(() => pool.lent).toBe(1); // the other worker's slot
  } finally {
    configureHttp({});
    await close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

test('a request kept waiting while lent slots were above a halved window starts once they are given back', async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-slots-'));
  const { pool, close } = await lendSlots(poolAddress(stateDir), 2);
  configureHttp({ maxConcurrency: 1 });
  try {
    borrowSlotsFrom(poolAddress(stateDir));
    const releases = await Promise.all([requestSlot(), requestSlot(), requestSlot()]); // one own, two lent
    expect(pool.lent).toBe(2);
    answeredLate(); // late answers: the window halves to 2, below the 3 in flight
    let started = false;
    const fourth = requestSlot().then((release) => ((started = true), release));
    for (const release of releases) release();
    // Every slot is back and the window lets 2 in: the request waiting must not wait for ever.
    await expect.poll(() => started, { timeout: 2000 }).toBe(true);
    (await fourth)();
  } finally {
    resetPace();
    configureHttp({});
    await close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

test("a write lane's request waiting for a slot goes before the others waiting (its checks wait for one another: each of its waits is the lane's)", async () => {
  configureHttp({ maxConcurrency: 1 });
  try {
    const order: string[] = [];
    const held = await requestSlot();
    const waiting = [requestSlot(), requestSlot(), requestSlot(true)].map((p, i) =>
      p.then((release) => {
        order.push(['read 1', 'read 2', 'lane'][i]);
        release();
      }),
    );
    held();
    await Promise.all(waiting);
    expect(order).toEqual(['lane', 'read 1', 'read 2']);
  } finally {
    configureHttp({});
  }
});

test('through the command, a target 150 ms away runs its route groups side by side, a group with many checks borrows beyond its share, and the server never sees more than the cap', async () => {
  // The cars group's checks, and one check in each of two other route groups (users, trips), every
  // answer held 150 ms by a proxy that counts them; a cap of 40: 13 each as fixed shares.
  const reference = await startReference();
  const proxy = await countingProxy(`http://127.0.0.1:${reference.port}`, 150);
  try {
    const grep = '^(RESP-STATUS (GET /users/me|GET /trips/\\{tripId\\}) |(CORE-ROUTE-ANSWERS|RESP-[A-Z-]+) GET /cars/)';
    const run = await runCommand(['conformance', '--target', targetFile(proxy.origin, reference.control, 40), '--grep', grep], {
      env: { VDS_REPORTS: 'certificate' },
      timeoutMs: 120_000,
    });
    expect(run.code, run.output.slice(-3000)).toBe(0);
    const groups = Number(/Running \d+ checks? in (\d+) route groups?/.exec(run.output)?.[1]);
    expect(groups, run.output.slice(-3000)).toBe(3);
    expect(run.output).toContain(`${groups} workers (the route groups side by side)`);
    expect(proxy.most(), 'requests the server held at once').toBeLessThanOrEqual(40);
    expect(proxy.mostOn('/cars'), "the cars group's requests at once: more than a share of 13").toBeGreaterThan(requestSlotsFor(40, 3));
  } finally {
    await proxy.close();
    await reference.stop();
  }
});

test("through the command, the workers side by side share the target's rate limit: the server never sees more than requestsPerSecond", async () => {
  // The cars group's checks and one check of the users group (two workers), 150 ms away, 40 requests a
  // second at most: a worker's share is 20 (each worker alone at 40 would let the server see up to 80).
  const reference = await startReference();
  const proxy = await countingProxy(`http://127.0.0.1:${reference.port}`, 150);
  try {
    const grep = '^(RESP-STATUS GET /users/me |(CORE-ROUTE-ANSWERS|RESP-[A-Z-]+|AUTH-[A-Z-]+|SCOPE-[A-Z-]+) GET /cars/)';
    const target = targetFile(proxy.origin, reference.control, undefined, { rateLimit: { requestsPerSecond: 40 } });
    const run = await runCommand(['conformance', '--target', target, '--grep', grep], {
      env: { VDS_REPORTS: 'certificate', VDS_LATENCY_SAMPLING: 'off' },
      timeoutMs: 120_000,
    });
    expect(run.code, run.output.slice(-3000)).toBe(0);
    expect(run.output).toContain('2 workers (the route groups side by side)');
    // From the checks' first request (the preparation, in the runner alone, never asks a car's status):
    // the most requests the server saw in any two seconds.
    const first = proxy.arrivals.findIndex((a) => /^\/v3\/cars\/[^/]+\/status/.test(a.path));
    const times = proxy.arrivals.slice(first).map((a) => a.at);
    expect(first, 'the checks reached the server').toBeGreaterThan(0);
    expect(times.length, "enough requests to exceed the limit if it were each worker's").toBeGreaterThan(120);
    const mostInTwoSeconds = Math.max(...times.map((t, i) => times.slice(i).filter((u) => u < t + 2000).length));
    // Each worker starts a request at most every 50 ms: 41 in two seconds, and the users group's few
    // (a worker stalled a moment sends the requests due meanwhile together: some slack); each worker
    // at the whole rate would send about 80.
    expect(mostInTwoSeconds).toBeLessThanOrEqual(55);
  } finally {
    await proxy.close();
    await reference.stop();
  }
});
