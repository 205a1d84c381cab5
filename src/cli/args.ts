// The command line of `vds-conformance` (and `npm run conformance --`, the same in a clone): its
// subcommands (init, verify, report, merge, registry, help; a run when there is none), the suite's own flags,
// which become environment variables for the run (read by playwright.config.ts, the target loader and
// the certificate reporter), and the options of `playwright test` this wrapper knows, passed on as
// they are. Anything else is refused before anything runs or is written: one line and exit 2
// (src/cli/main.ts), never handed to the runner (a word it took for a file filter would run the
// whole suite against the default target, and a run empties the reports folder first).
import fs from 'node:fs';
import path from 'node:path';
import { didYouMean } from '../util/did-you-mean';
import { SELECTION_ENV } from '../catalogue/patterns';
import { listTargetNames, resolveTargetFile, TARGETS_DIR, TargetError } from '../setup/target';
import { BaselineError, readBaseline } from '../verdict/baseline';
import { CompareError, readCertificate } from '../monitoring/compare';
import { EXIT_HELP } from '../verdict/exit-codes';
import { checkHistoryDir, OptionError, parseFloor, parseGate, parseRatio } from '../playwright/report-options';
import { DEFAULT_BASELINE } from '../options/paths';
import { CODE_EXT, codePath } from '../util/suite-info';

/** The subcommands, each with its arguments and what it does: --help lists them in this order. */
const SUBCOMMANDS = [
  {
    name: 'init',
    args: '[TARGET-FILE]',
    what: 'write a commented target file (default my-target.yaml) and a .env template here (never over an existing file), then list what that target cannot run yet for a certification, and how to get it',
  },
  {
    name: 'verify',
    args: 'ARCHIVE',
    what: "no server: replay a certification archive offline and compare each check's verdict with its certificate (same as --verify ARCHIVE)",
  },
  {
    name: 'report',
    args: '',
    what: "build the Allure report of the last run: reports/allure-report/index.html, one file that opens from disk, the run's verdict as its quality gate",
  },
  { name: 'merge', args: 'DIR', what: 'no run: merge the blob reports of sharded runs in DIR into one certificate (same as --merge DIR)' },
  {
    name: 'registry',
    args: 'ARCHIVE... --out DIR',
    what:
      'no server: verify each certification archive (or each .tar.gz of a folder) as verify does, then publish the verified ones side by side in DIR: ' +
      'a static site (index.html, matrix.html, changes.html) and registry.json. An archive that fails is refused by name, with why (exit 1; the rest are published)',
  },
  { name: 'help', args: '', what: 'this help (also -h, --help)' },
] as const;
type Subcommand = (typeof SUBCOMMANDS)[number]['name'];

