// Whether this worker has been told to stop. Ctrl-C in a terminal and a CI job's timeout signal the
// whole process group: Playwright's runner then stops its workers (which ignore the signal), but
// Chromium and a server the run started may die under a check in flight. What such a check sees
// afterwards (a closed browser, no answer) says nothing about the server: the check is not run.
let signal: NodeJS.Signals | undefined;
let watching = false;
const listeners = new Set<(signal: NodeJS.Signals) => void>();

/**
 * Notes SIGINT and SIGTERM from now on. Only in a Playwright worker, which ignores both already (the
 * runner stops it): elsewhere a listener would take away the default of exiting on them.
 */
export function watchForInterruption(): void {
  if (watching || process.env.TEST_WORKER_INDEX === undefined) return;
  watching = true;
  for (const s of ['SIGINT', 'SIGTERM'] as const) {
    process.on(s, () => {
      if (signal) return;
      signal = s;
      for (const listener of listeners) listener(s);
    });
  }
}

/** Why this worker is being stopped while its checks may still run (Playwright's stop), once it is. */
let stopping: string | undefined;

/**
 * Notes that Playwright is stopping this worker: its fixtures are torn down (the browser closed) while
 * a route group's checks may still be in flight, when another worker reached --max-failures or the run
 * its time limit. What those checks see afterwards says nothing about the server.
 */
export function noteWorkerStopping(reason: string): void {
  stopping ??= reason;
}

/** Why this worker is being stopped, once it is (noteWorkerStopping). */
export function workerStopping(): string | undefined {
  return stopping;
}

/** The signal that interrupted the run, if one has. */
export function interruption(): NodeJS.Signals | undefined {
  return signal;
}

/** Calls `listener` when the run is interrupted (at once if it has been); returns the unsubscribe. */
export function onInterruption(listener: (signal: NodeJS.Signals) => void): () => void {
  watchForInterruption();
  if (signal) listener(signal);
  else listeners.add(listener);
  return () => listeners.delete(listener);
}
