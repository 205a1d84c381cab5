// The kill proof: every fault of the reference (reference-server/faults.ts; a per-route fault on its
// first route) is caught by a non-advisory check, and the gate exits 1 for it; a fault that breaks a
// statement of the spec fails the core class. One test per fault. The worker's reference is switched
// to the fault (POST /_control/fault, which also resets it), the run is prepared as global setup
// prepares it, and the fault's checks run through the suite's own runCheck and judgement
// (tests/conformance/in-process.ts): first those of the requirements that caught it before
// (contracts/fault-kills.yaml), stopping at the first failing check, and when they miss it (a new
// fault, a changed check), every check of the class it must fail. A fault nothing catches fails here,
// and so fails npm test.
import { requirementsPattern } from '../../../harness/selection';
import { loadTarget } from '../../../harness/target';
import { faultGatePlan, gateFaultSpecs, isCaught } from '../../../scripts/power-plan';
import { runInProcess, type InProcessRun } from '../../conformance/in-process';
import { expect, test } from './fixtures';
import { recordOutcome } from './outcome';

const failedRequirements = (run: InProcessRun) => run.certificate.requirements.filter((r) => r.failures.length).map((r) => r.id);

for (const spec of gateFaultSpecs()) {
  test(`fault ${spec}`, async ({ reference, browserSession, browserChoice, catalogue, kills }) => {
    test.setTimeout(180_000);
    const plan = faultGatePlan(spec, catalogue, kills);
    const server = await reference(plan.target);
    await server.setFault(spec);
    const target = loadTarget(server.targetFile);
    const attempt = (grep: string | undefined) => runInProcess({
      target, catalogue, browser: browserSession, browserChoice, maxFailures: 1, selection: grep ? { grep: new RegExp(grep) } : {},
    });
    const caught = (run: InProcessRun) => isCaught({
      exitCode: run.exitCode, failedChecks: run.certificate.counts.checks.failed, coreFailed: run.certificate.verdict.core === 'FAIL',
    }, plan.breaksSpec);

    let run: InProcessRun | undefined;
    let how = '';
    if (plan.first) {
      run = await attempt(requirementsPattern(plan.first));
      how = `by the requirements that caught it before (${plan.first.join(', ')})`;
    }
    if (!run || !caught(run)) {
      run = await attempt(plan.fallbackGrep);
      how = `by ${plan.breaksSpec ? 'every core check' : 'every check'}${plan.first ? ' (the kill matrix is stale for it: refresh it, docs/CONTRIBUTING.md)' : ''}`;
    }
    const ok = caught(run);
    const failed = failedRequirements(run);
    recordOutcome({
      kind: 'fault', label: spec, ok, exitCode: run.exitCode, breaksSpec: plan.breaksSpec,
      coreFailed: run.certificate.verdict.core === 'FAIL', failed, how,
    });
    expect(ok, ok ? '' : `fault ${spec} survived: exit status ${run.exitCode}, ${run.certificate.counts.checks.failed} failing checks, ` +
      `core ${run.certificate.verdict.core}${plan.breaksSpec ? ' (it breaks the spec: core must FAIL)' : ''}; ` +
      `failing requirements: ${failed.join(', ') || 'none'}; gate: ${run.certificate.gate?.reasons.join('; ')}`).toBe(true);
  });
}
