// The run's exit status, decided from the certificate:
//   - a run that did not complete (global setup failed, a worker crashed) fails;
//   - with a previous certificate (--compare): fails when anything got worse;
//   - with a baseline (--baseline / --update-baseline): fails on core failures the baseline does not list;
//   - otherwise: fails when the core verdict is FAIL (profile failures and INCOMPLETE do not fail it).
// With both --compare and a baseline, either one fails the run.
import type { BaselineEvaluation, Certificate, Comparison, Gate } from './model';

export interface GateInput {
  certificate: Pick<Certificate, 'run' | 'verdict'>;
  baseline?: BaselineEvaluation;
  comparison?: Comparison;
  /** Options that could not be applied (an unreadable baseline or previous certificate). */
  problems?: string[];
}

export function decideGate({ certificate, baseline, comparison, problems = [] }: GateInput): Gate {
  if (certificate.run.errors.length) {
    return { status: 'failed', rule: 'the run did not complete', reasons: certificate.run.errors.map((e) => e.split('\n')[0]) };
  }
  if (problems.length) return { status: 'failed', rule: 'options', reasons: problems };
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
    if (c.latencyRegressions.length) reasons.push(`slower (p95 beyond ${c.ratio}x): ${c.latencyRegressions.map((x) => x.route).join(', ')}`);
  }
  return reasons.length
    ? { status: 'failed', rule: rules.join(' + '), reasons }
    : { status: 'passed', rule: rules.join(' + '), reasons: [baseline && !comparison ? 'no core regression' : 'nothing got worse'] };
}
