// A route that never answers costs the run its time-out twice at most, not once per check (src/transport/breaker.ts).
// The reference behind a proxy that accepts GET /cars/{carId}/status and never answers it, against the
// same reference behind a proxy that forwards everything: the run with the hung route, latency
// sampling on as the command samples, sends that route exactly two requests (the sampling's, each
// waiting out requestTimeoutMs: a first one may be a cold start), costs at most about two
// requestTimeoutMs more than the clean run, and
// fails every check of that route and no other. In-process (src/engine/in-process.ts: the
// command's preparation, checks and judgement; the command itself adds one worker restart after the
// failing group, as any failing run does). The sign-in page's checks (a browser) are left out: they
// never ask that route.
import { expect, test } from '@playwright/test';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { startReference, writeTargetFile } from '../../../scripts/reference-process';
import { startFrontProxy } from '../support/front-proxy';

/** Short, so that the test is quick; long beside the reference's answers (a few ms), so that nothing else waits it out. */
const REQUEST_TIMEOUT_MS = 6000;
const HUNG = /^\/v3\/cars\/[^/]+\/status(\?|$)/;
const HUNG_ROUTE = 'GET /cars/{carId}/status';

test.setTimeout(180_000);

/** The reference's target file, its API behind a front proxy (its control API reached directly), with a short time-out. */
function targetFile(name: string, origin: string, control: string): string {
  return writeTargetFile(origin, 'local', { control, keys: { name, requestTimeoutMs: REQUEST_TIMEOUT_MS } });
}

test('a hung route: two requests to it in the whole run, about two requestTimeoutMs more than a clean run, only its checks fail', async () => {
  // A process of its own: the reference answers at its own pace, not between the suite's checks.
  const reference = await startReference();
  const upstream = `http://127.0.0.1:${reference.port}`;
  let hungRequests = 0;
  const clean = await startFrontProxy(upstream, () => false);
  const hung = await startFrontProxy(upstream, (req) => {
    if (req.method !== 'GET' || !HUNG.test(req.url ?? '')) return false;
    hungRequests += 1;
    return true; // accepted, never answered
  });
  try {
    const { control } = reference;
    const cleanTarget = loadTarget(targetFile('clean', clean.origin, control));
    const hungTarget = loadTarget(targetFile('hung', hung.origin, control));
    const timed = async (target: typeof cleanTarget, selection: { grep?: RegExp; grepInvert?: RegExp } = { grepInvert: /@auth/ }) => {
      const started = performance.now();
      const run = await runInProcess({ target, latencySampling: true, selection });
      return { run, ms: performance.now() - started };
    };
    // The first run of a process and of a server is slower (modules loaded, code compiled): one clean
    // run of one route group first, not timed (what it warms up is shared by the groups; the contracts
    // a group's answers need are built as its first answers come). Then a busy machine only ever adds
    // time: the smaller of two pairs' differences is the run's own cost.
    const warmUp = await timed(cleanTarget, { grep: /@trips/ });
    expect(warmUp.run.exitCode, warmUp.run.console).toBe(0);
    const extra: number[] = [];
    let last: InProcessRun | undefined;
    for (let pair = 0; pair < 2 && !extra.some((ms) => ms <= REQUEST_TIMEOUT_MS * 2.5); pair++) {
      const before = await timed(cleanTarget);
      expect(before.run.exitCode, before.run.console).toBe(0);
      hungRequests = 0;
      const after = await timed(hungTarget);
      extra.push(after.ms - before.ms);
      last = after.run;
      expect(hungRequests, "requests to the hung route in the whole run: the sampling's two only").toBe(2);
    }
    test.info().annotations.push({ type: 'extra time of the hung run (ms)', description: extra.map(Math.round).join(', ') });
    expect(Math.min(...extra), `the hung run's extra time over the clean run, each pair (ms): ${extra.map(Math.round).join(', ')}`).toBeLessThanOrEqual(
      REQUEST_TIMEOUT_MS * 2.5,
    );

    const records = last!.records;
    // A once-check that judges the hung route among others (CAR-CREATED-FORBIDDEN: every car route) fails on it too.
    const judgesHung = new Set(last!.certificate.requirements.filter((r) => r.routes.includes(HUNG_ROUTE)).map((r) => r.id));
    const failed = records.filter((r) => r.status === 'failed' && !(judgesHung.has(r.requirement) && r.key === r.requirement)).map((r) => r.key);
    expect(
      failed.filter((k) => !k.includes(` ${HUNG_ROUTE}`)),
      'failed checks of other routes',
    ).toEqual([]);
    // Every check of the hung route that runs fails (an advisory one only warns), each naming the time-out.
    const ofRoute = records.filter((r) => r.key.includes(` ${HUNG_ROUTE}`) && r.status !== 'not-applicable');
    const advisory = new Set(last!.certificate.requirements.filter((r) => r.advisory).map((r) => r.id));
    const judged = ofRoute.filter((r) => !advisory.has(r.requirement));
    expect(judged.length).toBeGreaterThan(20);
    expect(judged.filter((r) => r.status !== 'failed').map((r) => `${r.key}: ${r.status}`)).toEqual([]);
    for (const r of judged) expect(r.failure!.actual, r.key).toContain(`no complete answer within ${REQUEST_TIMEOUT_MS} ms`);
    expect(last!.certificate.triage?.causes[0].id).toBe('no-answer');
  } finally {
    await hung.close();
    await clean.close();
    await reference.stop();
  }
});

test('a cold start: a route whose first request waits out the time-out and whose others answer is judged on its answers, never closed', async () => {
  const reference = await startReference();
  let first = true;
  const cold = await startFrontProxy(`http://127.0.0.1:${reference.port}`, (req) => {
    if (req.method !== 'GET' || !HUNG.test(req.url ?? '') || !first) return false;
    first = false;
    return true; // the first request of the route gets no answer; every later one does
  });
  try {
    const run = await runInProcess({
      target: loadTarget(targetFile('cold', cold.origin, reference.control)),
      latencySampling: true,
      selection: { grepInvert: /@auth/ },
    });
    expect(first, 'the route was asked').toBe(false);
    expect(run.certificate.counts.checks.failed, run.console).toBe(0);
    expect(run.exitCode).toBe(0);
  } finally {
    await cold.close();
    await reference.stop();
  }
});
