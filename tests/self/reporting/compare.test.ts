// Nightly comparison with a previous certificate, and the exit status each mode decides.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { compareCertificates, CompareError, readCertificate } from '../../../src/monitoring/compare';
import { EXIT } from '../../../src/verdict/exit-codes';
import { decideGate } from '../../../src/verdict/gate';
import { routeLatency } from '../../../src/verdict/latency';
import type { ServerLatency } from '../../../src/verdict/model';
import { renderChangesMarkdown } from '../../../src/rendering/render-changes';
import { certificate, check, requirement } from './synthetic';

const reqs = ['A', 'B', 'C', 'D'].map((id) => requirement(id));
const options = { path: 'previous.json', ratio: 1.5, floorMs: 100 };

/** A certificate's serverLatency from samples per route. */
function sampled(routes: Record<string, number[]>): ServerLatency {
  return { method: 'synthetic', routes: Object.fromEntries(Object.entries(routes).map(([r, ms]) => [r, routeLatency(ms)])) };
}

test('newly failing, newly passing and newly not run requirements are found; unchanged ones are not listed', () => {
  const before = certificate(reqs, [
    check('A', 'GET /x', 'passed'),
    check('B', 'GET /x', 'failed'),
    check('C', 'GET /x', 'passed'),
    check('D', 'GET /x', 'failed'),
  ]);
  const now = certificate(reqs, [
    check('A', 'GET /x', 'failed'),
    check('B', 'GET /x', 'passed'),
    check('C', 'GET /x', 'not-run'),
    check('D', 'GET /x', 'failed'),
  ]);
  const c = compareCertificates(before, now, options);
  expect(c.newlyFailing.map((x) => [x.id, x.was])).toEqual([['A', 'passed']]);
  expect(c.newlyPassing.map((x) => [x.id, x.was])).toEqual([['B', 'failed']]);
  expect(c.newlyNotRun.map((x) => [x.id, x.was])).toEqual([['C', 'passed']]);
  expect(c.worse).toBe(true);
});

test('only getting better is not worse', () => {
  const before = certificate(reqs, [check('A', 'GET /x', 'failed')]);
  const now = certificate(reqs, [check('A', 'GET /x', 'passed')]);
  const c = compareCertificates(before, now, options);
  expect(c.worse).toBe(false);
  expect(decideGate({ certificate: now, comparison: c }).status).toBe('passed');
});

test('a requirement new to the catalogue that fails counts as newly failing; advisory ones never count', () => {
  const before = certificate([requirement('A')], [check('A', 'GET /x', 'passed')]);
  const now = certificate(
    [requirement('A'), requirement('N'), requirement('ADV', { advisory: true })],
    [check('A', 'GET /x', 'passed'), check('N', 'GET /x', 'failed'), check('ADV', 'GET /x', 'not-run')],
  );
  const c = compareCertificates(before, now, options);
  expect(c.newlyFailing.map((x) => [x.id, x.was])).toEqual([['N', 'absent']]);
  expect(c.newlyNotRun).toEqual([]);
});

test('a slower route fails the comparison and is named by the gate; the rule itself is tested in slowdown.test.ts', () => {
  const before = {
    ...certificate(reqs, [check('A', 'GET /x', 'passed')]),
    serverLatency: sampled({ 'GET /slow': [10, 11, 12, 10, 11], 'GET /same': [10, 11, 12, 10, 11] }),
  };
  const now = {
    ...certificate(reqs, [check('A', 'GET /x', 'passed')]),
    serverLatency: sampled({ 'GET /slow': [210, 211, 215, 212, 230], 'GET /same': [12, 11, 10, 13, 11] }),
  };
  const c = compareCertificates(before, now, options);
  expect(c.latencyRegressions).toEqual([
    { route: 'GET /slow', previous: { fastest: 10, p50: 11, p90: 12, count: 5 }, current: { fastest: 210, p50: 212, p90: 230, count: 5 }, ratio: 19.27 },
  ]);
  expect(c).toMatchObject({ worse: true, ratio: 1.5, floorMs: 100, minSamples: 5 });
  const gate = decideGate({ certificate: now, comparison: c });
  expect(gate).toMatchObject({ status: 'failed', exitCode: EXIT.failed });
  expect(gate.reasons).toEqual(['slower (fastest and median beyond 1.5x and +100 ms): GET /slow']);
  // The checks' own request durations (the suite's queueing) are never compared.
  const queued = { ...now, serverLatency: before.serverLatency, latency: { 'GET /same': { count: 50, errors: 0, p50: 400, p95: 900, max: 990 } } };
  expect(compareCertificates(before, queued, options).worse).toBe(false);
});

