// The Allure results, one per check (src/rendering/render-allure.ts): the labels Allure's filters and
// trees read, the outcome of each status (advisory failures as warnings, not-run and not-applicable
// as skipped with their reason), the requests as steps, the triage's causes as categories, and no
// secret in the files written. The real runs' results are checked where those runs already happen:
// triage-run.test.ts (failed results = the certificate's failed checks, against reference faults) and
// secrets.test.ts (a full run: one result per check in the report's summary, Allure's history).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { allureResults, writeAllureResults } from '../../../src/rendering/render-allure';
import { Redactor } from '../../../src/util/redact';
import { NOT_SELECTED, reportedChecks, resolveChecks } from '../../../src/verdict/verdict';
import { writeCertificateFiles } from '../../../src/rendering/certificate-files';
import { decideGate } from '../../../src/verdict/gate';
import { headlineOf } from '../../../src/verdict/headline';
import type { Certificate } from '../../../src/verdict/model';
import { certificate, check, requirement } from './synthetic';
import { exchange, record } from './synthetic-exchanges';

const SECRET = 'tok_5e4d3c2b1a09';
const KEY = 'ERR-CAR-NOT-FOUND GET /cars/{carId}/status';

function sample(): { c: Certificate; results: ReturnType<typeof allureResults> } {
  const requirements = [
    requirement('ERR-CAR-NOT-FOUND', { class: 'profile', severity: 'critical', cite: 'v3-profile.md § Errors (Resources)' }),
    requirement('RESP-DATE-ORDER', { advisory: true, severity: 'minor' }),
    requirement('SCOPE-MISSING', { severity: 'major' }),
  ];
  const failed = record(KEY, [
    exchange('GET /cars/{carId}/status', 'full', 500, `{"token":"${SECRET}"}`, { url: `http://127.0.0.1:1/v3/cars/5001/status?t=${SECRET}` }),
  ]);
  const results = [
    check('ERR-CAR-NOT-FOUND', 'GET /cars/{carId}/status', 'failed', { failure: failed.failure, durationMs: 42 }),
    check('RESP-DATE-ORDER', 'GET /cars/{carId}/locations', 'failed'),
    check('SCOPE-MISSING', 'GET /cars/{carId}', 'not-run'),
    check('SCOPE-MISSING', 'GET /cars', 'not-applicable', { reason: 'a sandbox without tokens' }),
    check('SCOPE-MISSING', 'GET /users/me', 'passed'),
  ];
  const c = certificate(requirements, results);
  c.triage = {
    failed: 1,
    explained: 1,
    causes: [{ id: 'error-body', title: 'errors are one object', explains: 1, checks: [KEY], routes: [], fix: 'Answer arrays.' }],
  };
  const planned = results.map((r) => ({ requirement: r.requirement, key: r.key, group: r.group }));
  return { c, results: allureResults(c, resolveChecks(c.requirements, planned, results), [failed]) };
}

