// A run interrupted as Ctrl-C or a CI job's timeout does it (a signal to the whole process group,
// the reference server and Chromium included): it ends promptly, exits 3 (no verdict), and its
// certificate blames nothing on the server: the checks in flight when the signal came, which then
// saw a closed browser or no answer, are not run, like the checks that had not started.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { EXIT } from '../../../src/verdict/exit-codes';
import type { Certificate } from '../../../src/verdict/model';
import { readJson, runCommand } from '../support/child-run';
import { timelineLines } from '../../../src/transport/timeline';

// Against a target 150 ms away the route groups run side by side (three workers); VDS_WORKERS=1 keeps them in one.
for (const [signal, workers] of [
  ['SIGINT', 'side by side'],
  ['SIGTERM', 'one worker'],
] as const) {
  test(`a run interrupted by ${signal} mid-way (${workers}) reports no failure, says why checks did not run, and exits 3`, async () => {
    test.setTimeout(120_000);
    const run = await runCommand(['conformance'], {
      target: 'local',
      // Every answer late, so that checks are in flight when the signal comes.
      // (No latency sampling: at 150 ms an answer, it would only delay the checks.)
      env: { VDS_REFERENCE_LATENCY_MS: '150', VDS_LATENCY_SAMPLING: 'off', ...(workers === 'one worker' ? { VDS_WORKERS: '1' } : {}) },
      interrupt: { when: /\d+\/\d+ checks/, afterMs: 300, signal }, // once a quarter of the checks are in
      timeoutMs: 90_000,
    });
    expect(run.timedOut, run.output.slice(-2000)).toBe(false);
    expect(run.code, run.output.slice(-2000)).toBe(EXIT.broken);
    expect(run.output).toMatch(
      /no verdict, the run did not complete: the run was interrupted before every check ran \(\d+ passed, 0 failed, \d+ not run; the reports keep what ran\)/,
    );
    const c = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'));
    expect(c.gate).toMatchObject({ status: 'failed', rule: 'the run did not complete' });
    expect(c.counts.checks.failed, JSON.stringify(c.requirements.filter((r) => r.failures.length).map((r) => r.failures[0]))).toBe(0);
    expect(c.counts.checks.passed).toBeGreaterThan(0); // it was interrupted mid-way, not before it began
    const reasons = c.requirements.flatMap((r) => r.notRun.map((n) => n.reason));
    expect(
      reasons.some((r) => /interrupted/.test(r)),
      reasons.slice(0, 5).join('\n'),
    ).toBe(true);
  });
}

test('Ctrl-C while the preparation goes on (the workers started, waiting for it): the run ends at once, exits 3, blames nothing on the server', async () => {
  test.setTimeout(120_000);
  const timeline = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-timeline-')), 'timeline.jsonl');
  const run = await runCommand(['conformance'], {
    target: 'local',
    // Every answer 1.5 s late: the rest of the preparation (tokens, discovery, latency samples) takes
    // some twenty seconds after global setup returned and the workers started.
    env: { VDS_REFERENCE_LATENCY_MS: '1500', VDS_TIMELINE: timeline },
    interrupt: { when: () => fs.existsSync(timeline) && fs.readFileSync(timeline, 'utf8').includes('"workers started"'), afterMs: 1500, signal: 'SIGINT' },
    timeoutMs: 90_000,
  });
  const named = timelineLines(timeline).flatMap((l) => (l.kind === 'stage' ? [l.stage] : []));
  expect(named, 'the signal came before the preparation ended').not.toContain('latency sampling');
  expect(run.timedOut, run.output.slice(-2000)).toBe(false);
  expect(run.code, run.output.slice(-2000)).toBe(EXIT.broken);
  // Waiting for the rest of the preparation would take some twenty seconds more; the checks, minutes.
  expect(run.seconds, run.output.slice(-2000)).toBeLessThan(20);
  expect(run.output).not.toMatch(/Error in the run's preparation/);
  expect(run.output).toMatch(/no verdict, the run did not complete: the run was interrupted/);
  const c = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'));
  expect(c.counts.checks.failed).toBe(0);
  expect(c.counts.checks.passed).toBe(0);
  expect(c.run.errors.join('\n')).not.toMatch(/preparation failed/);
});
