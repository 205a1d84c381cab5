// Baselines of known failures: written from a run, read back, and judged against a later run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { BaselineError, evaluateBaseline, readBaseline, renderBaseline, writeBaseline, type CheckState } from '../../../src/verdict/baseline';
import { decideGate } from '../../../src/verdict/gate';
import { certificate, check, requirement } from './synthetic';

function tmp(name: string): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-baseline-')), name);
}

function state(key: string, status: CheckState['status'], cls: CheckState['class'] = 'core'): CheckState {
  return { key, requirement: key.split(' ')[0], class: cls, advisory: false, status };
}

const reqs = [requirement('A'), requirement('B'), requirement('P', { class: 'profile', title: 'Quotes "and" colons: fine' })];

test('--update-baseline writes every failing check key under its requirement, with a reason line to fill in', () => {
  const c = certificate(reqs, [check('A', 'GET /x', 'failed'), check('A', 'GET /y', 'passed'), check('P', 'GET /cars/{carId} [cars_read]', 'failed')]);
  const text = renderBaseline(c);
  expect(text).toContain('reason: ""  # fill in');
  const file = tmp('b.yaml');
  fs.writeFileSync(file, text);
  expect(readBaseline(file)).toEqual([
    { requirement: 'A', checks: ['A GET /x'], reason: '' },
    { requirement: 'P', checks: ['P GET /cars/{carId} [cars_read]'], reason: '' },
  ]);
});

test('rewriting a baseline keeps the reasons already written for requirements that still fail', () => {
  const file = tmp('b.yaml');
  const c = certificate(reqs, [check('A', 'GET /x', 'failed')]);
  writeBaseline(file, c);
  fs.writeFileSync(
    file,
    fs.readFileSync(file, 'utf8').replace('reason: ""  # fill in: why this failure is accepted, and until when', 'reason: "vendor ticket 42: fix: due in May"'),
  );
  writeBaseline(file, certificate(reqs, [check('A', 'GET /x', 'failed'), check('B', 'GET /x', 'failed')]));
  const entries = readBaseline(file);
  expect(entries.find((e) => e.requirement === 'A')!.reason).toBe('vendor ticket 42: fix: due in May');
  expect(entries.find((e) => e.requirement === 'B')!.reason).toBe('');
});

test('no failure writes an empty list that reads back', () => {
  const file = tmp('b.yaml');
  writeBaseline(file, certificate(reqs, [check('A', 'GET /x', 'passed')]));
  expect(readBaseline(file)).toEqual([]);
});

test('a failure not in the baseline is a regression; a listed one is known; a listed check that passes is fixed', () => {
  const entries = [
    { requirement: 'A', checks: ['A GET /x', 'A GET /y'], reason: 'r' },
    { requirement: 'B', checks: ['B GET /x'], reason: 'r' },
  ];
  const e = evaluateBaseline(
    entries,
    [state('A GET /x', 'failed'), state('A GET /y', 'passed'), state('A GET /z', 'failed'), state('B GET /x', 'passed')],
    'b.yaml',
  );
  expect(e.regressions).toEqual([{ requirement: 'A', class: 'core', check: 'A GET /z' }]);
  expect(e.known.map((k) => k.check)).toEqual(['A GET /x']);
  expect(e.fixed).toEqual([
    { requirement: 'A', checks: ['A GET /y'], wholeEntry: false },
    { requirement: 'B', checks: ['B GET /x'], wholeEntry: true },
  ]);
});

test('listed checks that did not run (or no longer exist) are neither fixed nor regressions', () => {
  const e = evaluateBaseline([{ requirement: 'A', checks: ['A GET /x', 'A GET /gone'], reason: '' }], [state('A GET /x', 'not-run')], 'b.yaml');
  expect(e.fixed).toEqual([]);
  expect(e.regressions).toEqual([]);
  expect(e.unverified.map((u) => u.check)).toEqual(['A GET /x', 'A GET /gone']);
});

test('with a baseline the run fails on regressions of either class (--gate core: core ones only); baselined failures pass it; the certificate keeps FAIL', () => {
  const c = certificate(reqs, [check('A', 'GET /x', 'failed'), check('P', 'GET /x', 'failed')]);
  expect(c.verdict.core).toBe('FAIL');
  const known = evaluateBaseline(
    [{ requirement: 'A', checks: ['A GET /x'], reason: '' }],
    [state('A GET /x', 'failed'), state('P GET /x', 'failed', 'profile')],
    'b.yaml',
  );
  expect(known.regressions).toEqual([{ requirement: 'P', class: 'profile', check: 'P GET /x' }]);
  const gate = decideGate({ certificate: c, baseline: known });
  expect(gate.status).toBe('failed'); // the profile regression fails the default gate
  expect(gate.reasons.join()).toContain('P GET /x');
  expect(decideGate({ certificate: c, baseline: known, gate: 'core' }).status).toBe('passed'); // not a core regression
  const both = evaluateBaseline(
    [
      { requirement: 'A', checks: ['A GET /x'], reason: '' },
      { requirement: 'P', checks: ['P GET /x'], reason: '' },
    ],
    [state('A GET /x', 'failed'), state('P GET /x', 'failed', 'profile')],
    'b.yaml',
  );
  expect(decideGate({ certificate: c, baseline: both }).status).toBe('passed');
  const empty = evaluateBaseline([], [state('A GET /x', 'failed')], 'b.yaml');
  const failing = decideGate({ certificate: c, baseline: empty });
  expect(failing.status).toBe('failed');
  expect(failing.reasons.join()).toContain('A GET /x');
});

test('an unreadable baseline is a clear error', () => {
  const file = tmp('b.yaml');
  fs.writeFileSync(file, 'known-failures:\n  - requirement: A\n');
  expect(() => readBaseline(file)).toThrow(BaselineError);
  expect(() => readBaseline(file)).toThrow(/"checks" must list/);
  fs.writeFileSync(file, 'something: else\n');
  expect(() => readBaseline(file)).toThrow(/known-failures/);
  expect(() => readBaseline(`${file}.missing`)).toThrow(/not found/);
});
