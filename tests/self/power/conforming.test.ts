// Precision, in-process: the conforming servers that the command sample (command.test.ts) does not
// run, each through every check of the suite (src/engine/in-process.ts): a server that keeps its
// state between two runs (the reference with every token minted through its sign-in page runs in
// deployments.test.ts, by the machine's name), the
// sandbox taking every variant, and alone each variant that leaves something unshowable. Every check
// must pass and the gate exit 0; a check may be not run only where the server cannot show it
// (scripts/power-plan.ts MAY_NOT_RUN). Each is a server of its own: a variant is fixed when it starts.
// And one on a busy machine, as a shared CI runner is: a server closing the connections it holds idle
// for 300 ms (idle-sockets-closed), with two loops keeping the cores busy beside npm test's own load.
import { loadTarget } from '../../../src/setup/target';
import { startReference, type ReferenceTarget } from '../../../scripts/reference-process';
import { conformingServers, MAY_NOT_RUN, type ConformingServer } from '../../../scripts/power-plan';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { keepBusy } from '../support/busy-machine';
import { COMMAND_CONFORMING } from './command-sample';
import { expect, test } from './fixtures';
import { falseAlarms, recordOutcome } from './outcome';

/**
 * The clean reference with every token minted through its sign-in page is run by deployments.test.ts,
 * reached as a vendor's is (by the machine's name, the redirect URI on a host that does not exist): the
 * same server and checks, so it is not run twice.
 */
const RUN_AS_DEPLOYMENT = ['clean-local-signin'];

const servers = conformingServers(false).filter((s) => !COMMAND_CONFORMING.includes(s.label) && !RUN_AS_DEPLOYMENT.includes(s.label));

for (const server of servers) {
  test(`conforming ${server.label}`, async ({ browserSession, browserChoice, catalogue }) => {
    test.setTimeout(300_000);
    const persistent = server.target === 'persistent';
    const ci = server.target === 'local-ci';
    const reference = await startReference({
      target: persistent || ci ? 'local' : (server.target as ReferenceTarget),
      ...(ci ? { givenTokens: true } : {}),
      variant: server.variant,
      ...(persistent ? { reset: false } : {}),
      ...(server.targetData ? { data: server.targetData } : {}),
    });
    try {
      const target = loadTarget(reference.targetFile);
      const run = () => runInProcess({ target, catalogue, browser: browserSession, browserChoice });
      // A server that keeps its state: two runs, the second finding what the first left.
      const runs: Array<{ run: InProcessRun; mayNotRun?: string[] }> = persistent
        ? [{ run: await run() }, { run: await run(), mayNotRun: MAY_NOT_RUN['persistent-second-run'] }]
        : [{ run: await run(), mayNotRun: server.mayNotRun }];
      judge(server, runs);
    } finally {
      await reference.stop();
    }
  });
}

/**
 * A busy client reads its answers and writes its requests late: a kept-alive connection it counts idle
 * for less than the server's 300 ms has been idle longer for the server, and a fresh one it connected
 * may be closed before it writes its request. Without the client's answer to it (connection-reuse.ts,
 * network.ts: the idle time learnt and kept well under, a request closed unanswered on a fresh
 * connection sent again alone), runs like this failed scores of checks ("the server closed the
 * connection before answering") and left hundreds not run.
 */
const BUSY: ConformingServer = { label: 'idle-sockets-closed-busy', target: 'local', variant: 'idle-sockets-closed' };

test(`conforming ${BUSY.label}: every check, two loops keeping the machine busy beside the run`, async ({ browserSession, browserChoice, catalogue }) => {
  test.setTimeout(300_000);
  const reference = await startReference({ target: 'local', variant: BUSY.variant });
  const busy = keepBusy(2);
  try {
    const run = await runInProcess({ target: loadTarget(reference.targetFile), catalogue, browser: browserSession, browserChoice });
    // Still spinning as the run ended: the machine was busy all along.
    expect(busy.running()).toBe(2);
    test.info().annotations.push({ type: 'requests sent again (reconnected)', description: String(run.certificate.run.reconnectedRequests ?? 0) });
    judge(BUSY, [{ run }]);
  } finally {
    busy.stop();
    await reference.stop();
  }
});

function judge(server: ConformingServer, runs: Array<{ run: InProcessRun; mayNotRun?: string[] }>): void {
  const problems = runs.flatMap(({ run, mayNotRun }, i) => {
    const { failed, notRun } = falseAlarms(run.certificate, mayNotRun);
    const which = runs.length > 1 ? `run ${i + 1}: ` : '';
    return [
      ...(run.exitCode !== 0 ? [`${which}exit status ${run.exitCode}: ${run.certificate.gate?.reasons.join('; ')}`] : []),
      ...failed.map((f) => `${which}failed ${f}`),
      ...notRun.map((n) => `${which}not run ${n}`),
    ];
  });
  const last = runs[runs.length - 1].run;
  recordOutcome({
    kind: 'conforming',
    label: server.label,
    ok: problems.length === 0,
    exitCode: runs.find((r) => r.run.exitCode !== 0)?.run.exitCode ?? last.exitCode,
    failed: [...new Set(runs.flatMap(({ run }) => run.certificate.requirements.filter((r) => r.failures.length).map((r) => r.id)))],
  });
  expect(problems, `false alarms against the conforming server ${server.label}${server.variant ? ` (variants ${server.variant})` : ''}`).toEqual([]);
}
