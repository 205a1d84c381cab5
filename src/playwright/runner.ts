// What Playwright's runner does before it starts the conformance tests (playwright.config.ts calls it
// once, in the runner; a worker loading the config reads, never acts):
//   - a free port for the embedded reference, which the local targets' files name (inherited by workers);
//   - a target file that cannot be read, options or a selection that cannot be used: a message, exit 2;
//   - SIGTERM (a CI job's timeout or cancel) stops the run as Ctrl-C does, so the certificate is written;
//   - the target's server (startCommand) starts booting at once: global setup waits for it;
//   - Playwright's --grep and --max-failures act on tests (a route group): they are handed to the
//     checks as VDS_GREP, VDS_GREP_INVERT and VDS_MAX_FAILURES (src/options/options.ts).
import { execFileSync } from 'node:child_process';
import { selectedChecks, selectionEnvFromArgv, SelectionError } from '../catalogue/selection';
import { markTargetChecked, runOptions } from '../options/options';
import { loadTargetFromEnv } from '../setup/run-target';
import { startTargetServerEarly } from '../setup/start-command';
import { resolveTargetFile, TargetError, type Target } from '../setup/target';
import { optionProblems } from './report-options';
import { stage } from '../transport/timeline';

/** The runner loads the config first; each worker loads it again (TEST_WORKER_INDEX set). */
export function inRunner(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TEST_WORKER_INDEX === undefined;
}

/** The run's target, or (a file that cannot be read) its message and exit 2. */
export function runTarget(): Target {
  try {
    return loadTargetFromEnv();
  } catch (err) {
    if (!(err instanceof TargetError)) throw err;
    exitWith(err.message);
  }
}

/** Everything the runner does before Playwright loads the tests (see the header). */
export function prepareRunner(configDir: string): Target {
  ensureReferencePort();
  // The runner always checks the target file (whatever it inherited); its workers, which inherit the
  // variable, read the same file without compiling its schema again.
  markTargetChecked(undefined);
  const target = runTarget();
  if (!runOptions().replay) markTargetChecked(resolveTargetFile(runOptions().target));
  const problems = optionProblems();
  if (problems.length) exitWith(problems.join('\n'));
  process.once('SIGTERM', () => process.emit('SIGINT'));
  if (!process.argv.includes('--list')) startTargetServerEarly(target, configDir);
  selectChecksFromArgv(process.argv);
  stage('runner configured');
  return target;
}

/**
 * A free local port for the embedded reference, chosen once: workers inherit it through the env.
 * `npm run conformance` chooses it before the runner starts (src/util/free-port.ts); a plain
 * `npx playwright test` asks a short-lived process, as a config is loaded synchronously.
 */
function ensureReferencePort(): void {
  if (runOptions().referencePort) return;
  process.env.VDS_REFERENCE_PORT = execFileSync(process.execPath, [
    '-e',
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ]).toString();
}

/** Playwright's --grep, --grep-invert and --max-failures (-x), handed to the checks; a selection of no check stops the run. */
function selectChecksFromArgv(argv: string[]): void {
  for (const [k, v] of Object.entries(selectionEnvFromArgv(argv))) process.env[k] ??= v;
  const i = argv.findIndex((a) => a === '--max-failures' || a.startsWith('--max-failures=') || a === '-x');
  if (i >= 0 && !runOptions().maxFailures) {
    process.env.VDS_MAX_FAILURES = argv[i] === '-x' ? '1' : argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  }
  try {
    if (selectedChecks().length === 0) {
      const { grep, grepInvert } = runOptions();
      exitWith(
        `The selection (--grep ${grep ?? ''}${grepInvert ? ` --grep-invert ${grepInvert}` : ''}) matches no check. ` +
          'A check is matched by its title and tags, e.g. "CORE-ERROR-BODY GET /users/me @CORE-ERROR-BODY @core @users @critical".',
      );
    }
  } catch (err) {
    if (!(err instanceof SelectionError)) throw err;
    exitWith(err.message);
  }
}

/** The runner stops before anything ran: the message alone, exit status 2 (a usage error). */
function exitWith(message: string): never {
  console.error(`\n${message}\n`);
  process.exit(2);
}
