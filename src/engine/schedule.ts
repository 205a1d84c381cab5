// In which order and how many at a time a route group's checks run, whoever runs them (a Playwright
// test of define-suite.ts, or an in-process run of in-process.ts): the checks that only read run
// concurrently, at most `concurrency` at a time (they wait on the network, not on the cores), and
// beside them the checks that write form lanes, each one after another in catalogue order (they share
// state: the cars the user has, the devices' links, the pin attempts spent). The pin attempts on
// data.lockableDeviceId are a lane of their own: no other check touches that device (writes.ts, "pin
// attempts"), so on a distant server their round trips overlap the other writes' instead of adding
// to them. Once the lanes are done, `afterWrites` (the device the device checks leave associated is
// freed: setup/device-release.ts), beside the checks that judge the error answers the others received
// (`judges: errors-seen`: errors-seen.ts), which run last.
import type { PlannedCheck } from '../catalogue/catalogue';
import { inTurns } from '../util/in-turns';

/** Checks that write run one after another, in catalogue order: they share state. */
function writes(p: PlannedCheck): boolean {
  return (
    p.requirement.per === 'once' && [...p.requirement.routes, ...p.requirement.reads].some((r) => r.startsWith('POST /users') || r.startsWith('POST /devices'))
  );
}

/** The checks that write only to data.lockableDeviceId (writes.ts, "pin attempts"): their own lane. */
const LOCKABLE_DEVICE_CHECKS = new Set(['device-pin-wrong', 'device-pin-malformed', 'device-pin-lockout']);

/** The lane a writing check runs in. */
function lane(p: PlannedCheck): string {
  return LOCKABLE_DEVICE_CHECKS.has(p.requirement.check) ? 'lockable device' : 'writes';
}

/** Judges what the group's other checks received: runs once they are done. */
function late(p: PlannedCheck): boolean {
  return p.requirement.judgesErrorsSeen;
}

/**
 * Runs `check` over a group's selected checks: the reads concurrently, the writes in their lanes beside
 * them, then the late ones, and beside them `afterWrites` when some check wrote.
 */
export async function runScheduled(
  selected: PlannedCheck[],
  concurrency: number,
  check: (p: PlannedCheck) => Promise<void>,
  afterWrites?: (writing: PlannedCheck[]) => Promise<void>,
): Promise<void> {
  const writing = selected.filter((q) => writes(q) && !late(q));
  // Reads tolerate a write in flight (coherence checks leave out the cars the suite creates), and a
  // distant target's round trips overlap.
  await Promise.all([
    inTurns(
      selected.filter((p) => !writes(p) && !late(p)),
      concurrency,
      check,
    ),
    ...lanes(writing).map(async (inLane) => {
      for (const p of inLane) await check(p);
    }),
  ]);
  await Promise.all([inTurns(selected.filter(late), concurrency, check), writing.length > 0 && afterWrites ? afterWrites(writing) : undefined]);
}

/** The writing checks by lane, each in catalogue order. */
function lanes(writing: PlannedCheck[]): PlannedCheck[][] {
  const by = new Map<string, PlannedCheck[]>();
  for (const p of writing) by.set(lane(p), [...(by.get(lane(p)) ?? []), p]);
  return [...by.values()];
}
