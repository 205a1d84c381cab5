// A machine kept busy beside a run, as a shared CI runner is: processes that only spin, one per core
// asked for, started and stopped by the test that needs them. Each is a shell loop in a process group
// of its own, under `timeout`: stopped by the test whatever happens to it, and gone on its own should
// the test's process die before it stops them.
import { spawn } from 'node:child_process';
import { killGroup } from '../../../src/util/process-group';

/** Longest a loop may outlive a test that could not stop it. */
const MAX_SECONDS = 600;

export interface BusyMachine {
  /** The loops still running. */
  running(): number;
  stop(): void;
}

export function keepBusy(loops: number): BusyMachine {
  const children = Array.from({ length: loops }, () =>
    spawn('timeout', [String(MAX_SECONDS), 'sh', '-c', 'while :; do :; done'], { detached: true, stdio: 'ignore' }),
  );
  return {
    running: () => children.filter((c) => c.exitCode === null && c.signalCode === null).length,
    stop: () => {
      for (const child of children) killGroup(child);
    },
  };
}
