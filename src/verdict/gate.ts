// The run's exit status, decided from the certificate:
//   - a run that did not complete (global setup failed, a worker crashed) fails;
//   - --certify: fails unless every class PASSes (a check not run counts as a failure there);
//   - with a previous certificate (--compare): fails when anything got worse;
//   - with a baseline (--baseline / --update-baseline): fails on failures of the gated classes the
//     baseline does not list;
//   - otherwise: fails when the verdict of a gated class is FAIL;
//   - --require-complete: also fails when a gated class is INCOMPLETE.
// The gated classes: both (the default, `--gate all`: a server that does not conform never passes),
// or only core (`--gate core`: the spec alone, for a team that gates on it). Advisory requirements
// never count. With both --compare and a baseline, either one fails the run. The exit code follows
// (exit-codes.ts): 0 passed, 3 a run that did not complete, 2 options it could not apply, 1 any other
// failure.
import type { ConformanceClass } from '../catalogue/catalogue';
import { EXIT } from './exit-codes';
import type { BaselineEvaluation, Certificate, Comparison, Gate, GateClasses } from './model';
import { counted } from './verdict';

const GATE_CLASSES: Record<GateClasses, ConformanceClass[]> = { all: ['core', 'profile'], core: ['core'] };

/** What a gate over these classes is called in the console, the certificate and the help. */
function gateName(gate: GateClasses): string {
  return gate === 'core' ? 'core gate (the spec only: --gate core)' : 'conformance gate (core and profile)';
}

export interface GateInput {
  certificate: Pick<Certificate, 'run' | 'verdict' | 'requirements'>;
  /** The classes that decide (default all). */
  gate?: GateClasses;
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
  const exitCode = gate.status === 'passed' ? EXIT.passed : gate.rule === INCOMPLETE_RUN ? EXIT.broken : gate.rule === BAD_OPTIONS ? EXIT.usage : EXIT.failed;
  return { ...gate, exitCode, classes: input.certify ? 'all' : (input.gate ?? 'all') };
}

const INCOMPLETE_RUN = 'the run did not complete';
/** Options the certificate could not apply (a merge's unreadable baseline); a run refuses them before it starts. */
const BAD_OPTIONS = 'options';

/** "the profile verdict is FAIL: ERR-X, ERR-Y (+2 more)": the class and the requirements that failed it. */
function failedClassReason(certificate: GateInput['certificate'], cls: ConformanceClass): string {
  const failed = certificate.requirements.filter((r) => r.class === cls && counted(r) && r.status === 'failed').map((r) => r.id);
  const shown = failed.slice(0, 6).join(', ');
  return `the ${cls} verdict is FAIL${failed.length ? `: ${shown}${failed.length > 6 ? ` (+${failed.length - 6} more)` : ''}` : ''}`;
}

function decide({ certificate, gate = 'all', baseline, comparison, problems = [], requireComplete, certify }: GateInput): Omit<Gate, 'exitCode' | 'classes'> {
  if (certificate.run.errors.length) {
    return { status: 'failed', rule: INCOMPLETE_RUN, reasons: certificate.run.errors.map((e) => e.split('\n')[0]) };
  }
  if (certify) {
    const notPassed = Object.entries(certificate.verdict).filter(([, v]) => v !== 'PASS');
    return notPassed.length
      ? {
          status: 'failed',
          rule: 'certification',
          reasons: notPassed.map(([k, v]) => (v === 'FAIL' ? failedClassReason(certificate, k as ConformanceClass) : `the ${k} verdict is ${v}`)),
        }
      : { status: 'passed', rule: 'certification', reasons: ['every class PASS'] };
  }
  const classes = GATE_CLASSES[gate];
  // Not only an INCOMPLETE class: a class that FAILs on failures a baseline accepts may leave checks unrun too.
  const incomplete = classes.filter((k) => certificate.requirements.some((r) => r.class === k && counted(r) && r.status === 'not-run'));
  if (requireComplete && incomplete.length) {
    return { status: 'failed', rule: 'completeness', reasons: [`${incomplete.join(' and ')}: some checks did not run (--require-complete)`] };
  }
  if (problems.length) return { status: 'failed', rule: BAD_OPTIONS, reasons: problems };
  if (!baseline && !comparison) {
    const failing = classes.filter((k) => certificate.verdict[k] === 'FAIL');
    return failing.length
      ? { status: 'failed', rule: gateName(gate), reasons: failing.map((k) => failedClassReason(certificate, k)) }
      : { status: 'passed', rule: gateName(gate), reasons: [classes.map((k) => `the ${k} verdict is ${certificate.verdict[k]}`).join(', ')] };
  }
  const reasons: string[] = [];
  const rules: string[] = [];
  if (baseline) {
    rules.push(gate === 'core' ? 'baseline (core)' : 'baseline');
    const regressions = baseline.regressions.filter((r) => (classes as string[]).includes(r.class) || r.class === 'unknown');
    if (regressions.length) {
      reasons.push(
        `${regressions.length} ${gate === 'core' ? 'core ' : ''}check(s) fail that ${baseline.path} does not list: ${regressions.map((r) => r.check).join('; ')}`,
      );
    }
  }
  if (comparison) {
    rules.push('comparison');
    const c = comparison;
    if (c.newlyFailing.length) reasons.push(`newly failing: ${c.newlyFailing.map((x) => x.id).join(', ')}`);
    if (c.newlyNotRun.length) reasons.push(`newly not run: ${c.newlyNotRun.map((x) => x.id).join(', ')}`);
    if (c.latencyRegressions.length)
      reasons.push(`slower (fastest and median beyond ${c.ratio}x and +${c.floorMs} ms): ${c.latencyRegressions.map((x) => x.route).join(', ')}`);
  }
  return reasons.length
    ? { status: 'failed', rule: rules.join(' + '), reasons }
    : {
        status: 'passed',
        rule: rules.join(' + '),
        reasons: [baseline && !comparison ? `no ${gate === 'core' ? 'core ' : ''}regression` : 'nothing got worse'],
      };
}
