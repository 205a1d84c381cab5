// The run's exit status, decided from the certificate:
//   - a run that did not complete (global setup failed, a worker crashed) fails;
//   - with a previous certificate (--compare): fails when anything got worse;
//   - with a baseline (--baseline / --update-baseline): fails on core failures the baseline does not list;
//   - otherwise: fails when the core verdict is FAIL (profile failures and INCOMPLETE do not fail it);
//   - --require-complete: also fails when a class is INCOMPLETE;
//   - --certify: fails unless every class PASSes (a check not run counts as a failure there).
// With both --compare and a baseline, either one fails the run. The exit code follows (exit-codes.ts):
// 0 passed, 3 a run that did not complete, 2 options it could not apply, 1 any other failure.
import { EXIT } from './exit-codes';
import type { BaselineEvaluation, Certificate, Comparison, Gate } from './model';

export interface GateInput {
  certificate: Pick<Certificate, 'run' | 'verdict'>;
  baseline?: BaselineEvaluation;
  comparison?: Comparison;
  /** Options that could not be applied (an unreadable baseline or previous certificate). */
  problems?: string[];
  /** --require-complete: a class with checks not run fails the gate too. */
  requireComplete?: boolean;
  /** --certify: every class must PASS (a check not run is a FAIL there). */
  certify?: boolean;
}

export function decideGate(input: GateInput): Gate {
  const gate = decide(input);
  const exitCode = gate.status === 'passed' ? EXIT.passed
    : gate.rule === INCOMPLETE_RUN ? EXIT.broken
      : gate.rule === BAD_OPTIONS ? EXIT.usage
        : EXIT.failed;
  return { ...gate, exitCode };
}

const INCOMPLETE_RUN = 'the run did not complete';
/** Options the certificate could not apply (a merge's unreadable baseline); a run refuses them before it starts. */
const BAD_OPTIONS = 'options';

function decide({ certificate, baseline, comparison, problems = [], requireComplete, certify }: GateInput): Omit<Gate, 'exitCode'> {
  if (certificate.run.errors.length) {
    return { status: 'failed', rule: INCOMPLETE_RUN, reasons: certificate.run.errors.map((e) => e.split('\n')[0]) };
  }
  if (certify) {
    const notPassed = Object.entries(certificate.verdict).filter(([, v]) => v !== 'PASS');
    return notPassed.length
      ? { status: 'failed', rule: 'certification', reasons: notPassed.map(([k, v]) => `${k} ${v}`) }
      : { status: 'passed', rule: 'certification', reasons: ['every class PASS'] };
  }
  const incomplete = Object.entries(certificate.verdict).filter(([, v]) => v === 'INCOMPLETE').map(([k]) => k);
  if (requireComplete && incomplete.length) {
    return { status: 'failed', rule: 'completeness', reasons: [`${incomplete.join(' and ')} INCOMPLETE: some checks did not run (--require-complete)`] };
  }
  if (problems.length) return { status: 'failed', rule: BAD_OPTIONS, reasons: problems };
  if (!baseline && !comparison) {
    return certificate.verdict.core === 'FAIL'
      ? { status: 'failed', rule: 'core verdict', reasons: ['the core verdict is FAIL'] }
      : { status: 'passed', rule: 'core verdict', reasons: [`the core verdict is ${certificate.verdict.core}`] };
  }
  const reasons: string[] = [];
  const rules: string[] = [];
  if (baseline) {
    rules.push('baseline');
    const core = baseline.regressions.filter((r) => r.class === 'core');
    if (core.length) reasons.push(`${core.length} core check(s) fail that ${baseline.path} does not list: ${core.map((r) => r.check).join('; ')}`);
  }
  if (comparison) {
    rules.push('comparison');
    const c = comparison;
    if (c.newlyFailing.length) reasons.push(`newly failing: ${c.newlyFailing.map((x) => x.id).join(', ')}`);
    if (c.newlyNotRun.length) reasons.push(`newly not run: ${c.newlyNotRun.map((x) => x.id).join(', ')}`);
    if (c.latencyRegressions.length) reasons.push(`slower (fastest and median beyond ${c.ratio}x and +${c.floorMs} ms): ${c.latencyRegressions.map((x) => x.route).join(', ')}`);
  }
  return reasons.length
    ? { status: 'failed', rule: rules.join(' + '), reasons }
    : { status: 'passed', rule: rules.join(' + '), reasons: [baseline && !comparison ? 'no core regression' : 'nothing got worse'] };
}
