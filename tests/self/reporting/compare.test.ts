// Nightly comparison with a previous certificate, and the exit status each mode decides.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { compareCertificates, CompareError, readCertificate } from '../../../reporters/compare';
import { EXIT } from '../../../reporters/exit-codes';
import { decideGate } from '../../../reporters/gate';
import { renderChangesMarkdown } from '../../../reporters/render-changes';
import { certificate, check, requirement } from './synthetic';

const reqs = ['A', 'B', 'C', 'D'].map((id) => requirement(id));
const options = { path: 'previous.json', ratio: 1.5, floorMs: 50 };

function latencies(route: string, ms: number[]) {
  return ms.map((m) => ({ route, ms: m }));
}

test('newly failing, newly passing and newly not run requirements are found; unchanged ones are not listed', () => {
  const before = certificate(reqs, [check('A', 'GET /x', 'passed'), check('B', 'GET /x', 'failed'), check('C', 'GET /x', 'passed'), check('D', 'GET /x', 'failed')]);
  const now = certificate(reqs, [check('A', 'GET /x', 'failed'), check('B', 'GET /x', 'passed'), check('C', 'GET /x', 'not-run'), check('D', 'GET /x', 'failed')]);
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
  const now = certificate([requirement('A'), requirement('N'), requirement('ADV', { advisory: true })], [
    check('A', 'GET /x', 'passed'), check('N', 'GET /x', 'failed'), check('ADV', 'GET /x', 'not-run'),
  ]);
  const c = compareCertificates(before, now, options);
  expect(c.newlyFailing.map((x) => [x.id, x.was])).toEqual([['N', 'absent']]);
  expect(c.newlyNotRun).toEqual([]);
});

test('latency regression: p95 beyond the ratio, ignoring routes under the floor, routes timed too few times, and routes new since', () => {
  const five = (ms: number[]) => [...Array(5 - ms.length).fill(ms[0]), ...ms];
  const before = certificate(reqs, [check('A', 'GET /x', 'passed', {
    latencies: [...latencies('GET /slow', five([100])), ...latencies('GET /tiny', five([5])), ...latencies('GET /same', five([200])), ...latencies('GET /few', [100, 100])],
  })]);
  const now = certificate(reqs, [check('A', 'GET /x', 'passed', {
    latencies: [...latencies('GET /slow', five([100, 160])), ...latencies('GET /tiny', five([30, 40])), ...latencies('GET /same', five([290])),
      ...latencies('GET /few', [900, 900]), ...latencies('GET /new', five([900]))],
  })]);
  const c = compareCertificates(before, now, options);
  expect(c.latencyRegressions).toEqual([{ route: 'GET /slow', previousP95: 100, currentP95: 160, ratio: 1.6 }]);
  expect(c.worse).toBe(true);
  expect(compareCertificates(before, now, { ...options, ratio: 2 }).latencyRegressions).toEqual([]);
  const gate = decideGate({ certificate: now, comparison: c });
  expect(gate.status).toBe('failed');
  expect(gate.reasons.join()).toContain('GET /slow');
});

test('options the certificate could not apply (a merge given an unreadable baseline) fail the gate with exit 2', () => {
  const now = certificate(reqs, [check('A', 'GET /x', 'passed')]);
  const gate = decideGate({ certificate: now, problems: ['baseline file not found: /x.yaml'] });
  expect(gate).toMatchObject({ status: 'failed', rule: 'options', exitCode: EXIT.usage });
});

test('changes.md names every change, the ratio and the floor', () => {
  const before = certificate(reqs, [check('A', 'GET /x', 'passed', { latencies: latencies('GET /slow', [100, 100, 100, 100, 100]) })]);
  const now = certificate(reqs, [check('A', 'GET /x', 'failed', { latencies: latencies('GET /slow', [400, 400, 400, 400, 400]) })]);
  const md = renderChangesMarkdown(compareCertificates(before, now, options));
  expect(md).toContain('Something got worse');
  expect(md).toContain('A (core): passed -> failed');
  expect(md).toContain('GET /slow: p95 100 ms -> 400 ms (x4)');
  expect(md).toContain('more than 1.5x; routes under 50 ms or timed fewer than 5 times ignored');
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
  const advisory = certificate([requirement('A'), requirement('W', { class: 'profile', advisory: true })], [check('A', 'GET /x', 'passed'), check('W', 'GET /x', 'failed')]);
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
