// The conformance suite run inside the calling process, without Playwright's runner: the same
// preparation as global setup (src/setup/prepare-run.ts), the same checks (run-check.ts) in the same
// schedule (schedule.ts), route group after route group, and the same judgement and gate
// (src/verdict/judge.ts, src/verdict/gate.ts). What it leaves out is only the shell around them: the
// runner's processes, the reporters' files and the console.
//
// Why it exists: the project's own tests prove the suite's power and precision (every reference
// fault caught, every conforming server passed) and much of its behaviour on odd servers. Through
// the command, each of those costs a Playwright runner, a worker and a reference process (about 4 s
// of CPU before the first check); here one worker moves one reference from fault to fault and runs
// a fault's checks in a fraction of a second. The command itself keeps its own tests (the CLI, its
// exit statuses, its reports) and an end-to-end sample of the same proof (scripts/self-test.ts).
import { sharedBrowser, type BrowserChoice, type BrowserSession } from '../setup/browser';
import { GROUPS, loadCatalogue, planChecks, type Catalogue, type PlannedCheck } from '../catalogue/catalogue';
import { secretRefs } from '../setup/secret-refs';
import { configureHttp, operatorControlsKey } from '../transport/http-policy';
import { prepareRun } from '../setup/prepare-run';
import { Redactor } from '../util/redact';
import { removeRunState, targetSecrets, type RunContext } from '../setup/run-context';
import { keptSecrets, renewalsOf, stopKeeping } from '../setup/token-keeper';
import { selectChecks, withFeeders, type Selection } from '../catalogue/selection';
import type { Target } from '../setup/target';
import { writeCertificateFiles } from '../rendering/certificate-files';
import { resultOf, type CheckRecord } from '../verdict/check-record';
import { decideGate } from '../verdict/gate';
import { headlineOf } from '../verdict/headline';
import { judgeRun } from '../verdict/judge';
import { tryBaseUrls } from '../verdict/triage-base-url';
import { suiteInfo } from '../util/suite-info';
import type { Certificate, GateClasses } from '../verdict/model';
import { redactDeep } from '../setup/report-redactor';
import { renderConsole } from '../rendering/render-console';
import { reportedChecks, resolveChecks } from '../verdict/verdict';
import { ErrorsSeen } from './errors-seen';
import { releaseAfterWrites, runCheck, startEarly, type CheckInputs } from './run-check';
import { runScheduled } from './schedule';

export interface InProcessOptions {
  target: Target;
  /** Which checks run (the command's --grep / --grep-invert); every check when absent. */
  selection?: Selection;
  /** Stop starting checks after this many failed (the command's --max-failures; -x is 1). */
  maxFailures?: number;
  /** The gate's classes (--gate); default both. */
  gate?: GateClasses;
  /** A certification (--certify): anything not run (but what the environment rules out) is a FAIL. */
  certify?: boolean;
  /** A browser shared between runs (one per worker); else one is launched for this run if a check needs it. */
  browser?: BrowserSession;
  browserChoice?: BrowserChoice;
  catalogue?: Catalogue;
  /** Sample each GET route's answer time before the checks, as the command does by default. */
  latencySampling?: boolean;
  /** Write the certificate's files here (conformance.json, .md, .html, junit.xml), as the command writes them. */
  reportsDir?: string;
}

export interface InProcessRun {
  /** The certificate, its gate decided and redacted: `certificate.gate.exitCode` is the command's exit status. */
  certificate: Certificate;
  records: CheckRecord[];
  context: RunContext;
  exitCode: number;
  /** What the command prints after its checks: the verdict, the failures by likely cause, the reports (render-console.ts). */
  console: string;
}

