// The proof end to end, through the README's command and its exit status, on a sample: the clean
// reference as the README runs it (`npm run conformance`, nothing else given), its sandbox, one
// server taking every conforming variant at once, and faults that reach every route group, both classes
// and both targets (scripts/power-plan.ts COMMAND_SAMPLE_FAMILIES; command-sample.test.ts). The rest of the proof runs the same
// checks and judgement in-process (faults.test.ts, conforming.test.ts); this shows that the command
// adds nothing that changes a verdict: what the checks see reaches the exit status users act on.
import { requirementsPattern } from '../../../src/catalogue/selection';
import { commandSampleFaults, conformingServers, faultGatePlan, isCaught } from '../../../scripts/power-plan';
import { variantCredentialEnv } from '../../../scripts/reference-process';
import { COMMAND_CONFORMING, runCommand, type CommandRun } from './command-sample';
import { expect, test } from './fixtures';
import { falseAlarms, recordOutcome } from './outcome';

const failedRequirements = (run: CommandRun) => run.certificate?.requirements.filter((r) => r.failures.length).map((r) => r.id) ?? [];

for (const server of conformingServers(false).filter((s) => COMMAND_CONFORMING.includes(s.label))) {
  test(`command: conforming ${server.label}`, async () => {
    test.setTimeout(300_000);
    // The clean reference: the README's command exactly (its default target, the embedded reference).
    const args = server.label === 'clean-local' ? [] : ['--target', server.target];
    const run = await runCommand(args, server.variant ? { VDS_REFERENCE_VARIANT: server.variant, ...variantCredentialEnv(server.variant) } : {});
    const alarms = run.certificate ? falseAlarms(run.certificate, server.mayNotRun) : { failed: ['no certificate'], notRun: [] };
    const ok = run.code === 0 && !alarms.failed.length && !alarms.notRun.length;
    recordOutcome({ kind: 'command-conforming', label: server.label, ok, exitCode: run.code, failed: failedRequirements(run) });
    // A conforming server's run has nothing to triage either (no cause printed, none in the certificate).
    expect(
      { exit: run.code, ...alarms, triage: run.certificate?.triage },
      `npm run conformance ${args.join(' ')} against ${server.label}:\n${run.tail}`,
    ).toEqual({
      exit: 0,
      failed: [],
      notRun: [],
      triage: undefined,
    });
  });
}

for (const spec of commandSampleFaults()) {
  test(`command: fault ${spec}`, async ({ reference, catalogue, kills }) => {
    test.setTimeout(300_000);
    const plan = faultGatePlan(spec, catalogue, kills);
    const server = await reference(plan.target, plan.variant);
    await server.setFault(spec);
    const attempt = (grep: string | undefined) =>
      runCommand(['--target', server.targetFile, '--max-failures', '1', ...(grep ? ['--grep', grep] : [])], {}, { quick: true });
    const caught = (run: CommandRun) =>
      isCaught(
        {
          exitCode: run.code,
          failedChecks: run.certificate?.counts.checks.failed ?? 0,
          coreFailed: run.certificate?.verdict.core === 'FAIL',
        },
        plan.breaksSpec,
      );
    let run = plan.first ? await attempt(requirementsPattern(plan.first)) : undefined;
    for (const grep of plan.fallbackGreps) {
      if (run && caught(run)) break;
      run = await attempt(grep);
    }
    run = run!;
    const ok = caught(run);
    recordOutcome({
      kind: 'command-fault',
      label: spec,
      ok,
      exitCode: run.code,
      breaksSpec: plan.breaksSpec,
      coreFailed: run.certificate?.verdict.core === 'FAIL',
      failed: failedRequirements(run),
    });
    expect(ok, `npm run conformance against fault ${spec}: exit status ${run.code}, core ${run.certificate?.verdict.core}:\n${run.tail}`).toBe(true);
  });
}