/** The help, naming the command as it was invoked: `vds-conformance` or `npm run conformance --`. */
export function usage(invokedAs = 'npm run conformance --'): string {
  const width = Math.max(...SUBCOMMANDS.map((c) => `${c.name} ${c.args}`.trim().length));
  return `Usage: ${invokedAs} [options] [playwright test options]     a conformance run
       ${invokedAs} SUBCOMMAND [arguments]

Runs the VDS v3 conformance suite and writes the certificate to reports/ (see reports/README.md).
The previous run's reports are kept, never lost: its certificate in reports/previous/, the whole run
packed in reports/earlier-runs/.

Subcommands:
${SUBCOMMANDS.map((c) => `  ${`${c.name} ${c.args}`.trim().padEnd(width)}  ${c.what}`).join('\n')}

Options:
  --target NAME|PATH       target file: ${listTargetNames().join(', ')}, or a path to a YAML file (default: local)
  --monitor                read-only whatever the target file says; per-route latency in conformance.json
  --compare PATH|last      a previous conformance.json (last: the previous run's, kept in reports/previous/):
                           list what changed, in reports/changes.md; the exit status then says whether
                           anything got worse
  --latency-ratio R        with --compare: a route is slower when the fastest and the median of its sampled
                           answer times each grew more than R times (default 1.5)...
  --latency-floor-ms N     ...and by at least N ms (default 100). Anything less is a note, never a failure
  --history DIR            add this run's summary to DIR (created if needed; keep it between nights) and draw
                           the nights as a trend: reports/trend.html (charts) and reports/trend.md (tables)
  --gate all|core          which classes decide the exit status: all (default: any failing requirement of the
                           spec or the profile fails the run) or core (only the spec's requirements)
  --baseline PATH          known failures: fail only on failures (of the gated classes) the file does not list
  --update-baseline [PATH] write this run's failures to PATH (a .yaml/.yml file; default conformance-baseline.yaml)
  --require-complete       a class with checks that did not run (INCOMPLETE) fails the gate too
  --certify                certification: the whole suite, nothing left out; anything not run (but what the
                           target's environment rules out) is a FAIL. Before anything is sent, lists what the
                           target cannot run and how to get it; a certification that cannot pass stops there
                           (exit 2). Writes one archive with the certificate and every check's redacted
                           requests: reports/certification-<product>-<date>.tar.gz
  --merge DIR              no run: merge the blob reports in DIR (from --shard runs) into one certificate
  --verify ARCHIVE         no server: replay a certification archive offline (every request answered from its
                           recorded exchanges) and compare each check's verdict with its certificate; --grep
                           narrows it (one check, to debug). Reports in reports/verify/.
                           Exit 0: every replayable verdict reproduced; 1: some differ or had no recorded answer;
                           2: unreadable archive, or made by another suite version
  -h, --help               this help

Selecting checks:
  -g, --grep PATTERN       run only the checks whose key or tags match (a regular expression). A check
                           "CORE-ERROR-BODY GET /users/me" has the tags @CORE-ERROR-BODY @core @users @critical:
                           --grep @core, --grep @critical, --grep "@(CAR-CREATE|DEV-DISSOCIATE)\\b"
  -G, --grep-invert PATTERN  leave out the checks that match
  --last-failed            only the checks that failed in the previous run (reports/conformance.json)
  -x, --max-failures N     stop after the first (N) failing checks
  ROUTE-GROUP              only the checks of a route group's file: ${conformanceFiles()
    .map((f) => f.slice(0, -SPEC.length))
    .join(', ')}

These options of \`playwright test\` are passed on to it: ${[...Object.keys(PLAYWRIGHT_VALUE_FLAGS), ...KNOWN_PLAYWRIGHT_SWITCHES].sort().join(', ')}.
Any other option or word is refused (exit 2).

${EXIT_HELP}`;
}

export class UsageError extends Error {}

export interface Invocation {
  help: boolean;
  /** `init [TARGET-FILE]`: the target file to write (relative to where the user is). */
  init?: string;
  /** `report`: build the Allure report of the last run, nothing else. */
  report: boolean;
  /** A folder of blob reports to merge, instead of a run. */
  merge?: string;
  /** A certification archive to replay offline and compare with its certificate (src/cli/verify.ts). */
  verify?: string;
  /** `registry ARCHIVE... --out DIR`: the archives (files or folders of them) to verify and publish in DIR (src/cli/registry.ts). */
  registry?: RegistryInvocation;
  /** --certify: a whole, unnarrowed run whose archive is written at the end. */
  certify: boolean;
  /** --last-failed: select the checks that failed in the previous run. */
  lastFailed: boolean;
  /** --compare last: compare with the previous run of this reports folder. */
  compareLast: boolean;
  /** Environment for the run (read by the config, the target loader and the certificate reporter). */
  env: Record<string, string>;
  playwrightArgs: string[];
  notes: string[];
  /** What narrows the run (refused by --certify). */
  narrowing: string[];
}