test('options the certificate could not apply (a merge given an unreadable baseline) fail the gate with exit 2', () => {
  const now = certificate(reqs, [check('A', 'GET /x', 'passed')]);
  const gate = decideGate({ certificate: now, problems: ['baseline file not found: /x.yaml'] });
  expect(gate).toMatchObject({ status: 'failed', rule: 'options', exitCode: EXIT.usage });
});

test('changes.md names every change, the slowdown rule and the latency notes', () => {
  const before = {
    ...certificate(reqs, [check('A', 'GET /x', 'passed')]),
    serverLatency: sampled({ 'GET /slow': [100, 100, 100, 100, 100], 'GET /spiky': [5, 5, 5, 5, 5] }),
  };
  const now = {
    ...certificate(reqs, [check('A', 'GET /x', 'failed')]),
    serverLatency: sampled({ 'GET /slow': [400, 400, 400, 400, 400], 'GET /spiky': [5, 5, 6, 5, 400] }),
  };
  const md = renderChangesMarkdown(compareCertificates(before, now, options));
  expect(md).toContain('Something got worse');
  expect(md).toContain('A (core): passed -> failed');
  expect(md).toContain('GET /slow: median 100 -> 400 ms (x4), fastest 100 -> 400 ms, p90 100 -> 400 ms (5 and 5 samples)');
  expect(md).toContain(
    "the fastest and the median of the server's sampled answer times each grew more than 1.5x and by at least 100 ms, on 5 samples or more in both runs",
  );
  expect(md).toMatch(/## Latency notes \(not failures\)\n\n- GET \/spiky: the p90 grew .* but not the fastest and median/);
});

test('a previous file that is not a certificate is refused clearly', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-compare-'));
  fs.writeFileSync(path.join(dir, 'x.json'), '{"hello": 1}');
  expect(() => readCertificate(path.join(dir, 'x.json'))).toThrow(CompareError);
  expect(() => readCertificate(path.join(dir, 'missing.json'))).toThrow(/not found/);
  const good = path.join(dir, 'good.json');
  fs.writeFileSync(good, JSON.stringify(certificate(reqs, [])));
  expect(readCertificate(good).requirements).toHaveLength(4);
});

test('without baseline or comparison the verdicts of the gated classes decide; a run that did not complete always fails', () => {
  const pass = certificate([requirement('A'), requirement('P', { class: 'profile' })], [check('A', 'GET /x', 'passed'), check('P', 'GET /x', 'failed')]);
  // The default gate judges both classes: a profile failure fails the run, and says which requirement.
  expect(decideGate({ certificate: pass })).toMatchObject({ status: 'failed', exitCode: 1, classes: 'all' });
  expect(decideGate({ certificate: pass }).reasons).toEqual(['the profile verdict is FAIL: P']);
  // --gate core: the spec only.
  expect(decideGate({ certificate: pass, gate: 'core' })).toMatchObject({ status: 'passed', classes: 'core' });
  const advisory = certificate(
    [requirement('A'), requirement('W', { class: 'profile', advisory: true })],
    [check('A', 'GET /x', 'passed'), check('W', 'GET /x', 'failed')],
  );
  expect(decideGate({ certificate: advisory }).status).toBe('passed'); // advisory requirements only warn
  const incomplete = certificate([requirement('A')], [check('A', 'GET /x', 'not-run')]);
  expect(decideGate({ certificate: incomplete }).status).toBe('passed');
  const fail = certificate([requirement('A')], [check('A', 'GET /x', 'failed')]);
  expect(decideGate({ certificate: fail })).toMatchObject({ status: 'failed', reasons: ['the core verdict is FAIL: A'] });
  expect(decideGate({ certificate: fail, gate: 'core' }).status).toBe('failed');
  const broken = { ...pass, run: { ...pass.run, errors: ['The target "x" does not answer'] } };
  expect(decideGate({ certificate: broken })).toMatchObject({ status: 'failed', rule: 'the run did not complete' });
  expect(decideGate({ certificate: pass, problems: ['baseline not found'] }).status).toBe('failed');
});