test('one Allure result per check, labelled by class, route group, requirement, severity and tags, linked to its requirement', () => {
  const { results } = sample();
  expect(results.map((r) => r.name)).toHaveLength(5);
  const r = results.find((x) => x.name === KEY)!;
  const labels = (name: string) => r.labels.filter((l) => l.name === name).map((l) => l.value);
  expect(labels('epic')).toEqual(['profile']);
  expect(labels('feature')).toEqual(['cars']);
  expect(labels('story')).toEqual(['ERR-CAR-NOT-FOUND']);
  expect(labels('severity')).toEqual(['critical']);
  expect(labels('tag')).toEqual(['ERR-CAR-NOT-FOUND', 'profile', 'cars', 'critical']);
  expect(labels('package')).toEqual(['profile.cars']);
  expect(r.links[0].name).toContain('v3-profile.md § Errors (Resources)');
  expect(r.links[0].url).toMatch(/docs\/REQUIREMENTS\.md#L\d+$/); // the real document: ERR-CAR-NOT-FOUND is a row of it
  // The same ids as every run: Allure's history follows a check by them.
  expect(r.historyId).toBe(sample().results.find((x) => x.name === KEY)!.historyId);
  expect(r.stop! - r.start!).toBe(42);
});

test('outcomes: failed with expected vs actual and its category, advisory as a passing warning, not run and not applicable skipped with their reason', () => {
  const { results } = sample();
  const byName = new Map(results.map((r) => [r.name, r]));
  const failed = byName.get(KEY)!;
  expect(failed.status).toBe('failed');
  expect(failed.statusDetails.message).toBe('expected: status 200; actual: status 500');
  expect(failed.labels).toContainEqual({ name: 'cause', value: "Errors not the spec's array (error body shape)" });
  const advisory = byName.get('RESP-DATE-ORDER GET /cars/{carId}/locations')!;
  expect(advisory.status).toBe('passed');
  expect(advisory.statusDetails.message).toMatch(/^advisory \(a warning, never a failure\): expected: status 404; actual: status 500/);
  expect(advisory.labels).toContainEqual({ name: 'advisory', value: 'true' });
  expect(advisory.labels).toContainEqual({ name: 'tag', value: 'advisory' });
  expect(advisory.labels.some((l) => l.name === 'cause')).toBe(false);
  // Not run and not applicable: both skipped in Allure's statuses, told apart by their message and outcome label.
  const notRun = byName.get('SCOPE-MISSING GET /cars/{carId}')!;
  expect(notRun).toMatchObject({ status: 'skipped', statusDetails: { message: expect.stringMatching(/^Not run: needs the token/) } });
  expect(notRun.labels).toContainEqual({ name: 'outcome', value: 'not run' });
  expect(notRun.labels).toContainEqual({ name: 'tag', value: 'not-run' });
  const notApplicable = byName.get('SCOPE-MISSING GET /cars')!;
  expect(notApplicable).toMatchObject({ status: 'skipped', statusDetails: { message: 'Not applicable (never counts): a sandbox without tokens' } });
  expect(notApplicable.labels).toContainEqual({ name: 'outcome', value: 'not applicable' });
  expect(failed.labels).toContainEqual({ name: 'outcome', value: 'failed' });
  expect(advisory.labels).toContainEqual({ name: 'outcome', value: 'warning' });
  expect(byName.get('SCOPE-MISSING GET /users/me')!.status).toBe('passed');
  // The requests as steps: the request line with the answer's status, the curl line as a parameter.
  expect(failed.steps.map((s) => s.name)).toEqual([`GET http://127.0.0.1:1/v3/cars/5001/status?t=${SECRET} -> 500`]);
  expect(failed.steps[0].parameters).toContainEqual({ name: 'status', value: '500' });
  expect(failed.steps[0].parameters).toContainEqual({ name: 'curl', value: expect.stringContaining('$VDS_TOKEN_FULL') });
});

test('the results folder: one file per check and the categories, redacted as every report', () => {
  const { results } = sample();
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-allure-')), 'allure-results');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'stale-result.json'), '{}'); // an earlier run's: gone, or it would count
  writeAllureResults(dir, results, new Redactor([SECRET]));
  const files = fs.readdirSync(dir);
  expect(files.filter((f) => f.endsWith('-result.json'))).toHaveLength(5);
  expect(files).not.toContain('stale-result.json');
  const categories = JSON.parse(fs.readFileSync(path.join(dir, 'categories.json'), 'utf8')) as Array<{ name: string }>;
  expect(categories.map((c) => c.name)).toContain("Errors not the spec's array (error body shape)");
  const text = files.map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  expect(text).toContain(KEY);
  expect(text).not.toContain(SECRET);
  expect(text).toContain('[REDACTED]');
});

test('a run that selected some checks: JUnit and Allure list those alone, the verdict case counts the rest', () => {
  const requirements = [requirement('SCOPE-MISSING', { severity: 'major' }), requirement('AUTH-MISSING')];
  const results = [check('AUTH-MISSING', 'GET /users/me', 'passed'), check('SCOPE-MISSING', 'GET /cars', 'not-run', { reason: 'needs the token full' })];
  const left = [
    { requirement: 'SCOPE-MISSING', key: 'SCOPE-MISSING GET /users/me', group: 'users' },
    { requirement: 'AUTH-MISSING', key: 'AUTH-MISSING GET /cars', group: 'cars' },
  ];
  const c = certificate(requirements, results, left);
  c.gate = decideGate({ certificate: c });
  c.headline = headlineOf(c);
  const planned = [...results.map((r) => ({ requirement: r.requirement, key: r.key, group: r.group })), ...left];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-selected-'));
  writeCertificateFiles(dir, c, new Redactor([]), { ...reportedChecks(resolveChecks(c.requirements, planned, results)), records: [], allure: true });
  // The certificate keeps every planned check: those left out are not run, not selected.
  expect(c.counts.checks.total).toBe(4);
  expect(c.requirements.flatMap((r) => r.notRun.filter((n) => n.reason === NOT_SELECTED).flatMap((n) => n.checks)).sort()).toEqual(
    left.map((l) => l.key).sort(),
  );
  const junit = fs.readFileSync(path.join(dir, 'junit.xml'), 'utf8');
  const cases = [...junit.matchAll(/<testcase classname="[^"]*" name="([^"]*)"/g)].map((m) => m[1]);
  expect(cases.sort()).toEqual(["the run's verdict", ...results.map((r) => r.key)].sort());
  expect(junit).toContain('2 checks not selected in this run, not listed here (conformance.json lists them)');
  const allure = fs.readdirSync(path.join(dir, 'allure-results')).filter((f) => f.endsWith('-result.json'));
  const named = allure.map((f) => (JSON.parse(fs.readFileSync(path.join(dir, 'allure-results', f), 'utf8')) as { name: string }).name);
  expect(named.sort()).toEqual(results.map((r) => r.key).sort());
});
