// The target's startCommand (a local implementation, e.g. the embedded reference): started by global
// setup before anything else, waited for until its API answers, and stopped when the run ends.
// Playwright's webServer would do the same, but it polls with growing pauses (a server ready after
// 0.3 s is seen after about 0.9 s); here the API is asked every 25 ms.
import { spawn } from 'node:child_process';
import { killGroup, stopGroup } from '../util/process-group';
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
  const started = startTargetServer(target, cwd);
  started.catch(() => undefined); // awaited (and reported) by global setup
  early = { key: `${target.startCommand}\u0000${target.baseUrl}`, started };
}

/** The server startTargetServerEarly started for this target, or a new one. */
export function targetServer(target: Target, cwd: string): Promise<Started> {
  if (early && early.key === `${target.startCommand}\u0000${target.baseUrl}`) return early.started;
  return startTargetServer(target, cwd);
}

async function startTargetServer(target: Target, cwd: string): Promise<Started> {
  const command = target.startCommand!;
  if (await answers(`${target.baseUrl}/users/me`)) {
    throw new StartCommandError(
      `${target.baseUrl} already answers before startCommand of ${target.source} ran: ` +
        'another server holds that address. Stop it, or point baseUrl (and startCommand) at a free port.',
    );
  }
  // Its own process group, so that stopping it stops whatever it started (npm, tsx, the server).
  const child = spawn(command, { cwd, shell: true, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: process.env });
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
