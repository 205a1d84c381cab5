// `vds-conformance verify ARCHIVE` (npm run conformance -- --verify ARCHIVE): re-derives, offline, the
// verdicts of a certification archive (src/certification/archive.ts). The same checks run again, every request
// answered from the archive's recorded exchanges (src/setup/replay.ts), at the recorded clock, fuzz seed,
// target facts and discovered ids; then each check's status is compared with the one the archived
// certificate states. Exit 0: every replayable verdict reproduced; 1: some differ, or a request had
// no recorded answer (an edited or incomplete archive); 2: the archive cannot be read, or another
// suite version made it; 3: the replay itself broke. The registry (src/cli/registry.ts) verifies each
// archive it publishes with the same steps: openArchive, suiteOf, replayArchive.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runOptions } from '../options/options';
import * as tar from 'tar';
import { loadCatalogue, planChecks } from '../catalogue/catalogue';
import { REPLAY_ENV, REPLAY_FILE, type ReplayContextFile } from '../setup/replay';
import type { RecordedCheck } from '../verdict/check-record';
import { SELECTION_ENV } from '../catalogue/patterns';
import { suiteContentHash } from '../certification/identity';
import { EXIT } from '../verdict/exit-codes';
import { suiteInfo } from '../util/suite-info';
import type { Certificate, CheckStatus } from '../verdict/model';
import { reportsDir, REPORT_FILES } from '../options/paths';
import { UsageError, type Invocation } from './args';
import { ARCHIVED } from '../certification/archive';
import { keepEarlierRun } from './reports-folder';
import { headlineLine } from '../rendering/format';

/** Where verify writes: its own folder, beside (never over) the last run's reports. */
export const VERIFY_DIR = 'verify';
export const VERIFICATION_FILE = 'verification.json';

export interface Verification {
  archive: string;
  /** The certificate's verdict, as its first line says it (the headline). */
  verdict: string;
  suite: {
    archive: { version: string; contentSha256?: string };
    installed: { version: string; contentSha256: string };
    sameContent: boolean;
  };
  /** The checks replayed (a --grep narrows them). */
  replayed: number;
  reproduced: number;
  differ: Array<{ check: string; certificate: CheckStatus | 'absent'; replay: CheckStatus | 'not replayed'; reason?: string }>;
  noRecordedAnswer: Array<{ check: string; requests: string[] }>;
  recordOnly: Array<{ check: string; certificate: CheckStatus | 'absent'; why: string }>;
  exitCode: number;
}

/** @public The command loads it when asked for (src/cli/run.ts requires it for --verify). */
export async function verify(inv: Invocation, playwright: Playwright, invokedAs = 'npm run conformance --'): Promise<number> {
  const archive = inv.verify!;
  const opened = openArchive(archive);
  try {
    const suite = suiteOf(opened, invokedAs);
    console.log(
      `Verifying ${archive}: made by vds-conformance ${suite.archive.version} (content ${short(suite.archive.contentSha256)}), ` +
        `installed ${suite.installed.version} (content ${short(suite.installed.contentSha256)})${suite.sameContent ? '' : ': the contracts or checks differ from those that made the archive, so a verdict may differ for that reason'}`,
    );
    const out = path.join(reportsDir(), VERIFY_DIR);
    // An earlier verification is kept (reports-folder.ts), never lost.
    if (fs.existsSync(out)) keepEarlierRun(out, fs.readdirSync(out), 'verify', reportsDir());
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const narrowed = !!(inv.env[SELECTION_ENV.grep] || inv.env[SELECTION_ENV.grepInvert]);
    const v = await replayArchive(opened, suite, { out, playwright, env: inv.env, playwrightArgs: inv.playwrightArgs, narrowed });
    if (typeof v === 'number') return v;
    console.log(renderVerification(v, path.join(out, VERIFICATION_FILE)));
    return v.exitCode;
  } finally {
    opened.close();
  }
}

/** How the command starts Playwright's runner (src/cli/run.ts): its arguments, environment, and where its output goes (the terminal, else `output`). */
export type Playwright = (args: string[], env: NodeJS.ProcessEnv, output?: (text: string) => void) => Promise<number>;

/** A certification archive extracted to a temporary folder (removed by close), with its certificate and its run's context. */
export interface OpenedArchive {
  archive: string;
  dir: string;
  certificate: Certificate;
  context: ReplayContextFile;
  close(): void;
}

