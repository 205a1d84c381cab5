// In which order and how many at a time a route group's checks run, whoever runs them (a Playwright
// test of define-suite.ts, or an in-process run of in-process.ts): the checks that only read run
// concurrently, at most `concurrency` at a time (they wait on the network, not on the cores), and
// beside them the checks that write form lanes, each one after another in catalogue order (they share
// state: the cars the user has, the devices' links, the pin attempts spent). The pin attempts on
// data.lockableDeviceId (`lane: lockable-device` in the catalogue) are a lane of their own: no other
// check touches that device (pin-attempts.ts), so on a distant server their round trips
// overlap the other writes' instead of adding to them. A check that only creates cars (POST /users/{userId}/cars) and reads them back by their ids
// is a lane of its own: no other check reads or changes the cars it creates (a count of the user's cars
// is never compared: coherence leaves the suite's cars out), so the creations go side by side.
// A run with a second device pair (setup/device-pair.ts) runs the checks marked `lane: second`
// in a lane of their own, on that pair: two lanes of about half the round trips each. Once the lanes are
// done, `afterWrites` (the devices the device checks leave associated are freed:
// setup/device-release.ts), beside the checks that judge the error answers the others received
// (`judges: errors-seen`: errors-seen.ts), which run last.
import type { PlannedCheck } from '../catalogue/catalogue';
import { writesTo } from '../catalogue/needs';
import { inSecondLane } from '../setup/device-pair';
import type { RunContext } from '../setup/run-context';
import { inTurns } from '../util/in-turns';

/** Checks that write run one after another, in catalogue order: they share state. */
export function writes(p: PlannedCheck): boolean {
  return p.requirement.per === 'once' && [...p.requirement.routes, ...p.requirement.reads].some(writesTo);
}

/** A writing check whose only writes are the cars it creates, read back by their ids (no device route). */
function createsCarsOnly(p: PlannedCheck): boolean {
  return ![...p.requirement.routes, ...p.requirement.reads].some((r) => r.startsWith('POST /devices'));
}

/** The lane a writing check runs in. */
function lane(p: PlannedCheck, data: RunContext['data']): string {
  // The checks that write only to data.lockableDeviceId (pin-attempts.ts): `lane: lockable-device`.
  if (p.requirement.lane === 'lockable-device') return 'lockable device';
  if (createsCarsOnly(p)) return `its created cars: ${p.key}`;
  return inSecondLane(p.requirement, data) ? 'second device pair' : 'writes';
}

/** Judges what the group's other checks received: runs once they are done. */
function late(p: PlannedCheck): boolean {
  return p.requirement.judgesErrorsSeen;
}

/**
 * Runs `check` over a group's selected checks: the reads concurrently, the writes in their lanes beside
 * them, then the late ones, and beside them `afterWrites` when some check wrote. `data`: the run's ids
 * (whether it has a second device pair).
 */
export async function runScheduled(
  selected: PlannedCheck[],
  concurrency: number,
  check: (p: PlannedCheck) => Promise<void>,
  afterWrites?: (writing: PlannedCheck[]) => Promise<void>,
  data: RunContext['data'] = {},
): Promise<void> {
  const inLanes = writeLanes(selected, data);
  const writing = inLanes.flat();
  // Reads tolerate a write in flight (coherence checks leave out the cars the suite creates), and a
  // distant target's round trips overlap.
  await Promise.all([
    inTurns(
      selected.filter((p) => !writes(p) && !late(p)),
      concurrency,
      check,
    ),
    ...inLanes.map(async (inLane) => {
      for (const p of inLane) await check(p);
    }),
  ]);
  await Promise.all([inTurns(selected.filter(late), concurrency, check), writing.length > 0 && afterWrites ? afterWrites(writing) : undefined]);
}

/** The selected checks that write (but the late ones), by lane, each lane in catalogue order. */
export function writeLanes(selected: PlannedCheck[], data: RunContext['data'] = {}): PlannedCheck[][] {
  const by = new Map<string, PlannedCheck[]>();
  for (const p of selected.filter((q) => writes(q) && !late(q))) by.set(lane(p, data), [...(by.get(lane(p, data)) ?? []), p]);
  return [...by.values()];
}
