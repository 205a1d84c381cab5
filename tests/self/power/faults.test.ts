// The kill proof: every fault of the reference (reference-server/faults.ts; a per-route fault on its
// first route) is caught by a non-advisory check, and the gate exits 1 for it; a fault that breaks a
// statement of the spec fails the core class. One test per fault. The worker's reference is switched
// to the fault (POST /_control/fault, which also resets it), the run is prepared as global setup
// prepares it, and the fault's checks run through the suite's own runCheck and judgement
// (src/engine/in-process.ts): first those of the requirements that caught it before
// (tests/self/power/fault-kills.yaml), stopping at the first failing check, and when they miss it (a new
// fault, a changed check), every check (of the core class first, for a fault of the spec). A fault
// nothing catches fails here, and so fails npm test.
//
// A fault that breaks only the profile must never fail core (docs/checks.md: a core failure always means the
// spec is broken): against each, every core check that can see it runs too (core-reach.ts), and the
// test fails on any core failure.
import { keysPattern, requirementsPattern } from '../../../src/catalogue/selection';
import { faultFamily } from '../../../reference-server/fault-specs';
import { loadTarget } from '../../../src/setup/target';
import { faultGatePlan, faultTargets, gateFaultSpecs, isCaught } from '../../../scripts/power-plan';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { expect, test } from './fixtures';
import { recordOutcome } from './outcome';

const failedRequirements = (run: InProcessRun) => run.certificate.requirements.filter((r) => r.failures.length).map((r) => r.id);

// A fault of the tokens a server issues is proven on each of its targets (power-plan.ts faultTargets):
// with OAuth credentials only, and on a CI gate's target, whose file gives long-lived tokens beside them.
const PROOFS = gateFaultSpecs().flatMap((spec) =>
  faultTargets(spec).map((target, i) => ({ spec, target, title: i === 0 ? `fault ${spec}` : `fault ${spec} (target ${target})` })),
);

for (const { spec, target: planTarget, title } of PROOFS) {
  test(title, async ({ reference, browserSession, browserChoice, catalogue, kills, keptRestrictedToken, coreReach }) => {
    const plan = faultGatePlan(spec, catalogue, kills);
    test.setTimeout(180_000);
    const server = await reference(planTarget, plan.variant);
    const target = loadTarget(server.targetFile);
    // Which fault guards the core checks reach on this worker's clean reference (once a worker).
    const reach = plan.breaksSpec
      ? undefined
      : await coreReach(server, () => runInProcess({ target, catalogue, browser: browserSession, browserChoice, selection: { grep: /@core/ } }));
    await server.setFault(spec);
    // A run stops starting checks at its first failure, but for the checks that judge what the others
    // received (CORE-ERROR-BODY runs after them, a stop spares it).
    const attempt = (grep: string | undefined, maxFailures: number, on = target) =>
      runInProcess({
        target: on,
        catalogue,
        browser: browserSession,
        browserChoice,
        maxFailures,
        selection: grep ? { grep: new RegExp(grep) } : {},
      });
    const caught = (run: InProcessRun) =>
      isCaught(
        {
          exitCode: run.exitCode,
          failedChecks: run.certificate.counts.checks.failed,
          coreFailed: run.certificate.verdict.core === 'FAIL',
        },
        plan.breaksSpec,
      );

    // Only the profile broken: no core check may fail. Every core check that can see the fault runs
    // (core-reach.ts: read off the worker's clean core run, whose answers named the fault guards each
    // request reached) in the same run as the requirements that caught it before; a fault no core
    // check's request reaches cannot change what they see. The restricted application's token
    // (CORE-DEVICE-SCOPE-RESTRICTED) is one the worker minted once, kept across fault switches, but for
    // a fault of the sign-in page or the token endpoint: then the check signs in through the page.
    const selection = reach?.selectionFor(spec);
    const coreGrep = selection?.kind === 'all' ? '@core' : selection?.kind === 'checks' ? keysPattern(selection.keys) : undefined;
    const throughPage = ['sign-in', 'token-endpoint'].includes(faultFamily(spec)) || !target.oauth?.restrictedClientId;
    const on = coreGrep && !throughPage ? { ...target, tokens: { ...target.tokens, restrictedApp: await keptRestrictedToken(server, target) } } : target;
    // With core checks to run, a selection runs whole (they must all be judged).
    const whole = coreGrep !== undefined;

    let run: InProcessRun | undefined;
    let how = '';
    const first = [plan.first ? requirementsPattern(plan.first) : undefined, coreGrep].filter((g): g is string => g !== undefined);
    if (first.length) {
      run = await attempt(first.map((g) => `(?:${g})`).join('|'), whole ? 0 : 1, on);
      how = plan.first ? `by the requirements that caught it before (${plan.first.join(', ')})` : '';
    }
    if (!run || !caught(run)) {
      for (const grep of plan.fallbackGreps) {
        run = await attempt(grep, whole ? 0 : 1, on);
        how = `by ${grep ? 'every core check' : 'every check'}${plan.first ? ' (the kill matrix is stale for it: refresh it, docs/CONTRIBUTING.md)' : ''}`;
        if (caught(run)) break;
      }
    }
    run = run!;
    const ok = caught(run);
    const failed = failedRequirements(run);
    const coreFailures = coreGrep
      ? run.certificate.requirements
          .filter((r) => r.class === 'core' && r.failures.length)
          .map((r) => `${r.failures[0].check}: expected ${r.failures[0].expected}; actual ${r.failures[0].actual}`.slice(0, 300))
      : [];
    recordOutcome({
      kind: 'fault',
      label: title.slice('fault '.length),
      ok,
      exitCode: run.exitCode,
      breaksSpec: plan.breaksSpec,
      coreFailed: run.certificate.verdict.core === 'FAIL',
      failed,
      how,
      ...(selection ? { coreCleanOnProfileFault: coreFailures.length === 0, coreProof: selection.kind } : {}),
    });
    expect(
      ok,
      ok
        ? ''
        : `fault ${spec} survived: exit status ${run.exitCode}, ${run.certificate.counts.checks.failed} failing checks, ` +
            `core ${run.certificate.verdict.core}${plan.breaksSpec ? ' (it breaks the spec: core must FAIL)' : ''}; ` +
            `failing requirements: ${failed.join(', ') || 'none'}; gate: ${run.certificate.gate?.reasons.join('; ')}`,
    ).toBe(true);
    expect(
      coreFailures,
      `fault ${spec} breaks only the profile (${plan.breaks}), yet core checks failed against it: a core failure must mean the spec is broken`,
    ).toEqual([]);
  });
}
