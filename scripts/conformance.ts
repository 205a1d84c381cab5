// `npm run conformance -- [flags]`: the conformance run for users, who type flags rather than env
// vars. It validates its own flags (one clear line and exit 2 on a bad one), clears the reports
// folder, runs `playwright test` with everything else passed through, and exits with the code the
// certificate reporter decided (reporters/gate.ts).
// `npm run merge -- DIR` (--merge DIR) merges the blob reports of sharded runs instead, and exits
// with the merged certificate's gate (merge-reports itself always exits 0).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { didYouMean } from '../harness/did-you-mean';
import { SELECTION_ENV } from '../harness/selection';
import { listTargetNames, resolveTargetFile, TargetError } from '../harness/target';
import { BaselineError, readBaseline } from '../reporters/baseline';
import { CompareError, readCertificate } from '../reporters/compare';
import type { Certificate } from '../reporters/model';
import { OptionError, parseRatio } from '../reporters/options';
import { DEFAULT_BASELINE, reportsDir, ROOT } from '../reporters/paths';

export const USAGE = `Usage: npm run conformance -- [options] [playwright test options]

Runs the VDS v3 conformance suite and writes the certificate to reports/ (see reports/README.md).

Options:
  --target NAME|PATH       target file: ${listTargetNames().join(', ')}, or a path to a YAML file (default: local)
  --monitor                read-only whatever the target file says; per-route latency in conformance.json
  --compare PATH           a previous conformance.json: list what changed, in reports/changes.md;
                           the exit status then says whether anything got worse
  --latency-ratio R        with --compare: a route is slower when its p95 grew more than R times (default 1.5;
                           routes under 50 ms are ignored, VDS_LATENCY_FLOOR_MS changes that)
  --baseline PATH          known failures: fail only on core failures the file does not list
  --update-baseline [PATH] write this run's failures to PATH (a .yaml/.yml file; default conformance-baseline.yaml)
  --merge DIR              no run: merge the blob reports in DIR (from --shard runs) into one certificate
  -h, --help               this help

  -g, --grep PATTERN       run only the checks whose title or tags match (a regular expression): a check
                           "CORE-ERROR-BODY GET /users/me" has the tags @CORE-ERROR-BODY @core @users @critical,
                           so --grep @core, --grep @critical, --grep "@(CAR-CREATE|DEV-DISSOCIATE)\b"
  -G, --grep-invert PATTERN  leave out the checks that match
  -x, --max-failures N     stop after the first (N) failing checks

Anything else goes to \`playwright test\`, e.g. --workers 4, --shard 1/3, a spec file (users.spec.ts).

Exit status: 0 the gate passed (core verdict not FAIL, or no regression, or nothing got worse);
1 it failed (or the run did not complete); 2 bad options or target file.`;

/** Playwright test options (1.65) and whether they take a value, to pass them through intact. */
const PLAYWRIGHT_FLAGS: Record<string, 'value' | 'optional' | 'none'> = {
  '--add-reporter': 'value', '--browser': 'value', '-c': 'value', '--config': 'value', '--debug': 'optional',
  '--fail-on-flaky-tests': 'none', '--forbid-only': 'none', '--fully-parallel': 'none', '-g': 'value', '--grep': 'value',
  '-G': 'value', '--grep-invert': 'value', '--global-timeout': 'value', '--headed': 'none', '--ignore-snapshots': 'none',
  '-j': 'value', '--workers': 'value', '--last-failed': 'none', '--last-failed-file': 'value', '--list': 'none',
  '--max-failures': 'value', '-x': 'none', '--no-deps': 'none', '--only-changed': 'optional', '--output': 'value',
  '--pass-with-no-tests': 'none', '--project': 'value', '--quiet': 'none', '--repeat-each': 'value', '--reporter': 'value',
  '--retries': 'value', '--run-agents': 'value', '--shard': 'value', '--shuffle': 'optional', '--test-list': 'value',
  '--test-list-invert': 'value', '--timeout': 'value', '--trace': 'value', '--tsconfig': 'value', '-u': 'optional',
  '--update-snapshots': 'optional', '--ui': 'none', '--ui-host': 'value', '--ui-port': 'value', '--update-source-method': 'value',
};

