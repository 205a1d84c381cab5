// Sharded runs merged with merge-reports give the same certificate as one run. A small selection
// subset runs three times against one reference (with a fault that fails a core requirement, so the
// subset has failures as well as passes and not-run checks): whole, then as shard 1/2 and 2/2 (blob
// reports), merged. The merge must also exit as the whole run did (merge-reports itself exits 0:
// the wrapper exits with the merged certificate's gate). The merge writes the Allure results of the
// whole run (one per check), as one run does.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { newReportsDir, readJson, runCommand, startReference } from './real-run';
import { expectAllureMatchesCertificate, readAllureResults } from './allure-results';

const SUBSET = '(CORE-CAR-RECORD|CORE-SANDBOX-OPEN|ERR-CAR-NOT-FOUND|RESP-DATE-ORDER) ';

/**
 * Everything but what differs between any two runs: when and how long (also inside the run
 * warnings: global setup reports its own duration, once per shard), and the latency samples.
 */
function comparable(c: Certificate): unknown {
  const { latency: _latency, serverLatency: _sampled, run, ...rest } = c;
  const { date: _date, durationMs: _duration, warnings, ...stable } = run;
  return { ...rest, run: { ...stable, warnings: [...new Set(warnings.map((w) => w.replace(/\d+(\.\d+)?/g, '#')))] } };
}

test('2 shards + merge-reports give the same conformance.json as one run (timings aside)', async () => {
  test.setTimeout(600_000);
  const reference = await startReference({ fault: 'car-date-zulu' });
  let whole;
  const shards = [];
  try {
    const run = (args: string[]) => runCommand(['playwright', 'test', ...args], { target: reference.targetFile, env: { VDS_GREP: SUBSET } });
    // One after the other: each run resets the reference's state in its global setup.
    whole = await run([]);
    for (const shard of ['1/2', '2/2']) shards.push(await run([`--shard=${shard}`]));
  } finally {
    await reference.stop();
  }
  const blobs = newReportsDir();
  for (const s of shards) {
    const dir = path.join(s.reportsDir, 'blob');
    expect(fs.existsSync(dir), s.output.slice(-2000)).toBe(true);
    for (const f of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, f), path.join(blobs, f));
  }
  expect(fs.readdirSync(blobs)).toHaveLength(2);
  // `npm run merge -- DIR`: merge-reports with src/playwright/merge.config.ts, exiting with the merged gate.
  const merged = await runCommand(['conformance', '--merge', blobs]);

  const one = readJson<Certificate>(path.join(whole.reportsDir, 'conformance.json'));
  const parts = shards.map((s) => readJson<Certificate>(path.join(s.reportsDir, 'conformance.json')));
  const combined = readJson<Certificate>(path.join(merged.reportsDir, 'conformance.json'));

  // The subset is worth comparing: failures, not-run checks and passes, split across the shards.
  const status = (c: Certificate, id: string) => c.requirements.find((r) => r.id === id)!.status;
  expect(status(one, 'CORE-CAR-RECORD')).toBe('failed');
  expect(status(one, 'CORE-SANDBOX-OPEN')).toBe('not-applicable');
  expect(status(one, 'ERR-CAR-NOT-FOUND')).toBe('passed');
  // Both lists of a user's cars (GET /users/{userId}/cars, GET /users/me/cars) write the car dates with Z.
  expect(one.requirements.find((r) => r.id === 'CORE-CAR-RECORD')!.failures).toHaveLength(2);
  for (const p of parts) {
    expect(p.counts.checks.passed + p.counts.checks.failed).toBeLessThan(one.counts.checks.passed + one.counts.checks.failed);
  }

  expect(comparable(combined)).toEqual(comparable(one));
  expect(Object.keys(combined.latency).sort()).toEqual(Object.keys(one.latency).sort());
  // Each shard sampled the server's latency in its own global setup: the merge keeps both shards' samples.
  for (const [route, r] of Object.entries(one.serverLatency!.routes)) {
    expect(combined.serverLatency!.routes[route].count, route).toBe(2 * r.count);
  }
  expect(whole.code).toBe(1); // core FAIL
  expect(merged.code).toBe(1);
  expect(fs.readFileSync(path.join(merged.reportsDir, 'conformance.md'), 'utf8')).toContain('CORE-CAR-RECORD GET /users/{userId}/cars');
  expect(fs.existsSync(path.join(merged.reportsDir, 'junit.xml'))).toBe(true);
  // Allure: no shard writes results (each would list the others' checks as not run); the merge writes the whole run's.
  for (const s of shards) expect(fs.existsSync(path.join(s.reportsDir, 'allure-results'))).toBe(false);
  expectAllureMatchesCertificate(merged.reportsDir, combined);
  expect(
    readAllureResults(merged.reportsDir)
      .map((r) => r.name)
      .sort(),
  ).toEqual(
    readAllureResults(whole.reportsDir)
      .map((r) => r.name)
      .sort(),
  );
});
