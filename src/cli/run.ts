// Runs what the command line asked for: `playwright test` (or merge-reports) with the environment the
// flags set, in a prepared reports folder (the previous run's kept: reports-folder.ts), and exits with
// the status the certificate's gate decided
// (src/verdict/exit-codes.ts): 0 passed, 1 does not conform, 3 the run broke. Exit 2 (bad options)
// is decided before anything runs. The target's server (startCommand) is started here, before the
// runner, so that it boots while the runner loads (src/setup/start-command.ts).
import { spawn } from 'node:child_process';
import dotenv from 'dotenv';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../util/free-port';
import { CODE_EXT, codePath } from '../util/suite-info';
import { keysPattern, SELECTION_ENV } from '../catalogue/patterns';
import { EXIT } from '../verdict/exit-codes';
import type { Certificate } from '../verdict/model';
import { reportsDir, REPORT_FILES, ROOT } from '../options/paths';
import { runOptions } from '../options/options';
import { UsageError, type Invocation } from './args';
import { loadTarget, resolveTargetFile, type Target } from '../setup/target';
import { startTargetServerForRun, type Started } from '../setup/start-command';
import { checkReportsFolder, earlierRunsPacked, keepEarlierRun, lastCertificate, prepareReportsFolder, PREVIOUS, protectInputs } from './reports-folder';

export async function run(inv: Invocation, invokedAs = 'npm run conformance --'): Promise<number> {
  // The user's .env (where they run the command); the target file's ${VAR} references read it.
  dotenv.config({ quiet: true, path: path.join(process.cwd(), '.env') });
  const env: NodeJS.ProcessEnv = { ...process.env, ...inv.env, VDS_COMMAND: invokedAs };
  const dir = reportsDir(env);
  for (const n of inv.notes) console.error(n);
  checkReportsFolder(dir);
  // Each run empties the reports folder (reports-folder.ts): nights kept inside it would last one run.
  if (env.VDS_HISTORY && !path.relative(dir, env.VDS_HISTORY).startsWith('..')) {
    throw new UsageError(
      `--history: ${env.VDS_HISTORY} is inside the reports folder ${dir}, which every run empties: keep the nights elsewhere (e.g. ./nights)`,
    );
  }
  if (inv.merge) return merge(inv.merge, env, dir);
  // verify and the archive are loaded when asked for (require, as the compiled command's modules all
  // are): every other run starts its runner sooner without them.
  if (inv.verify) {
    // eslint-disable-next-line typescript/no-require-imports -- loaded only for --verify
    const { verify } = require('./verify') as typeof import('./verify');
    return verify(inv, playwright, invokedAs);
  }

  // A certification that cannot pass stops here, before anything is sent or written (the reports folder untouched).
  // The target file, read at most once in this process for what the command does before the runner
  // (the runner reads it in its own, and reports what is wrong with it).
  let read: { target?: Target } | undefined;
  const target = () => (read ??= { target: readTarget(env) }).target;
  if (inv.certify && !certificationCanPass(target(), env)) return EXIT.usage;

  const last = lastCertificate(dir);
  if (inv.lastFailed) {
    const failed = last ? failedChecks(last) : undefined;
    if (!failed) throw new UsageError(`--last-failed: no previous run in ${dir} (${REPORT_FILES.certificateJson} not found)`);
    if (!failed.length) {
      console.log(`--last-failed: the previous run (${path.relative(process.cwd(), last!) || last}) had no failing check: nothing to run`);
      return EXIT.passed;
    }
    env[SELECTION_ENV.grep] = keysPattern(failed);
  }
  if (inv.compareLast) {
    if (!last) throw new UsageError(`--compare last: no previous run in ${dir} (${REPORT_FILES.certificateJson} not found)`);
    env.VDS_COMPARE = path.join(dir, PREVIOUS, REPORT_FILES.certificateJson); // where the folder's preparation moves it
  }
  const inputs = [env.VDS_COMPARE, env.VDS_BASELINE].filter((f): f is string => !!f && !(inv.compareLast && f === env.VDS_COMPARE));
  // The previous run is packed beside this one (reports-folder.ts): the runner need not wait for it.
  for (const [from, to] of prepareReportsFolder(dir, inputs, { packLater: true })) {
    if (env.VDS_COMPARE === from) env.VDS_COMPARE = to;
    if (env.VDS_BASELINE === from) env.VDS_BASELINE = to;
  }
  // The embedded reference's port (the local targets), found here: the runner would start a process for it.
  env.VDS_REFERENCE_PORT ??= String(await freePort());
  const server = startServerEarly(inv, target, env);
  const code = await playwright(['test', ...inv.playwrightArgs], env);
  await server?.stop();
  const status = exitStatus(dir, code);
  if (inv.certify) {
    // eslint-disable-next-line typescript/no-require-imports -- loaded only for --certify
    const { writeCertificationArchive } = require('../certification/archive') as typeof import('../certification/archive');
    const archive = writeCertificationArchive(dir);
    if (archive) console.log(`  Certification archive: ${path.relative(process.cwd(), archive) || archive}`);
  }
  await earlierRunsPacked();
  return status;
}

