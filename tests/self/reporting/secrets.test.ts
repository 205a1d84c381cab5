// No secret of a run, nor a near-miss of one the checks present, appears in any of its outputs: the console, JUnit, Playwright's HTML report,
// the blob report, Allure's results and report, the certificate, the test-results folder, the
// run's summary kept by --history and the trend pages drawn from it, Allure's history.
// The same run shows Allure as its users read it: one result per check in the report's summary,
// and a second report over the --history folder knows every check from the first (its history).
// The full suite runs against the embedded reference (started here, so that afterwards its
// GET /_control/issued lists every token, refresh token and code it minted during the run).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { targetSecrets } from '../../../src/setup/run-context';
import { loadTarget } from '../../../src/setup/target';
import { ROOT, runCommand, startReference } from './real-run';
import { Scanner } from './scan';
import { expectAllureMatchesCertificate, readQualityGate } from './allure-results';
import type { Certificate } from '../../../src/verdict/model';

/** The seeded identities: the local target file's values and the table of docs/ARCHITECTURE.md. */
function staticSecrets(): { secrets: string[]; clients: Array<[string, string]> } {
  const local = loadTarget(path.join(ROOT, 'fixtures', 'targets', 'local.yaml'), {});
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const clients = [...doc.matchAll(/client id `([^`]+)`, secret `([^`]+)`/g)].map((m): [string, string] => [m[1], m[2]]);
  const passwords = [...doc.matchAll(/`[^`\s]+@[^`\s]+` \/ `([^`]+)`/g)].map((m) => m[1]);
  return { secrets: [...new Set([...targetSecrets(local), ...clients.map(([, s]) => s), ...passwords])], clients };
}

test('a full run leaks no token, client secret, password, code or refresh token into any output', async () => {
  test.setTimeout(900_000);
  const { secrets: seeded, clients } = staticSecrets();
  expect(seeded).toEqual(expect.arrayContaining(['reference-client-secret', 'limited-client-secret', 'alice-password', 'bob-password']));
  const nights = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-nights-')), 'nights');
  const reference = await startReference();
  let minted: string[];
  let run;
  let allure;
  try {
    // Through the wrapper, as a user runs it; VDS_BLOB=1 adds the blob report of a sharded run.
    run = await runCommand(['conformance', '--history', nights], {
      target: reference.targetFile,
      env: { VDS_BLOB: '1' },
      timeoutMs: 600_000,
    });
    const issued = await fetch(`${reference.control}/issued`);
    expect(issued.status, 'the reference must expose GET /_control/issued (every secret it minted)').toBe(200);
    minted = ((await issued.json()) as { secrets: string[] }).secrets;
  } finally {
    await reference.stop();
  }
  expect(fs.existsSync(path.join(run.reportsDir, 'conformance.json')), run.output.slice(-3000)).toBe(true);
  allure = await runCommand(['conformance', 'report'], { reportsDir: run.reportsDir, timeoutMs: 180_000 });
  expect(allure.code, allure.output).toBe(0);
  // One Allure result per check: the report counts them all, not run and not applicable as skipped.
  const certificate = JSON.parse(fs.readFileSync(path.join(run.reportsDir, 'conformance.json'), 'utf8')) as Certificate;
  expectAllureMatchesCertificate(run.reportsDir, certificate);
  const summary = () =>
    JSON.parse(fs.readFileSync(path.join(run.reportsDir, 'allure-report', 'summary.json'), 'utf8')) as { stats: Record<string, number>; newTests: string[] };
  const first = summary();
  const n = certificate.counts.checks;
  expect(first.stats).toMatchObject({ total: n.total, passed: n.passed, skipped: n.notRun + (n.notApplicable ?? 0) });
  expect(first.newTests).toHaveLength(n.total);
  // The run's verdict as the report's quality gate, in the headline's words.
  expect(readQualityGate(run.reportsDir)).toEqual([
    expect.objectContaining({
      rule: 'conformance/verdict',
      success: certificate.gate!.status === 'passed',
      actual: expect.stringContaining(certificate.headline!.reason),
    }),
  ]);
  // --history: the run named where the report keeps Allure's history; a second report (the next night's) reads it.
  const historyFile = path.join(nights, 'allure-history.jsonl');
  expect(JSON.parse(fs.readFileSync(path.join(run.reportsDir, 'allure-history.json'), 'utf8'))).toEqual({ historyPath: historyFile });
  const again = await runCommand(['conformance', 'report'], { reportsDir: run.reportsDir, timeoutMs: 180_000 });
  expect(again.code, again.output).toBe(0);
  expect(fs.readFileSync(historyFile, 'utf8').trim().split('\n'), 'one history point per report').toHaveLength(2);
  expect(summary().newTests, 'every check has a history in the second report').toEqual([]);
  expect(minted.length, 'the run minted tokens and codes').toBeGreaterThan(5);

  // HTTP Basic credentials carry the client secret base64-encoded.
  const basic = clients.map(([id, secret]) => Buffer.from(`${id}:${secret}`).toString('base64'));
  const secrets = [...new Set([...seeded, ...minted, ...basic])].filter((s) => s.length >= 6);
  // Markers prove the scan read each output: a requirement id in the reports; in the console (where
  // CI's dot reporter prints no test titles) the verdict header, printed on every run.
  // The checks present near-misses of the minted tokens and codes: those leak none of them either.
  const scanner = new Scanner(secrets, ['CORE-CAR-RECORD', 'VDS v3 conformance of', '$VDS_TOKEN_FULL'], minted);
  scanner.scanTree(run.reportsDir);
  scanner.scanTree(nights);
  scanner.scanText('console', run.output + allure.output + again.output);

  const { hits, places, markers } = scanner.result;
  const mask = (text: string) => secrets.reduce((t, s, i) => t.split(s).join(`<secret #${i}>`), text);
  expect(
    hits.map((h) => `${h.where}: …${mask(h.context)}…`),
    'secret values found in the outputs',
  ).toEqual([]);

  // The scan reached inside every kind of output (otherwise "no hit" would prove nothing).
  const seen = (pattern: RegExp) => markers['CORE-CAR-RECORD'].some((w) => pattern.test(w));
  expect(seen(/junit\.xml$/), 'JUnit').toBe(true);
  expect(seen(/html[\\/]index\.html#base64!/), "Playwright's HTML report data").toBe(true);
  expect(seen(/blob[\\/].*\.zip!/), 'the blob report').toBe(true);
  expect(seen(/allure-results[\\/]/), 'Allure results').toBe(true);
  expect(
    markers['$VDS_TOKEN_FULL'].some((w) => /allure-results[\\/].*-result\.json$/.test(w)),
    "the Allure results' steps (curl lines)",
  ).toBe(true);
  expect(seen(/allure-report[\\/]index\.html#base64/), "Allure's single-file report data").toBe(true);
  expect(seen(/conformance\.(json|md|html)$/), 'the certificate').toBe(true);
  expect(
    markers['VDS v3 conformance of'].some((w) => w === 'console'),
    'the console',
  ).toBe(true);
  expect(
    places.filter((p) => /nights[\\/].*_local\.json$|trend\.(html|md)$/.test(p)),
    'the history and the trend',
  ).toHaveLength(3);
  expect(places.length).toBeGreaterThan(50);
});

test("a run leaves no state folder in the temporary folder: its context and kept tokens go with the run's end", async () => {
  test.setTimeout(120_000);
  // A temporary folder of the run's own (TMPDIR), Playwright's compile cache kept where it is.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-tmpdir-'));
  const cache = path.join(os.tmpdir(), `playwright-transform-cache-${process.geteuid?.() ?? ''}`);
  const run = await runCommand(['conformance', '--grep', '^AUTH-MISSING GET /users/me @'], {
    target: 'local',
    env: { TMPDIR: tmp, PLAYWRIGHT_TRANSFORM_CACHE_DIR: cache, VDS_REPORTS: 'certificate', VDS_LATENCY_SAMPLING: 'off' },
    timeoutMs: 120_000,
  });
  expect(run.code, run.output.slice(-2000)).toBe(0);
  const left = fs.readdirSync(tmp).filter((f) => /^vds-(run|replay|server)-/.test(f));
  expect(left, 'state folders left behind (they hold the run tokens)').toEqual([]);
  fs.rmSync(tmp, { recursive: true, force: true });
});