/** Playwright test options known to take a value (or an optional one): passed on with it. */
const PLAYWRIGHT_VALUE_FLAGS: Record<string, 'value' | 'optional'> = {
  '--add-reporter': 'value',
  '--browser': 'value',
  '-c': 'value',
  '--config': 'value',
  '--debug': 'optional',
  '--global-timeout': 'value',
  '-j': 'value',
  '--workers': 'value',
  '--last-failed-file': 'value',
  '--max-failures': 'value',
  '--only-changed': 'optional',
  '--output': 'value',
  '--project': 'value',
  '--repeat-each': 'value',
  '--reporter': 'value',
  '--retries': 'value',
  '--run-agents': 'value',
  '--shard': 'value',
  '--shuffle': 'optional',
  '--test-list': 'value',
  '--test-list-invert': 'value',
  '--timeout': 'value',
  '--trace': 'value',
  '--tsconfig': 'value',
  '-u': 'optional',
  '--update-snapshots': 'optional',
  '--ui-host': 'value',
  '--ui-port': 'value',
  '--update-source-method': 'value',
};

/** Playwright options that leave checks out: a certification refuses them. */
const NARROWING = new Set(['--shard', '--test-list', '--test-list-invert', '--only-changed', '--max-failures', '-x', '--last-failed-file']);

const OWN_FLAGS = [
  '--target',
  '--monitor',
  '--compare',
  '--latency-ratio',
  '--latency-floor-ms',
  '--history',
  '--gate',
  '--baseline',
  '--update-baseline',
  '--require-complete',
  '--certify',
  '--merge',
  '--verify',
  '--help',
  '--grep',
  '--grep-invert',
  '--last-failed',
  '--max-failures',
];