/** The run's target file as the command line and .env name it; undefined when it cannot be read (the runner says why). */
function readTarget(env: NodeJS.ProcessEnv): Target | undefined {
  try {
    const selector = runOptions(env).target;
    return loadTarget(selector, env, resolveTargetFile(selector));
  } catch {
    return undefined;
  }
}

/**
 * --certify: what the target cannot run, said before anything is sent (src/setup/readiness.ts); false
 * when that is anything at all (a certification needs every requirement to run): spending the run
 * would change the server (cars created, a device locked) for a verdict already known. A target file
 * that cannot be read is the runner's to report.
 */
function certificationCanPass(target: Target | undefined, env: NodeJS.ProcessEnv): boolean {
  if (!target) return true;
  // Loaded for --certify only: the readiness reaches the sign-in modules and Playwright's library,
  // which every other run's command would load before its runner starts for nothing.
  /* eslint-disable typescript/no-require-imports -- loaded only for --certify */
  const { readinessOf } = require('../setup/readiness') as typeof import('../setup/readiness');
  const { chooseBrowser } = require('../setup/browser') as typeof import('../setup/browser');
  const { loadCatalogue } = require('../catalogue/catalogue') as typeof import('../catalogue/catalogue');
  const { readinessLines } = require('../rendering/render-readiness') as typeof import('../rendering/render-readiness');
  /* eslint-enable typescript/no-require-imports */
  const readiness = readinessOf(target, loadCatalogue(), chooseBrowser(env));
  console.log(readinessLines(readiness).join('\n'));
  if (!readiness.items.length) return true;
  console.log(
    '--certify: this certification cannot pass on this target, so nothing was sent and nothing written (exit 2). ' +
      'Give what is listed and certify again; to see the rest of the verdict now, run without --certify.',
  );
  return false;
}

/**
 * The target's server (its startCommand), started before Playwright's runner so that it boots while the
 * runner loads; the runner waits for it through VDS_TARGET_SERVER (src/setup/start-command.ts). The file
 * is read here only for its startCommand and baseUrl: the runner checks it, and reports what is wrong.
 */
function startServerEarly(inv: Invocation, targetOnce: () => Target | undefined, env: NodeJS.ProcessEnv): Started | undefined {
  if (inv.playwrightArgs.includes('--list')) return undefined;
  const target = targetOnce();
  if (!target) return undefined; // the runner says what is wrong with it
  if (typeof target.startCommand !== 'string' || typeof target.baseUrl !== 'string') return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-server-'));
  env.VDS_TARGET_SERVER = path.join(dir, 'status.json');
  const server = startTargetServerForRun(target, ROOT, env, env.VDS_TARGET_SERVER);
  return { stop: () => server.stop().finally(() => fs.rmSync(dir, { recursive: true, force: true })) };
}

/** The gate's exit code from the certificate; 2 when Playwright refused an option; else 3. */
function exitStatus(dir: string, playwrightCode: number): number {
  if (playwrightCode === EXIT.usage) return EXIT.usage; // the config refused the target file or the selection
  const certificate = readCertificateIfAny(path.join(dir, REPORT_FILES.certificateJson));
  if (certificate?.gate) return certificate.gate.exitCode ?? (certificate.gate.status === 'passed' ? EXIT.passed : EXIT.failed);
  console.error('The run broke before its certificate was written (see the messages above).');
  return EXIT.broken;
}