const OWN_FLAGS = ['--target', '--monitor', '--compare', '--latency-ratio', '--baseline', '--update-baseline', '--merge', '--help'];

export class UsageError extends Error {}

export interface Invocation {
  help: boolean;
  /** A folder of blob reports to merge, instead of a run. */
  merge?: string;
  /** Environment for the run (read by the config, the target loader and the certificate reporter). */
  env: Record<string, string>;
  playwrightArgs: string[];
  notes: string[];
}

export function parseArgs(argv: string[]): Invocation {
  const inv: Invocation = { help: false, env: {}, playwrightArgs: [], notes: [] };
  const args = [...argv];
  while (args.length) {
    const raw = args.shift()!;
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    const value = (): string => {
      const v = inline ?? args.shift();
      if (v === undefined || v === '' || (inline === undefined && v.startsWith('--'))) throw new UsageError(`${flag} needs a value (see --help)`);
      return v;
    };
    switch (flag) {
      case '-h':
      case '--help':
        inv.help = true;
        break;
      case '--target':
        inv.env.VDS_TARGET = checkTarget(value());
        break;
      case '--monitor':
        inv.env.VDS_MONITOR = '1';
        break;
      case '--compare':
        inv.env.VDS_COMPARE = checkFile(value(), (f) => readCertificate(f));
        break;
      case '--latency-ratio':
        inv.env.VDS_LATENCY_RATIO = String(parseRatio(value()));
        break;
      case '--baseline':
        inv.env.VDS_BASELINE = checkFile(value(), (f) => readBaseline(f));
        break;
      case '--update-baseline': {
        // The path is optional: taken when it names a YAML file, so `--update-baseline users.spec.ts` stays a filter.
        const next = inline ?? (args[0] && !args[0].startsWith('-') && /\.ya?ml$/i.test(args[0]) ? args.shift() : undefined);
        const file = path.resolve(next ?? DEFAULT_BASELINE);
        if (!fs.existsSync(path.dirname(file))) throw new UsageError(`--update-baseline: folder ${path.dirname(file)} does not exist`);
        inv.env.VDS_UPDATE_BASELINE = file;
        break;
      }
      // Checks are steps of one test per route group: the checks' own selection applies the patterns
      // (harness/selection.ts); Playwright then runs the groups that have a selected check.
      case '-g':
      case '--grep':
        inv.env[SELECTION_ENV.grep] = checkPattern(flag, value());
        break;
      case '-G':
      case '--grep-invert':
        inv.env[SELECTION_ENV.grepInvert] = checkPattern(flag, value());
        break;
      case '--merge': {
        const dir = path.resolve(value());
        if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`--merge: ${dir} is not a folder of blob reports`);
        inv.merge = dir;
        break;
      }
      default:
        passThrough(raw, flag, args, inv);
    }
  }
  if (inv.env.VDS_BASELINE && inv.env.VDS_UPDATE_BASELINE) throw new UsageError('use either --baseline or --update-baseline, not both');
  if (inv.env.VDS_LATENCY_RATIO && !inv.env.VDS_COMPARE) throw new UsageError('--latency-ratio only applies with --compare PATH');
  if (inv.merge && (inv.playwrightArgs.length || inv.env.VDS_TARGET || inv.env.VDS_MONITOR || inv.env.VDS_GREP || inv.env.VDS_GREP_INVERT)) {
    throw new UsageError('--merge takes no run options (--target, --monitor, --grep, playwright test options): the blob reports carry them');
  }
  return inv;
}