/** Opens an archive; a UsageError says why it is not a complete certification archive (nothing replayed). */
export function openArchive(archive: string): OpenedArchive {
  const dir = extract(archive);
  try {
    const { certificate, context } = readArchive(archive, dir);
    return { archive, dir, certificate, context, close: () => fs.rmSync(dir, { recursive: true, force: true }) };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The suite that made the archive beside the installed one. A replay re-derives each verdict with the
 * suite's own checks, so another version is refused (a UsageError naming both); another content of the
 * same version is said, not refused.
 */
export function suiteOf(
  opened: OpenedArchive,
  invokedAs = 'npm run conformance --',
  installed: Verification['suite']['installed'] = { version: suiteInfo().version, contentSha256: suiteContentHash() },
): Verification['suite'] {
  const { archive, certificate } = opened;
  const made = {
    version: certificate.certification?.suite.version ?? certificate.suite.version,
    contentSha256: certificate.certification?.suite.contentSha256,
  };
  if (made.version !== installed.version) {
    throw new UsageError(
      `${archive} was made by vds-conformance ${made.version}; the installed suite is ${installed.version}. ` +
        `A replay re-derives each verdict with the suite's own checks, so only the version that made the archive can verify it: ` +
        `install vds-conformance@${made.version} (npm install --save-dev vds-conformance@${made.version}) and run ${invokedAs} verify again. Nothing was replayed.`,
    );
  }
  return { archive: made, installed, sameContent: made.contentSha256 === installed.contentSha256 };
}

/**
 * Replays an opened archive with the installed suite (its reports, verification.json among them, in
 * `out`) and compares each check's verdict with its certificate; a number when the replay gave none:
 * exit 2 (the runner refused an option) or 3 (it broke before its verdict).
 */
export async function replayArchive(
  opened: OpenedArchive,
  suite: Verification['suite'],
  how: { out: string; playwright: Playwright; env?: Record<string, string>; playwrightArgs?: string[]; narrowed?: boolean; output?: (text: string) => void },
): Promise<Verification | number> {
  const { archive, dir, certificate, context } = opened;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...context.selection,
    ...how.env,
    [REPLAY_ENV]: dir,
    VDS_FUZZ_SEED: String(context.fuzzSeed),
    VDS_REPORTS_DIR: how.out,
    VDS_WORKERS: String(runOptions().workers),
  };
  delete env.VDS_CERTIFY;
  delete env.VDS_TARGET;
  const code = await how.playwright(['test', ...(how.playwrightArgs ?? [])], env, how.output);
  if (code === EXIT.usage) return EXIT.usage;
  const replayFile = path.join(how.out, REPORT_FILES.exchanges);
  if (!fs.existsSync(replayFile)) {
    console.error(`The replay of ${archive} broke before its verdict (see the messages above): nothing to compare in ${how.out}.`);
    return EXIT.broken;
  }
  const replayed = JSON.parse(fs.readFileSync(replayFile, 'utf8')) as RecordedCheck[];
  const v = compare(archive, statesOf(certificate), replayed, how.narrowed ?? false, suite, verdictOf(certificate));
  fs.writeFileSync(path.join(how.out, VERIFICATION_FILE), `${JSON.stringify(v, null, 1)}\n`);
  return v;
}

function short(hash?: string): string {
  return hash ? `sha256 ${hash.slice(0, 12)}` : 'unrecorded';
}

/** The archive, extracted to a temporary folder; a clear refusal when it is not one. */
function extract(archive: string): string {
  const problem = (why: string) =>
    new UsageError(
      `verify: ${archive} ${why}. Give the .tar.gz a certification run wrote (npm run conformance -- --certify: reports/certification-<product>-<date>.tar.gz). Nothing was replayed.`,
    );
  if (!fs.existsSync(archive)) throw problem('does not exist');
  if (!fs.statSync(archive).isFile()) throw problem('is not a file');
  const head = Buffer.alloc(2);
  const fd = fs.openSync(archive, 'r');
  try {
    fs.readSync(fd, head, 0, 2, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b) throw problem('is not a .tar.gz archive (not gzip)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-verify-'));
  try {
    tar.extract({ file: archive, cwd: dir, sync: true, strict: true, filter: (p) => (ARCHIVED as string[]).includes(p.replace(/^\.\//, '')) });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw problem(`cannot be read as a .tar.gz archive (${(err as Error).message})`);
  }
  return dir;
}

function readArchive(archive: string, dir: string): { certificate: Certificate; context: ReplayContextFile } {
  const missing = [REPORT_FILES.certificateJson, REPORT_FILES.exchanges, REPLAY_FILE].filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length) {
    const old = missing.length === 1 && missing[0] === REPLAY_FILE;
    throw new UsageError(
      `verify: ${archive} lacks ${missing.join(', ')}` +
        (old
          ? ': it was made by a suite from before archives could be replayed; its verdicts can be checked against its exchanges by hand only'
          : ': it is not a complete certification archive') +
        '. Nothing was replayed.',
    );
  }
  const read = <T>(f: string): T => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as T;
    } catch (err) {
      throw new UsageError(`verify: ${f} in ${archive} is not JSON (${(err as Error).message}). Nothing was replayed.`);
    }
  };
  const certificate = read<Certificate>(REPORT_FILES.certificateJson);
  const context = read<ReplayContextFile>(REPLAY_FILE);
  read<unknown>(REPORT_FILES.exchanges);
  if (!certificate.suite?.version || !Array.isArray(certificate.requirements)) {
    throw new UsageError(`verify: ${REPORT_FILES.certificateJson} in ${archive} is not a conformance certificate. Nothing was replayed.`);
  }
  return { certificate, context };
}

/**
 * Each check's status as the certificate states it: its requirement's failures, not-run and
 * not-applicable lists name checks; any other planned check of the requirement passed.
 */
function statesOf(certificate: Certificate): Map<string, CheckStatus> {
  const planned = planChecks(loadCatalogue());
  const states = new Map<string, CheckStatus>();
  for (const r of certificate.requirements) {
    for (const p of planned.filter((c) => c.requirement.id === r.id)) states.set(p.key, 'passed');
    for (const f of r.failures) states.set(f.check, 'failed');
    for (const n of r.notRun) for (const k of n.checks) states.set(k, 'not-run');
    for (const n of r.notApplicable ?? []) for (const k of n.checks) states.set(k, 'not-applicable');
  }
  return states;
}

/** The archived certificate's verdict in one line: its headline (a certificate made before headlines: the class verdicts). */
export function verdictOf(c: Certificate): string {
  return (
    headlineLine(c) ??
    Object.entries(c.verdict ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
  );
}

function compare(
  archive: string,
  stated: Map<string, CheckStatus>,
  replayed: RecordedCheck[],
  narrowed: boolean,
  suite: Verification['suite'],
  verdict: string,
): Verification {
  const v: Verification = {
    archive,
    verdict,
    suite,
    replayed: replayed.length,
    reproduced: 0,
    differ: [],
    noRecordedAnswer: [],
    recordOnly: [],
    exitCode: EXIT.passed,
  };
  const seen = new Set<string>();
  for (const r of replayed) {
    seen.add(r.key);
    const certificate = stated.get(r.key) ?? 'absent';
    if (r.replay?.kind === 'no-recorded-answer') v.noRecordedAnswer.push({ check: r.key, requests: r.replay.requests });
    else if (r.replay?.kind === 'record-only') v.recordOnly.push({ check: r.key, certificate, why: r.replay.why });
    else if (certificate === r.status) v.reproduced += 1;
    else v.differ.push({ check: r.key, certificate, replay: r.status as CheckStatus, ...(r.reason ? { reason: r.reason } : {}) });
  }
  // The whole archive replayed: a check the certificate states that the replay did not run differs too.
  if (!narrowed) {
    for (const [check, status] of stated) if (!seen.has(check)) v.differ.push({ check, certificate: status, replay: 'not replayed' });
  }
  v.exitCode = v.differ.length || v.noRecordedAnswer.length ? EXIT.failed : EXIT.passed;
  return v;
}

/** What a replay did not reproduce, a line each under its heading (indented by 4): the checks that differ, the requests without recorded answer. */
export function notReproduced(v: Verification): string[] {
  const lines: string[] = [];
  if (v.differ.length) {
    lines.push(`✘ ${v.differ.length} differ from the certificate:`);
    for (const d of v.differ) lines.push(`    ${d.check}: certificate ${d.certificate}, replay ${d.replay}${d.reason ? ` (${d.reason.split('\n')[0]})` : ''}`);
  }
  if (v.noRecordedAnswer.length) {
    lines.push(`✘ ${v.noRecordedAnswer.length} asked a request the archive has no recorded answer for (an edited or incomplete archive):`);
    for (const n of v.noRecordedAnswer) lines.push(`    ${n.check}: ${n.requests[0]}`);
  }
  return lines;
}

function renderVerification(v: Verification, file: string): string {
  const lines = [
    '',
    `Verification of ${v.archive}`,
    `  suite: archive ${v.suite.archive.version} (${short(v.suite.archive.contentSha256)}), installed ${v.suite.installed.version} (${short(v.suite.installed.contentSha256)})` +
      (v.suite.sameContent ? ', same content' : ', different content'),
    `  the certificate's verdict: ${v.verdict}`,
    `  ${v.reproduced} of ${v.replayed} checks reproduced`,
  ];
  lines.push(...notReproduced(v).map((l) => `  ${l}`));
  if (v.recordOnly.length) {
    lines.push(`  ○ ${v.recordOnly.length} verified from the record only (they need a browser, which a replay does not drive):`);
    for (const r of v.recordOnly) lines.push(`      ${r.check}: certificate ${r.certificate}`);
  }
  const problems = [
    ...(v.differ.length ? [`${v.differ.length} checks differ`] : []),
    ...(v.noRecordedAnswer.length ? [`${v.noRecordedAnswer.length} asked a request it has no answer for`] : []),
  ];
  lines.push(
    v.exitCode === EXIT.passed
      ? `  Exit status 0: reproduced: the archive's exchanges give the certificate's verdict (${v.verdict}), every replayable check as it states`
      : `  Exit status 1: not reproduced: the archive's exchanges do not give its certificate (${v.verdict}): ${problems.join(', ')}`,
    `  Report: ${file}`,
    '',
  );
  return lines.join('\n');
}