export function parseArgs(argv: string[]): Invocation {
  const inv: Invocation = {
    help: false,
    report: false,
    certify: false,
    lastFailed: false,
    compareLast: false,
    env: {},
    playwrightArgs: [],
    notes: [],
    narrowing: [],
  };
  const args = [...argv];
  const subcommand = args[0] !== undefined && !args[0].startsWith('-') ? subcommandOf(args[0]) : undefined;
  if (subcommand) {
    args.shift();
    switch (subcommand) {
      case 'help':
        inv.help = true;
        break;
      case 'init':
        if (args.length > 1 || args[0]?.startsWith('-')) throw new UsageError(`init takes one target file name at most, got ${args.join(' ')}; see --help`);
        inv.init = args.shift() ?? 'my-target.yaml';
        return inv;
      case 'report':
        if (args.length) throw new UsageError(`report takes no arguments, got ${args.join(' ')}; see --help`);
        inv.report = true;
        return inv;
      case 'registry':
        inv.registry = parseRegistryArgs(args);
        inv.help = inv.registry.help;
        return inv;
      case 'verify':
      case 'merge':
        if (!args.length || args[0].startsWith('-'))
          throw new UsageError(`${subcommand} needs ${subcommand === 'verify' ? 'the archive' : 'the folder of blob reports'}; see --help`);
        args.unshift(`--${subcommand}`);
        break;
    }
  }
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
        inv.narrowing.push('--monitor');
        break;
      case '--compare': {
        const v = value();
        if (v === 'last') inv.compareLast = true;
        else inv.env.VDS_COMPARE = checkFile(userPath(v), (f) => readCertificate(f));
        break;
      }
      case '--latency-ratio':
        inv.env.VDS_LATENCY_RATIO = String(checked(() => parseRatio(value())));
        break;
      case '--latency-floor-ms':
        inv.env.VDS_LATENCY_FLOOR_MS = String(checked(() => parseFloor(value())));
        break;
      case '--history':
        inv.env.VDS_HISTORY = checked(() => checkHistoryDir(userPath(value())));
        break;
      case '--baseline':
        inv.env.VDS_BASELINE = checkFile(userPath(value()), (f) => readBaseline(f));
        inv.narrowing.push('--baseline');
        break;
      case '--update-baseline': {
        // The path is optional: taken when it names a YAML file.
        const next = inline ?? (args[0] && !args[0].startsWith('-') && /\.ya?ml$/i.test(args[0]) ? args.shift() : undefined);
        const file = next ? userPath(next) : DEFAULT_BASELINE;
        if (!fs.existsSync(path.dirname(file))) throw new UsageError(`--update-baseline: folder ${path.dirname(file)} does not exist`);
        inv.env.VDS_UPDATE_BASELINE = file;
        inv.narrowing.push('--update-baseline');
        break;
      }
      case '--gate':
        inv.env.VDS_GATE = checked(() => parseGate(value()));
        break;
      case '--require-complete':
        inv.env.VDS_REQUIRE_COMPLETE = '1';
        break;
      case '--certify':
        inv.certify = true;
        break;
      case '--last-failed':
        inv.lastFailed = true;
        inv.narrowing.push('--last-failed');
        break;
      // Checks are steps of one test per route group: the checks' own selection applies the patterns
      // (src/catalogue/selection.ts); Playwright then runs the groups that have a selected check.
      case '-g':
      case '--grep':
        inv.env[SELECTION_ENV.grep] = checkPattern(flag, value());
        inv.narrowing.push(flag);
        break;
      case '-G':
      case '--grep-invert':
        inv.env[SELECTION_ENV.grepInvert] = checkPattern(flag, value());
        inv.narrowing.push(flag);
        break;
      case '--verify':
        inv.verify = userPath(value());
        break;
      case '--merge': {
        const dir = userPath(value());
        if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`--merge: ${dir} is not a folder of blob reports`);
        inv.merge = dir;
        break;
      }
      default:
        passThrough(raw, flag, args, inv);
    }
  }
  if (inv.env.VDS_BASELINE && inv.env.VDS_UPDATE_BASELINE) throw new UsageError('use either --baseline or --update-baseline, not both');
  for (const [key, flag] of [
    ['VDS_LATENCY_RATIO', '--latency-ratio'],
    ['VDS_LATENCY_FLOOR_MS', '--latency-floor-ms'],
  ]) {
    if (inv.env[key] && !inv.env.VDS_COMPARE && !inv.compareLast) throw new UsageError(`${flag} only applies with --compare PATH`);
  }
  if (
    inv.merge &&
    (inv.playwrightArgs.length || inv.env.VDS_TARGET || inv.env.VDS_MONITOR || inv.env.VDS_GREP || inv.env.VDS_GREP_INVERT || inv.certify || inv.lastFailed)
  ) {
    throw new UsageError('--merge takes no run options (--target, --monitor, --grep, --certify, playwright test options): the blob reports carry them');
  }
  if (inv.merge && inv.compareLast) throw new UsageError("--merge takes --compare PATH, not --compare last: give the previous certificate's path");
  if (inv.verify) {
    const others = [
      ...(inv.certify ? ['--certify'] : []),
      ...(inv.merge ? ['--merge'] : []),
      ...(inv.lastFailed ? ['--last-failed'] : []),
      ...(inv.compareLast ? ['--compare'] : []),
      ...Object.entries(VERIFY_REFUSES)
        .filter(([k]) => inv.env[k])
        .map(([, flag]) => flag),
    ];
    if (others.length) {
      throw new UsageError(
        `--verify replays the archive's own run: it cannot be combined with ${others.join(', ')} (only --grep, --grep-invert and playwright test options)`,
      );
    }
  }
  if (inv.certify && inv.env.VDS_GATE === 'core') throw new UsageError('--certify judges every class: it cannot be combined with --gate core');
  if (inv.certify && inv.narrowing.length) {
    throw new UsageError(`--certify runs the whole suite: it cannot be combined with ${[...new Set(inv.narrowing)].join(', ')}`);
  }
  if (inv.certify) inv.env.VDS_CERTIFY = '1';
  return inv;
}