function passThrough(raw: string, flag: string, args: string[], inv: Invocation): void {
  if (!flag.startsWith('-')) {
    inv.playwrightArgs.push(raw);
    return;
  }
  const kind = PLAYWRIGHT_FLAGS[flag];
  if (!kind) {
    const guess = didYouMean(flag, [...OWN_FLAGS, ...Object.keys(PLAYWRIGHT_FLAGS).filter((f) => f.startsWith('--'))], 3);
    throw new UsageError(`unknown option ${flag}${guess ? ` (did you mean ${guess}?)` : ''}; see --help`);
  }
  inv.playwrightArgs.push(raw);
  if (raw.includes('=')) return;
  if (kind === 'value' && args.length) inv.playwrightArgs.push(args.shift()!);
  if (kind === 'optional' && args.length && !args[0].startsWith('-')) inv.playwrightArgs.push(args.shift()!);
  if (flag === '--reporter') inv.notes.push('note: --reporter replaces every reporter of the suite (no certificate); --add-reporter adds one instead');
}

function checkPattern(flag: string, pattern: string): string {
  try {
    new RegExp(pattern);
  } catch (err) {
    throw new UsageError(`${flag}: not a regular expression: ${(err as Error).message}`);
  }
  return pattern;
}

function checkTarget(selector: string): string {
  let file: string;
  try {
    file = resolveTargetFile(selector);
  } catch (err) {
    if (err instanceof TargetError) throw new UsageError(`unknown target "${selector}": use one of ${listTargetNames().join(', ')}, or the path of a YAML file`);
    throw err;
  }
  if (!fs.existsSync(file)) {
    throw new UsageError(`unknown target "${selector}": use one of ${listTargetNames().join(', ')}, or the path of a YAML file`);
  }
  return selector;
}

function checkFile(file: string, read: (f: string) => unknown): string {
  const full = path.resolve(file);
  try {
    read(full);
  } catch (err) {
    if (err instanceof BaselineError || err instanceof CompareError || err instanceof OptionError) throw new UsageError(err.message);
    throw err;
  }
  return full;
}

/** Everything of the previous run goes (Allure never empties its folder); README.md and the self-tests' folders stay. */
export function clearReports(dir: string): void {
  if (!fs.existsSync(dir)) return;
  const keep = new Set(['README.md', 'self', 'mutation']);
  for (const entry of fs.readdirSync(dir)) {
    if (!keep.has(entry)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
}

function playwright(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const cli = require.resolve('@playwright/test/cli', { paths: [ROOT] });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: ROOT, env, stdio: 'inherit' });
    // Ctrl-C reaches the child too (same process group); wait for it to write its reports.
    process.on('SIGINT', () => undefined);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 130 : 1)));
  });
}

async function run(inv: Invocation): Promise<number> {
  const env = { ...process.env, ...inv.env };
  const dir = reportsDir(env);
  for (const n of inv.notes) console.error(n);
  if (!inv.merge) {
    clearReports(dir);
    return playwright(['test', ...inv.playwrightArgs], env);
  }
  // The blob folder may be inside reports/: only the files a merge writes are replaced.
  for (const f of ['conformance.json', 'changes.md']) fs.rmSync(path.join(dir, f), { force: true });
  const code = await playwright(['merge-reports', '-c', path.join(ROOT, 'reporters', 'merge.config.ts'), inv.merge], env);
  const certificate = path.join(dir, 'conformance.json');
  if (code !== 0 || !fs.existsSync(certificate)) return code || 1;
  return (JSON.parse(fs.readFileSync(certificate, 'utf8')) as Certificate).gate?.status === 'passed' ? 0 : 1;
}

async function main(): Promise<void> {
  let inv: Invocation;
  try {
    inv = parseArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof OptionError)) throw err;
    console.error(`conformance: ${err.message}`);
    process.exit(2);
  }
  if (inv.help) {
    console.log(USAGE);
    return;
  }
  process.exitCode = await run(inv);
}

if (require.main === module) void main();
