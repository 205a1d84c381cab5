// Child processes that start others (npm, tsx, a server, a browser) are started in a process group
// of their own, so that stopping one stops everything it started, and a run never leaves a server
// behind. One place for the signals and the grace period.
import type { ChildProcess } from 'node:child_process';

/** Kills the child's whole group at once (e.g. a run that overstayed its time). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Asks the child's group to stop (SIGTERM), then kills it after `graceMs`; resolves once it exited. */
export async function stopGroup(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