export interface RegistryInvocation {
  /** Archive files and folders of archives, as given (resolved from where the user is). */
  archives: string[];
  /** The site's folder. */
  out: string;
  help: boolean;
}

/**
 * `registry ARCHIVE... --out DIR`: the words are archives (or folders of them); --out is required (a
 * registry is a folder of its own, published as it is); anything else is refused. Nothing is read
 * here: the registry refuses, by name, an archive it cannot open, and says what is wrong with DIR.
 */
function parseRegistryArgs(args: string[]): RegistryInvocation {
  const archives: string[] = [];
  let out: string | undefined;
  let help = false;
  while (args.length) {
    const raw = args.shift()!;
    if (raw === '-h' || raw === '--help') help = true;
    else if (raw === '--out' || raw.startsWith('--out=')) {
      const v = raw.startsWith('--out=') ? raw.slice('--out='.length) : args.shift();
      if (!v || v.startsWith('-')) throw new UsageError('registry: --out needs the folder to write the registry to; see --help');
      if (out !== undefined) throw new UsageError('registry: --out is given twice; see --help');
      out = userPath(v);
    } else if (raw.startsWith('-')) {
      const guess = didYouMean(raw.split('=')[0], ['--out', '--help'], 2);
      throw new UsageError(
        `registry: unknown option ${raw}${guess ? ` (did you mean ${guess}?)` : ''}: registry takes archives (files, or folders of .tar.gz) and --out DIR. Nothing was verified; see --help`,
      );
    } else archives.push(userPath(raw));
  }
  if (help) return { archives, out: out ?? '', help };
  if (!archives.length) throw new UsageError('registry needs at least one certification archive (or a folder of them) and --out DIR; see --help');
  if (out === undefined) throw new UsageError('registry needs --out DIR: the folder to write the registry to (its site and registry.json); see --help');
  return { archives, out, help };
}

/** Run options a verify takes from the archive, not the command line. */
const VERIFY_REFUSES: Record<string, string> = {
  VDS_TARGET: '--target',
  VDS_MONITOR: '--monitor',
  VDS_COMPARE: '--compare',
  VDS_HISTORY: '--history',
  VDS_GATE: '--gate',
  VDS_BASELINE: '--baseline',
  VDS_UPDATE_BASELINE: '--update-baseline',
  VDS_REQUIRE_COMPLETE: '--require-complete',
  VDS_LATENCY_RATIO: '--latency-ratio',
  VDS_LATENCY_FLOOR_MS: '--latency-floor-ms',
};

/** A first word naming a subcommand; a close miss is refused (did you mean ...?). Else undefined (a route group's file filter, or refused later). */
function subcommandOf(word: string): Subcommand | undefined {
  const names = SUBCOMMANDS.map((c) => c.name as string);
  if (names.includes(word)) return word as Subcommand;
  if (conformanceFile(word)) return undefined;
  const guess = didYouMean(word, names, 3);
  throw new UsageError(
    `unknown subcommand ${word}${guess ? ` (did you mean ${guess}?)` : ''}: the subcommands are ${names.join(', ')}; a word alone may also name a route group (${conformanceFiles()
      .map((f) => f.slice(0, -SPEC.length))
      .join(', ')}). Nothing was run; see --help`,
  );
}

/** A route group's spec file's ending, as it runs: the sources' (.ts) or the compiled suite's (.js). */
const SPEC = `.spec${CODE_EXT}`;

/** The conformance suite's spec files (one per route group), as the runner will find them: what a file filter may name. */
function conformanceFiles(): string[] {
  return fs.readdirSync(codePath('tests', 'conformance')).filter((f) => f.endsWith(SPEC));
}

/**
 * The route group's spec file a word names (`users`, `users.spec.ts`, `tests/conformance/users.spec.ts`),
 * passed to playwright test as its file filter; undefined when it names none (Playwright would read it as
 * a regular expression on every test file's path: a word that matched them all would run everything).
 */
