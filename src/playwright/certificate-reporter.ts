// The conformance certificate: a Playwright reporter that turns the run's tests into a verdict per
// conformance class, writes reports/conformance.{json,md,html} (and changes.md with --compare; with
// --history, the run's summary in that folder and trend.{html,md}), applies the baseline, prints the
// summary, and decides the exit status (see gate.ts).
// It reads only what survives blob reports, so `merge-reports` of sharded runs gives the same
// certificate as one run: test titles, annotations and attachments, and the config's metadata.
import { runOptions } from '../options/options';
import fs from 'node:fs';
import path from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestError } from '@playwright/test/reporter';
import { loadCatalogue } from '../catalogue/catalogue';
import { renewalsOf } from '../setup/token-keeper';
import { recordedTarget, REPLAY_FORMAT, replayDir, type ReplayContextFile } from '../setup/replay';
import type { RecordedCheck } from '../verdict/check-record';
import { knownSignInProblem } from '../setup/signin-page-state';
import { loadTargetFromEnv } from '../setup/run-target';
import type { TokenKey } from '../setup/target';
import { evaluateBaseline, readBaseline, writeBaseline, type BaselineEntry } from '../verdict/baseline';
import { compareCertificates, readCertificate } from '../monitoring/compare';
import { certificationInfo } from '../certification/identity';
import { writeCertificateFiles } from '../rendering/certificate-files';
import { EXIT } from '../verdict/exit-codes';
import { decideGate } from '../verdict/gate';
import { headlineOf } from '../verdict/headline';
import { judgeRun } from '../verdict/judge';
import { tryBaseUrls } from '../verdict/triage-base-url';
import { addToHistory, historyEntry, readHistory } from '../monitoring/history';
import { serverLatency } from '../verdict/latency';
import {
  addLatencySampling,
  addPreparationFailure,
  addRunWarnings,
  readLatencySamplings,
  readPreparationFailures,
  readRunMetadata,
  readRunWarnings,
  suiteInfo,
} from './metadata';
import { RUN_STOPPED, type Certificate, type TargetInfo } from '../verdict/model';
import { optionsFromEnv, type CertificateOptions } from './report-options';
import { ALLURE_HISTORY_FILE, REPORT_FILES } from '../options/paths';
import { redactDeep, reportRedactor, runContextIfAny } from '../setup/report-redactor';
import { preparationFailure, removeRunState } from '../setup/run-context';
import { renderChangesMarkdown } from '../rendering/render-changes';
import { renderConsole } from '../rendering/render-console';
import { renderTrendHtml, renderTrendMarkdown } from '../rendering/render-trend';
import { selectionFromEnv } from '../catalogue/selection';
import type { CheckResult } from '../verdict/model';
import type { CheckRecord } from '../verdict/check-record';
import { ANSI, checkRecordsOf, checkResultsOf, groupOf } from './results';
import { stage } from '../transport/timeline';
import { checkStates, reportedChecks, resolveChecks, type Check } from '../verdict/verdict';

export default class CertificateReporter implements Reporter {
  private config?: FullConfig;
  private suite?: Suite;
  private readonly errors: string[] = [];
  /** Every check of the run, for the JUnit report and the Allure results. */
  private checks: Check[] = [];
  /** Every check's record (its requests are the steps of its Allure result). */
  private records: CheckRecord[] = [];
  /** A certification's evidence: every check's record with its requests and answers. */
  private exchanges?: CheckRecord[];
  /** A certification's run context, for a replay of its archive (src/setup/replay.ts). */
  private replayContext?: ReplayContextFile;
  private readonly options: CertificateOptions;
  /** Set when the run stopped at --max-failures (-x). */
  private maxFailuresReached?: number;
  /** What --grep left out, for the history's summary. */
  private selection?: Record<string, string>;
  /** Where the trend was drawn (--history), printed after the verdict. */
  private trendLine?: string;

