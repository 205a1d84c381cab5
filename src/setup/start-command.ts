// The target's startCommand (a local implementation, e.g. the embedded reference): started as early as
// possible, waited for until its API answers, and stopped when the run ends.
//   - The command (`npm run conformance`, src/cli/run.ts) starts it before Playwright's runner, so that
//     it boots while the runner loads (a one-check run waited 0.6 to 0.8 s for it; on two cores, where
//     the two boots compete, the run gains about 0.25 s); the runner is told through a status file
//     (VDS_TARGET_SERVER) where it waits, and learns of a failure from it.
//   - A plain `npx playwright test` starts it when the config loads in the runner's process.
//   Global setup waits for it either way, and reports a failure.
// Playwright's webServer would do the same, but it polls with growing pauses (a server ready after
// 0.3 s is seen after about 0.9 s); here the API is asked every 25 ms.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { runOptions } from '../options/options';
import { killGroup, stopGroup } from '../util/process-group';
import { writeJsonWhole } from '../util/write-whole';
import type { Target } from './target';

const POLL_MS = 25;

class StartCommandError extends Error {}

export interface Started {
  stop(): Promise<void>;
}

let early: { key: string; started: Promise<Started> } | undefined;

/**
 * Starts the target's server ahead of global setup (called when the config loads in Playwright's
 * runner process), so that it boots while Playwright loads the tests; global setup then waits for
 * it. Errors are reported by global setup.
 */
export function startTargetServerEarly(target: Target, cwd: string): void {
  if (!target.startCommand || early) return;
  const status = runOptions().targetServer;
  const startedByCommand = status ? readStatus(status) : undefined;
  const started = startedByCommand?.baseUrl === target.baseUrl ? waitForStartedElsewhere(target, status!) : startTargetServer(target, cwd);
  started.catch(() => undefined); // awaited (and reported) by global setup
  early = { key: `${target.startCommand}\u0000${target.baseUrl}`, started };
}

/** What the command wrote about the server it started: for which baseUrl, and why it failed if it did. */
interface ServerStatus {
  baseUrl: string;
  /** The command ran the startCommand (after making sure no other server answers at baseUrl). */
  spawned?: boolean;
  error?: string;
}

function readStatus(file: string): ServerStatus | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ServerStatus;
  } catch {
    return undefined;
  }
}

/**
 * Starts the target's server for a run the command is about to begin (before Playwright's runner
 * loads), writing its status to `statusFile` for the runner (VDS_TARGET_SERVER). The command stops it
 * once Playwright has exited.
 */
export function startTargetServerForRun(target: Target, cwd: string, env: NodeJS.ProcessEnv, statusFile: string): Started {
  const write = (status: ServerStatus) => writeJsonWhole(statusFile, status);
  write({ baseUrl: target.baseUrl });
  let child: ChildProcess | undefined;
  let stopped = false;
  const started = startTargetServer(target, cwd, env, (spawned) => {
    child = spawned;
    if (stopped) {
      killGroup(spawned, 'SIGTERM'); // the run ended before it even started
    } else {
      write({ baseUrl: target.baseUrl, spawned: true });
    }
  });
  started.catch((err: Error) => {
    try {
      write({ baseUrl: target.baseUrl, error: err.message });
    } catch {
      // The run is over (its folder removed): nobody waits for this server any more.
    }
  });
  // Stopped at once, ready or not: a run that ended early (a refused option, no check selected) never
  // waits for its server to answer, nor for startTimeoutMs.
  return {
    stop: async () => {
      stopped = true;
      if (child) await stopGroup(child);
      await started.catch(() => undefined);
    },
  };
}

/** The runner's side of a server the command started: answering, or the command's reason it is not. */
async function waitForStartedElsewhere(target: Target, statusFile: string): Promise<Started> {
  const probe = `${target.baseUrl}/users/me`;
  // The command's own deadline (startTimeoutMs) writes its reason first; this one only guards against a command gone.
  const deadline = Date.now() + target.startTimeoutMs + 10_000;
  for (;;) {
    const status = readStatus(statusFile);
    if (status?.error) throw new StartCommandError(status.error);
    // Only once the command ran it: before, an answer would be another server's (which the command refuses).
    if (status?.spawned && (await answers(probe))) return { stop: async () => undefined }; // the command stops it
    if (Date.now() > deadline) {
      throw new StartCommandError(`startCommand of ${target.source}: ${target.baseUrl} did not answer within ${target.startTimeoutMs} ms (startTimeoutMs)`);
    }
    await pause(POLL_MS);
  }
}

/** The server startTargetServerEarly started for this target, or a new one. */
export function targetServer(target: Target, cwd: string): Promise<Started> {
  if (early && early.key === `${target.startCommand}\u0000${target.baseUrl}`) return early.started;
  return startTargetServer(target, cwd);
}

async function startTargetServer(target: Target, cwd: string, env: NodeJS.ProcessEnv = process.env, onSpawn?: (child: ChildProcess) => void): Promise<Started> {
  const command = target.startCommand!;
  if (await answers(`${target.baseUrl}/users/me`)) {
    throw new StartCommandError(
      `${target.baseUrl} already answers before startCommand of ${target.source} ran: ` +
        'another server holds that address. Stop it, or point baseUrl (and startCommand) at a free port.',
    );
  }
  // Its own process group, so that stopping it stops whatever it started (npm, tsx, the server).
  const child = spawn(command, { cwd, shell: true, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env });
  onSpawn?.(child);
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr = (stderr + d).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Never left behind: should the run end before global teardown (no test, --list, a crash), the
  // server goes with the process that started it.
  const orphanGuard = () => killGroup(child, 'SIGTERM');
  process.once('exit', orphanGuard);
  void exited.then(() => process.removeListener('exit', orphanGuard));
  const deadline = Date.now() + target.startTimeoutMs;
  const probe = `${target.baseUrl}/users/me`;
  for (;;) {
    if (await answers(probe)) return { stop: () => stopGroup(child) };
    const code = await Promise.race([exited, pause(POLL_MS).then(() => undefined)]);
    if (code !== undefined) {
      throw new StartCommandError(
        `startCommand of ${target.source} exited (code ${code}) before ${target.baseUrl} answered: ` +
          `"${command}"${stderr.trim() ? `\n  its last output: ${lastLines(stderr)}` : ''}`,
      );
    }
    if (Date.now() > deadline) {
      await stopGroup(child);
      throw new StartCommandError(
        `startCommand of ${target.source} ("${command}") started, but ${target.baseUrl} did not answer within ` +
          `${target.startTimeoutMs} ms (startTimeoutMs)${stderr.trim() ? `\n  its last output: ${lastLines(stderr)}` : ''}`,
      );
    }
  }
}

/** Any HTTP answer means the server is up (the probe has no token: a 401 is an answer). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join('\n  ');
}
