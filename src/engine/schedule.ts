// In which order and how many at a time a route group's checks run, whoever runs them (a Playwright
// test of define-suite.ts, or an in-process run of in-process.ts): the checks that only read run
// concurrently, at most `concurrency` at a time (they wait on the network, not on the cores), and
// beside them the checks that write form one lane, one after another in catalogue order (they share
// state: the cars the user has, the devices' links, the pin attempts spent). Last, the checks that
// judge the error answers the others received (`judges: errors-seen`: errors-seen.ts).
import type { PlannedCheck } from '../catalogue/catalogue';

/** Checks that write run one after another, in catalogue order: they share state. */
function writes(p: PlannedCheck): boolean {
  return (
    p.requirement.per === 'once' && [...p.requirement.routes, ...p.requirement.reads].some((r) => r.startsWith('POST /users') || r.startsWith('POST /devices'))
  );
}

/** Judges what the group's other checks received: runs once they are done. */
function late(p: PlannedCheck): boolean {
  return p.requirement.judgesErrorsSeen;
}

/** Runs `check` over a group's selected checks: the reads concurrently, the writes as one lane beside them, then the late ones. */
export async function runScheduled(selected: PlannedCheck[], concurrency: number, check: (p: PlannedCheck) => Promise<void>): Promise<void> {
  // Reads tolerate a write in flight (coherence checks leave out the cars the suite creates), and a
  // distant target's round trips overlap.
  await Promise.all([
    inParallel(
      selected.filter((p) => !writes(p) && !late(p)),
      concurrency,
      check,
    ),
    (async () => {
      for (const p of selected.filter((q) => writes(q) && !late(q))) await check(p);
    })(),
  ]);
  await inParallel(selected.filter(late), concurrency, check);
}

/** Runs `work` over the items, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}