async function merge(blobs: string, env: NodeJS.ProcessEnv, dir: string): Promise<number> {
  // A previous certificate or baseline passed in may be the very file the merge replaces: kept aside.
  for (const [from, to] of protectInputs(
    dir,
    [env.VDS_COMPARE, env.VDS_BASELINE].filter((f): f is string => !!f),
  )) {
    if (env.VDS_COMPARE === from) env.VDS_COMPARE = to;
    if (env.VDS_BASELINE === from) env.VDS_BASELINE = to;
  }
  // The blob folder may be inside reports/: only the files a merge writes are replaced, once kept.
  const replaced = [
    REPORT_FILES.certificateJson,
    REPORT_FILES.certificateMd,
    REPORT_FILES.certificateHtml,
    REPORT_FILES.changes,
    REPORT_FILES.junit,
    REPORT_FILES.allureResults,
    REPORT_FILES.trendHtml,
    REPORT_FILES.trendMd,
  ];
  if (lastCertificate(dir)) keepEarlierRun(dir, replaced);
  for (const f of [REPORT_FILES.certificateJson, REPORT_FILES.changes]) fs.rmSync(path.join(dir, f), { force: true });
  const code = await playwright(['merge-reports', '-c', codePath('src', 'playwright', `merge.config${CODE_EXT}`), blobs], env);
  const certificate = readCertificateIfAny(path.join(dir, REPORT_FILES.certificateJson));
  if (!certificate?.gate) return code === 0 ? EXIT.broken : code;
  return certificate.gate.exitCode ?? (certificate.gate.status === 'passed' ? EXIT.passed : EXIT.failed);
}

/**
 * The conformance run's configuration, beside the running code: compiled, dist/playwright.config.js with
 * the compiled tests (no TypeScript for the runner and its workers to compile); unless the user gave one.
 */
function configArgs(args: string[]): string[] {
  return args[0] !== 'test' || configGiven(args) ? [] : ['-c', codePath(`playwright.config${CODE_EXT}`)];
}

function configGiven(args: string[]): boolean {
  return args.some((a) => a === '-c' || a === '--config' || a.startsWith('--config='));
}

/**
 * The runner's environment. Running the compiled suite with its own configuration (a run's, or the
 * merge's), the runner and its workers load JavaScript alone: PW_DISABLE_TS_ESM spares each of them
 * Playwright's TypeScript loader, whose module hooks start a thread of their own in every process
 * (profiled in a one-check run: about 0.2 s of the runner's processor time and 0.3 s of the worker's,
 * on the way to its first check). A configuration the user gave may be TypeScript: not then.
 */
function playwrightEnv(args: string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const ours = args[0] !== 'test' || !configGiven(args);
  return CODE_EXT === '.js' && ours ? { ...env, PW_DISABLE_TS_ESM: '1' } : env;
}

/** Playwright's runner in a child process; its output to the terminal, or handed to `output` (the registry's replays, one line each instead). */
export function playwright(args: string[], env: NodeJS.ProcessEnv, output?: (text: string) => void): Promise<number> {
  const cli = require.resolve('@playwright/test/cli', { paths: [ROOT] });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args.slice(0, 1), ...configArgs(args), ...args.slice(1)], {
      cwd: ROOT,
      env: playwrightEnv(args, env),
      stdio: output ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    child.stdout?.on('data', (d: Buffer) => output!(d.toString()));
    child.stderr?.on('data', (d: Buffer) => output!(d.toString()));
    waitOutSignals();
    child.on('close', (code, signal) => resolve(code ?? (signal ? 130 : 1)));
  });
}

let signalsWaited = false;

/**
 * Ctrl-C (SIGINT) and a CI job's SIGTERM reach the child too (same process group): wait for it to
 * write its reports, then exit with the gate's status (3: the run did not complete). Once per
 * process, however many runners it starts (the registry replays one archive after another).
 */
function waitOutSignals(): void {
  if (signalsWaited) return;
  signalsWaited = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
}

function readCertificateIfAny(file: string): Certificate | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate;
  } catch {
    return undefined;
  }
}

/** The keys of the checks that failed in a certificate. */
function failedChecks(file: string): string[] | undefined {
  const c = readCertificateIfAny(file);
  return c?.requirements?.flatMap((r) => r.failures.map((f) => f.check));
}
