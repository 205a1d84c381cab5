// Verdict aggregation: check -> requirement -> class, as the issue defines it.
import { expect, test } from '@playwright/test';
import { buildCertificate, classVerdict, combine, NOT_SELECTED } from '../../../src/verdict/verdict';
import { certificate, check, planned, requirement } from './synthetic';

test('a requirement fails if any check failed, else is not run if any did not run, else passes', () => {
  expect(combine(['passed', 'failed', 'not-run'])).toBe('failed');
  expect(combine(['passed', 'not-run'])).toBe('not-run');
  expect(combine(['passed', 'passed'])).toBe('passed');
  expect(combine([])).toBe('not-run');
});

test('PASS only when every requirement of the class ran and passed', () => {
  const c = certificate(
    [requirement('A'), requirement('B'), requirement('P', { class: 'profile' })],
    [check('A', 'GET /cars/{carId}', 'passed'), check('B', 'GET /cars/{carId}', 'passed'), check('P', 'GET /cars/{carId}', 'passed')],
  );
  expect(c.verdict).toEqual({ core: 'PASS', profile: 'PASS' });
  expect(c.counts.classes.core).toEqual({ requirements: 2, passed: 2, failed: 0, notRun: 0, advisory: 0, notApplicable: 0 });
});

test('INCOMPLETE when none failed but one did not run; FAIL as soon as one failed', () => {
  const incomplete = certificate([requirement('A'), requirement('B')], [check('A', 'GET /x', 'passed'), check('B', 'GET /x', 'not-run')]);
  expect(incomplete.verdict.core).toBe('INCOMPLETE');
  const failed = certificate([requirement('A'), requirement('B')], [check('A', 'GET /x', 'failed'), check('B', 'GET /x', 'not-run')]);
  expect(failed.verdict.core).toBe('FAIL');
  expect(classVerdict([])).toBe('PASS');
});

test('classes are judged separately: a profile failure leaves core PASS', () => {
  const c = certificate([requirement('A'), requirement('P', { class: 'profile' })], [check('A', 'GET /x', 'passed'), check('P', 'GET /x', 'failed')]);
  expect(c.verdict).toEqual({ core: 'PASS', profile: 'FAIL' });
});

test('a requirement of another environment (sandbox-only on a cloud target) is listed but never counts', () => {
  const c = certificate(
    [requirement('A'), requirement('SANDBOX-ONLY', { applicable: false })],
    [check('A', 'GET /x', 'passed'), check('SANDBOX-ONLY', 'GET /x', 'not-run')],
  );
  expect(c.verdict.core).toBe('PASS');
  expect(c.counts.classes.core).toMatchObject({ requirements: 1, notApplicable: 1 });
  expect(c.requirements.find((r) => r.id === 'SANDBOX-ONLY')).toMatchObject({ status: 'not-run', applicable: false });
});

test('advisory requirements never count, whatever their status', () => {
  const reqs = [requirement('P', { class: 'profile' }), requirement('ADV', { class: 'profile', advisory: true })];
  for (const status of ['failed', 'not-run'] as const) {
    const c = certificate(reqs, [check('P', 'GET /x', 'passed'), check('ADV', 'GET /x', status)]);
    expect(c.verdict.profile).toBe('PASS');
    expect(c.counts.classes.profile).toMatchObject({ requirements: 1, passed: 1, advisory: 1 });
    expect(c.requirements.find((r) => r.id === 'ADV')!.status).toBe(status);
  }
});

test('a requirement without any test (filtered by --grep) is not run, and so is a planned check that has no result', () => {
  const c = certificate(
    [requirement('A'), requirement('B'), requirement('C')],
    [check('A', 'GET /x', 'passed')],
    [planned('B', 'GET /x'), planned('A', 'GET /y')],
  );
  const byId = Object.fromEntries(c.requirements.map((r) => [r.id, r]));
  expect(byId.A.status).toBe('not-run');
  expect(byId.A.notRun).toEqual([{ reason: NOT_SELECTED, checks: ['A GET /y'] }]);
  expect(byId.B.status).toBe('not-run');
  expect(byId.C.status).toBe('not-run');
  expect(byId.C.notRun[0].reason).toContain(NOT_SELECTED);
  expect(c.verdict.core).toBe('INCOMPLETE');
  expect(c.counts.checks).toEqual({ total: 3, passed: 1, failed: 0, notRun: 2, notRunBySuite: 0 });
});

test('the same reason or warning is listed once with every check it applies to', () => {
  const c = certificate(
    [requirement('A')],
    [check('A', 'GET /x', 'not-run', { warnings: ['dates not in order'] }), check('A', 'GET /y', 'not-run', { warnings: ['dates not in order'] })],
  );
  const a = c.requirements[0];
  expect(a.notRun).toHaveLength(1);
  expect(a.notRun[0].checks).toEqual(['A GET /x', 'A GET /y']);
  expect(a.warnings).toEqual([{ message: 'dates not in order', checks: ['A GET /x', 'A GET /y'] }]);
});

test('failures keep expected vs actual per failing check key', () => {
  const c = certificate([requirement('A')], [check('A', 'GET /x', 'failed'), check('A', 'GET /y', 'passed')]);
  expect(c.requirements[0].failures).toEqual([{ check: 'A GET /x', expected: 'status 404', actual: 'status 500' }]);
});

test('counts per route group, and the requirement status within each group', () => {
  const c = certificate(
    [requirement('A', { routes: ['GET /cars/{carId}', 'GET /trips/{tripId}'] })],
    [check('A', 'GET /cars/{carId}', 'passed', { group: 'cars' }), check('A', 'GET /trips/{tripId}', 'failed', { group: 'trips' })],
  );
  expect(c.requirements[0].groups).toEqual({ cars: 'passed', trips: 'failed' });
  expect(c.counts.groups.cars).toEqual({ requirements: { passed: 1, failed: 0, notRun: 0 }, checks: { passed: 1, failed: 0, notRun: 0 } });
  expect(c.counts.groups.trips.checks.failed).toBe(1);
  expect(c.counts.groups.users.checks).toEqual({ passed: 0, failed: 0, notRun: 0 });
});

test('results of requirements the catalogue does not know are reported as a run warning, not counted', () => {
  const c = certificate([requirement('A')], [check('A', 'GET /x', 'passed'), check('GONE', 'GET /x', 'failed')]);
  expect(c.verdict.core).toBe('PASS');
  expect(c.run.warnings.join()).toContain('GONE');
});

test('checks are ordered as the catalogue plans them, whatever order they finished in', () => {
  const base = certificate([requirement('A')], []);
  const c = buildCertificate({
    suite: base.suite,
    target: base.target,
    run: base.run,
    requirements: [requirement('A')],
    planned: [planned('A', 'GET /a'), planned('A', 'GET /b')],
    results: [check('A', 'GET /b', 'failed'), check('A', 'GET /a', 'failed')],
  });
  expect(c.requirements[0].failures.map((f) => f.check)).toEqual(['A GET /a', 'A GET /b']);
});