  constructor(options: Partial<CertificateOptions> = {}) {
    const defined = Object.fromEntries(Object.entries(options).filter(([k, v]) => v !== undefined && k !== 'configDir'));
    this.options = { ...optionsFromEnv(), ...defined };
  }

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.suite = suite;
  }

  /**
   * The preparation's warnings and latency samples, or why it failed, recorded where blob reports keep
   * them (the config's metadata, which the blob reporter writes at its own end, after this one's): the
   * preparation may still be under way at onBegin (global setup returns once the target answered).
   */
  private recordPreparation(): void {
    const config = this.config;
    if (!config) return;
    const context = runContextIfAny();
    if (context) {
      addRunWarnings(config.metadata, context.warnings, config.shard?.current);
      addLatencySampling(config.metadata, context.latency, config.shard?.current);
    }
    addPreparationFailure(config.metadata, preparationFailure(), config.shard?.current);
  }

  onError(error: TestError): void {
    const message = (error.message ?? error.value ?? 'unknown error').replace(ANSI, '').replace(/^Error: /, '');
    // --max-failures / -x: stopping there was asked for. The run has its verdict; the checks it did
    // not reach are not run, with that reason.
    const stop = /stopped early after (\d+) maximum allowed failures/.exec(message);
    if (stop) this.maxFailuresReached = Number(stop[1]);
    else this.errors.push(message);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    try {
      this.recordPreparation();
      return await this.end(result);
    } finally {
      // The last reader of the run's state folder (its tokens): removed with the reports written.
      removeRunState();
    }
  }

  private async end(result: FullResult): Promise<{ status: FullResult['status'] }> {
    stage('tests done');
    const redactor = reportRedactor();
    let certificate: Certificate;
    try {
      certificate = this.certificate(result);
      // Every route not implemented: other base URLs tried while the target still answers (a replay's is a record).
      if (!replayDir()) await tryBaseUrls(certificate);
    } catch (err) {
      // Never leave a run without a verdict silently: the error is the verdict.
      process.stderr.write(`conformance certificate: ${redactor.redact(String((err as Error).stack ?? err))}\n`);
      return { status: 'failed' };
    }
    certificate = redactDeep(certificate, redactor);
    this.write(certificate);
    // A replay's own tally (src/setup/replay.ts): verify compares it with the archive's certificate next.
    const replay = !!replayDir();
    if (replay) process.stdout.write("\nThe replay's own tally (the browser's checks not run); its comparison with the archive's certificate follows.");
    process.stdout.write(renderConsole(certificate, this.options.outputDir, this.trendLine ? [this.trendLine] : [], replay));
    stage('certificate written');
    // `playwright test` exits with this status. merge-reports ignores it (it exits 0 unless a reporter
    // crashed): `npm run merge` reads the gate from conformance.json instead.
    return { status: certificate.gate?.status === 'failed' ? 'failed' : 'passed' };
  }

  private certificate(result: FullResult): Certificate {
    const metadata = (this.config?.metadata ?? {}) as Record<string, unknown>;
    const run = readRunMetadata(metadata);
    this.selection = run?.selection;
    const errors = [...readPreparationFailures(metadata).map((m) => `the run's preparation failed: ${m}`), ...this.errors];
    if (result.status === 'interrupted') errors.push(RUN_STOPPED.interrupted);
    if (result.status === 'timedout') errors.push(RUN_STOPPED.timedOut);
    const tests = this.suite?.allTests() ?? [];
    const catalogue = loadCatalogue();
    const results: CheckResult[] = [];
    // A route group cut off before it attached its records, by the run's interruption or by Playwright
    // stopping the other workers at --max-failures, is no problem of its own (results.ts).
    const runStopped = result.status === 'interrupted' || this.maxFailuresReached !== undefined;
    for (const t of tests) {
      const { results: found, problem } = checkResultsOf(t, runStopped);
      results.push(...found);
      if (problem) errors.push(problem);
    }
    const records = tests.flatMap((t) => checkRecordsOf(t));
    const {
      certificate,
      requirements,
      planned,
      results: allResults,
      missingReason,
    } = judgeRun({
      catalogue,
      suite: run?.suite ?? suiteInfo(),
      target: run?.target ?? targetFallback(),
      environment: run?.target.env,
      run: {
        date: result.startTime.toISOString(),
        durationMs: Math.round(result.duration),
        monitor: run?.monitor ?? false,
        errors,
        warnings: readRunWarnings(metadata),
      },
      results,
      records,
      groupsRun: new Set(tests.map(groupOf).filter((g): g is string => g !== undefined)),
      selection: run?.selection ? selectionFromEnv(run.selection) : selectionFromEnv(),
      maxFailuresReached: this.maxFailuresReached,
      certify: run?.certify,
    });
    const renewals = renewalsOf(runContextIfAny()?.stateDir);
    if (renewals) certificate.run.tokenRenewals = renewals;
    const sampled = serverLatency(readLatencySamplings(metadata));
    if (sampled) certificate.serverLatency = sampled;
    if (run?.certify) certificate.certification = certificationInfo(certificate.suite, run.product);
    this.checks = resolveChecks(requirements, planned, allResults, missingReason);
    this.records = records;
    // A certification's evidence, and a replay's (src/cli/verify.ts compares it with the archive's).
    this.exchanges = run?.certify || replayDir() ? records : undefined;
    if (run?.certify) this.replayContext = replayContextOf(certificate, run.selection ?? {});
    const states = checkStates(requirements, planned, allResults, missingReason);
    const problems: string[] = [];
    const { baseline, updateBaseline, compare } = this.options;
    if (updateBaseline) {
      const entries = attempt(() => (writeBaseline(updateBaseline, certificate), readBaseline(updateBaseline)), problems);
      if (entries) certificate.baseline = { ...evaluateBaseline(entries, states, updateBaseline), written: updateBaseline };
    } else if (baseline) {
      const entries = attempt<BaselineEntry[]>(() => readBaseline(baseline), problems);
      if (entries) certificate.baseline = evaluateBaseline(entries, states, baseline);
    }
    if (compare) {
      const previous = attempt(() => readCertificate(compare), problems);
      if (previous) {
        certificate.comparison = compareCertificates(previous, certificate, {
          path: compare,
          ratio: this.options.latencyRatio,
          floorMs: this.options.latencyFloorMs,
        });
      }
    }
    certificate.gate = decideGate({
      certificate,
      gate: this.options.gate,
      baseline: certificate.baseline,
      comparison: certificate.comparison,
      problems,
      requireComplete: this.options.requireComplete,
      certify: this.options.certify || run?.certify,
    });
    certificate.headline = headlineOf(certificate);
    return certificate;
  }

  private write(c: Certificate): void {
    const dir = this.options.outputDir;
    // A shard's Allure results would list the other shards' checks as not run: the merge writes the whole run's.
    const allure = !this.config?.shard;
    const reports = this.options.junit ? { ...reportedChecks(this.checks), records: this.records, allure } : undefined;
    writeCertificateFiles(dir, c, reportRedactor(), reports);
    if (reports && allure && this.options.history) writeAllureHistoryPath(dir, this.options.history);
    if (this.exchanges) {
      const evidence: RecordedCheck[] = this.exchanges.map(({ key, requirement, group, status, reason, clock, replay, exchanges }) => ({
        key,
        requirement,
        group,
        status,
        ...(reason ? { reason } : {}),
        ...(clock ? { clock } : {}),
        ...(replay ? { replay } : {}),
        exchanges,
      }));
      fs.writeFileSync(path.join(dir, REPORT_FILES.exchanges), `${JSON.stringify(redactDeep(evidence, reportRedactor()), null, 1)}\n`);
    }
    if (this.replayContext)
      fs.writeFileSync(path.join(dir, REPORT_FILES.replay), `${JSON.stringify(redactDeep(this.replayContext, reportRedactor()), null, 1)}\n`);
    if (c.comparison) fs.writeFileSync(path.join(dir, REPORT_FILES.changes), renderChangesMarkdown(c.comparison));
    if (this.options.history) this.writeHistory(c, this.options.history);
  }

  /**
   * Adds the run to the history and draws the trend. Not a run refused for its options (exit 2: a
   * merge then redone without them would count twice); a run that broke is kept: that night happened.
   */
  private writeHistory(c: Certificate, dir: string): void {
    if (c.gate?.exitCode === EXIT.usage) return;
    try {
      addToHistory(dir, redactDeep(historyEntry(c, this.selection), reportRedactor()));
      const input = { history: readHistory(dir, c.target.name), dir };
      const page = path.join(this.options.outputDir, REPORT_FILES.trendHtml);
      fs.writeFileSync(page, renderTrendHtml(input));
      fs.writeFileSync(path.join(this.options.outputDir, REPORT_FILES.trendMd), renderTrendMarkdown(input));
      this.trendLine = `  Trend: ${page} (also .md): ${input.history.entries.length} run(s) of ${c.target.name} kept in ${dir}`;
    } catch (err) {
      process.stderr.write(`--history ${dir}: ${(err as Error).message}\n`);
    }
  }
}