/** Runs the suite against `target` in this process and judges it as the command would. */
export async function runInProcess(options: InProcessOptions): Promise<InProcessRun> {
  const { target } = options;
  const catalogue = options.catalogue ?? loadCatalogue();
  applyHttpPolicy(target);
  const started = performance.now();
  const { context } = await prepareRun(target, { latencySampling: options.latencySampling ?? false, browser: options.browserChoice, catalogue });
  // The run's state folder (its tokens) goes with the run, however it ends.
  try {
    const own = options.browser ? undefined : sharedBrowser(context.browser);
    const browserSession = options.browser ?? own!.session;
    const planned = planChecks(catalogue);
    const selected = selectChecks(planned, options.selection ?? {});
    const inputs: CheckInputs = { target, run: context, catalogue, browserSession, secretRefs: secretRefs(target, context) };
    const records: CheckRecord[] = [];
    let failed = 0;
    const max = options.maxFailures ?? 0;
    const stopped = () => max > 0 && failed >= max;
    try {
      // Route group after route group, in the order the command's one worker runs its tests.
      for (const group of [...GROUPS].sort()) {
        const inGroup = selected.filter((p) => p.group === group);
        if (!inGroup.length) continue;
        const groupInputs = { ...inputs, errorsSeen: new ErrorsSeen(catalogue) };
        // As the command: the checks that provoke the errors a selected check judges run too, unreported.
        const { checks, feeders } = withFeeders(
          planned.filter((p) => p.group === group),
          inGroup,
        );
        startEarly(checks, groupInputs);
        await runScheduled(
          checks,
          context.concurrency,
          async (p: PlannedCheck) => {
            // As the command: a stop spares the checks that judge what the others received.
            if (stopped() && !p.requirement.judgesErrorsSeen) return;
            const record = await runCheck(p, groupInputs);
            if (feeders.has(p)) return;
            if (record.status === 'failed') failed += 1;
            records.push(record);
          },
          releaseAfterWrites(groupInputs),
          context.data,
        );
      }
    } finally {
      await own?.close();
    }
    const judged = judgeRun({
      catalogue,
      suite: suiteInfo(),
      target: { name: target.name, baseUrl: target.baseUrl, env: target.env, allowWrites: target.allowWrites, source: target.source },
      environment: target.env,
      run: { date: context.startedAt, durationMs: Math.round(performance.now() - started), monitor: false, errors: [], warnings: context.warnings },
      results: records.map(resultOf),
      records,
      groupsRun: new Set(selected.map((p) => p.group)),
      selection: options.selection ?? {},
      ...(stopped() ? { maxFailuresReached: failed } : {}),
      certify: options.certify,
    });
    stopKeeping();
    const renewals = renewalsOf(context.stateDir);
    if (renewals) judged.certificate.run.tokenRenewals = renewals;
    const redactor = new Redactor([...context.secrets, ...targetSecrets(target), ...keptSecrets(context.stateDir)]);
    await tryBaseUrls(judged.certificate);
    judged.certificate.gate = decideGate({ certificate: judged.certificate, gate: options.gate, certify: options.certify });
    judged.certificate.headline = headlineOf(judged.certificate);
    const certificate = redactDeep(judged.certificate, redactor);
    if (options.reportsDir) {
      const checks = resolveChecks(judged.requirements, judged.planned, judged.results, judged.missingReason);
      writeCertificateFiles(options.reportsDir, certificate, redactor, { ...reportedChecks(checks), records, allure: true });
    }
    return {
      certificate,
      records,
      context,
      exitCode: certificate.gate!.exitCode,
      console: redactor.redact(renderConsole(certificate, options.reportsDir ?? 'reports')),
    };
  } finally {
    removeRunState(context.stateDir);
  }
}

let configuredFor: string | undefined;

/**
 * The target's operator controls in this process, set again only when they change (each setting opens
 * new connection pools): operatorControlsKey, beside configureHttp, names all it reads. (A key of its
 * own here once left out maxConcurrency: a capped target after an uncapped one ran uncapped.)
 */
function applyHttpPolicy(target: Target): void {
  const key = operatorControlsKey(target);
  if (key === configuredFor) return;
  configureHttp(target);
  configuredFor = key;
}