function conformanceFile(word: string): string | undefined {
  const name = path.basename(word).replace(/\.spec\.[jt]s$/, '');
  return conformanceFiles().find((f) => f === `${name}${SPEC}`);
}

function passThrough(raw: string, flag: string, args: string[], inv: Invocation): void {
  if (!flag.startsWith('-')) {
    const file = conformanceFile(raw);
    if (!file) {
      throw new UsageError(
        `unknown argument ${raw}: neither a subcommand (${SUBCOMMANDS.map((c) => c.name).join(', ')}, first) nor a route group (${conformanceFiles()
          .map((f) => f.slice(0, -SPEC.length))
          .join(', ')}). Nothing was run; see --help`,
      );
    }
    inv.playwrightArgs.push(file);
    inv.narrowing.push(`a test file filter (${raw})`);
    return;
  }
  if (NARROWING.has(flag)) inv.narrowing.push(flag);
  const kind = PLAYWRIGHT_VALUE_FLAGS[flag];
  if (!kind && !KNOWN_PLAYWRIGHT_SWITCHES.has(flag)) {
    const guess = didYouMean(flag, [...OWN_FLAGS, ...Object.keys(PLAYWRIGHT_VALUE_FLAGS), ...KNOWN_PLAYWRIGHT_SWITCHES], 3); // at most 2 edits away
    throw new UsageError(
      `unknown option ${flag}${guess ? ` (did you mean ${guess}?)` : ''}: neither an option of this suite nor one of playwright test's it passes on. Nothing was run; see --help`,
    );
  }
  inv.playwrightArgs.push(raw);
  if (raw.includes('=')) return;
  // A flag that takes a value, followed by a word: the word goes on right after it.
  if (kind !== undefined && args.length && !args[0].startsWith('-')) inv.playwrightArgs.push(args.shift()!);
  if (flag === '--reporter') inv.notes.push('note: --reporter replaces every reporter of the suite (no certificate); --add-reporter adds one instead');
}

/** Playwright test switches (no value) this wrapper knows. */
const KNOWN_PLAYWRIGHT_SWITCHES = new Set([
  '--fail-on-flaky-tests',
  '--forbid-only',
  '--fully-parallel',
  '--headed',
  '--ignore-snapshots',
  '--list',
  '-x',
  '--no-deps',
  '--pass-with-no-tests',
  '--quiet',
  '--ui',
]);

/** A value the reporter's options would refuse, refused here before anything runs. */
function checked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof OptionError) throw new UsageError(err.message);
    throw err;
  }
}

function checkPattern(flag: string, pattern: string): string {
  try {
    // eslint-disable-next-line no-new -- built only to learn whether the pattern compiles
    new RegExp(pattern);
  } catch (err) {
    throw new UsageError(`${flag}: not a regular expression: ${(err as Error).message}`);
  }
  return pattern;
}

/**
 * A path the user typed, from where they typed it: `npm run` starts scripts in the package's folder
 * and says where the user was in INIT_CWD.
 */
function userPath(p: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), p);
}

function checkTarget(selector: string): string {
  let file: string;
  try {
    file = resolveTargetFile(/[\\/]/.test(selector) || /\.ya?ml$/i.test(selector) ? userPath(selector) : selector);
  } catch (err) {
    if (err instanceof TargetError)
      throw new UsageError(`unknown target "${selector}": use one of ${listTargetNames().join(', ')}, or the path of a YAML file`);
    throw err;
  }
  if (!fs.existsSync(file)) {
    throw new UsageError(`unknown target "${selector}": use one of ${listTargetNames().join(', ')}, or the path of a YAML file`);
  }
  // A path is the user's, relative to where they are: the run itself starts in the suite's folder.
  return file === path.join(TARGETS_DIR, `${selector}.yaml`) ? selector : file;
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