/**
 * --history DIR: where `npm run report` (allurerc.mjs) keeps Allure's own history, beside the runs'
 * summaries, so that the report shows each check's history and flakiness across the nights kept.
 */
function writeAllureHistoryPath(dir: string, history: string): void {
  const historyPath = path.resolve(history, ALLURE_HISTORY_FILE);
  fs.writeFileSync(path.join(dir, REPORT_FILES.allureHistory), `${JSON.stringify({ historyPath }, null, 1)}\n`);
}

function attempt<T>(read: () => T, problems: string[]): T | undefined {
  try {
    return read();
  } catch (err) {
    problems.push((err as Error).message);
    return undefined;
  }
}

/**
 * What a replay of a certification's archive needs of the run besides its exchanges (src/setup/replay.ts):
 * never a secret (the target's secrets become placeholders naming their key, the tokens their keys).
 */
function replayContextOf(certificate: Certificate, selection: Record<string, string>): ReplayContextFile | undefined {
  const context = runContextIfAny();
  if (!context) return undefined;
  const suite = certificate.certification?.suite;
  const problem = knownSignInProblem(context);
  return {
    format: REPLAY_FORMAT,
    suite: { name: certificate.suite.name, version: certificate.suite.version, ...(suite ? { contentSha256: suite.contentSha256 } : {}) },
    startedAt: context.startedAt,
    fuzzSeed: runOptions().fuzzSeed,
    concurrency: context.concurrency,
    selection,
    target: recordedTarget(loadTargetFromEnv()),
    run: {
      tokenKeys: Object.entries(context.tokens)
        .filter(([, v]) => !!v)
        .map(([k]) => k as TokenKey),
      tokenNotes: context.tokenNotes,
      ...(context.tokenOrigins ? { tokenOrigins: context.tokenOrigins } : {}),
      ...(context.publishedKeys ? { publishedKeys: context.publishedKeys } : {}),
      data: context.data,
      dataNotes: context.dataNotes,
      ...(context.window ? { window: context.window } : {}),
      browser: context.browser.executablePath ? { available: true } : { available: false, missing: context.browser.missing },
      warnings: context.warnings,
      freshState: context.freshState,
      ...(problem ? { signInPageProblem: problem } : {}),
    },
  };
}

/** Without the config's metadata (another config file was used): the target file, if it loads. */
function targetFallback(): TargetInfo {
  try {
    const t = loadTargetFromEnv();
    return { name: t.name, baseUrl: t.baseUrl, env: t.env, allowWrites: t.allowWrites, source: t.source };
  } catch {
    return { name: 'unknown', baseUrl: 'unknown', env: 'unknown', allowWrites: false, source: 'unknown' };
  }
}
