// Runs a command of the project as a user would (a child process): its own reports folder, the
// self-tests' VDS_* settings left out, output captured, bounded time. Shared by the tests that run
// the real suite, the CLI wrapper, merge-reports and allure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killGroup } from '../../../src/util/process-group';
import { freshRunEnv } from '../../../scripts/reference-process';
import { CONFORMANCE_COMMAND, INSTALLED_COMMAND } from '../../../scripts/command-line';

/** The commands runCommand starts with node: node's arguments before the command's own. */
const NODE_ARGS: Record<string, string[]> = {
  conformance: CONFORMANCE_COMMAND,
  'vds-conformance': INSTALLED_COMMAND,
  tsx: ['--require', 'tsx/cjs'],
};

export const ROOT = path.resolve(__dirname, '../../..');

export interface Run {
  code: number | null;
  output: string;
  reportsDir: string;
  seconds: number;
  /** Stopped at timeoutMs (code is then null). */
  timedOut: boolean;
  /** The process id of the command (the process the test started). */
  pid?: number;
}

export interface RunOptions {
  /** VDS_TARGET: a target name or a target file. */
  target?: string;
  reportsDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /**
   * Sends this signal to the run's process group (as Ctrl-C does) `afterMs` after its output first
   * matches `when`, or after `when()` first says true (asked every 20 ms: a file the run writes, say).
   */
  interrupt?: { when: RegExp | (() => boolean); afterMs: number; signal: NodeJS.Signals };
}

export function newReportsDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
}

export function writeTargetFile(yaml: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'target.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

export function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/**
 * `command` is a binary of node_modules/.bin and its arguments, e.g. ['playwright', 'test'];
 * ['conformance', ...] is `npm run conformance --` and ['vds-conformance', ...] the installed command,
 * both compiled (scripts/command-line.ts); ['tsx', FILE] runs FILE with node and tsx's require hook.
 */
export function runCommand(command: string[], options: RunOptions = {}): Promise<Run> {
  const reportsDir = options.reportsDir ?? newReportsDir();
  const env: NodeJS.ProcessEnv = {
    ...freshRunEnv(process.env),
    VDS_REPORTS_DIR: reportsDir,
    ...(options.target ? { VDS_TARGET: options.target } : {}),
    ...options.env,
  };
  const started = Date.now();
  const [bin, ...args] = command;
  return new Promise((resolve) => {
    // Its own process group, so a run that overstays is stopped with everything it started.
    // Node itself, without the extra process npm's or tsx's own command line starts.
    const [file, argv] = bin in NODE_ARGS ? [process.execPath, [...NODE_ARGS[bin], ...args]] : [path.join(ROOT, 'node_modules', '.bin', bin), args];
    const child = spawn(file, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let interrupting = false;
    const interruptIf = (met: boolean) => {
      const i = options.interrupt;
      if (i && !interrupting && met) {
        interrupting = true;
        setTimeout(() => killGroup(child, i.signal), i.afterMs);
      }
    };
    const when = options.interrupt?.when;
    const watching = typeof when === 'function' ? setInterval(() => interruptIf(when()), 20) : undefined;
    const read = (d: Buffer) => {
      output += d;
      if (when instanceof RegExp) interruptIf(when.test(output));
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      output += `\n[self-test] ${command.join(' ')} did not finish within ${options.timeoutMs ?? 300_000} ms: stopped\n`;
      killGroup(child);
    }, options.timeoutMs ?? 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(watching);
      resolve({ code, output: output.replace(/^npm warn.*\n/gm, ''), reportsDir, seconds: (Date.now() - started) / 1000, timedOut, pid: child.pid });
    });
  });
}
