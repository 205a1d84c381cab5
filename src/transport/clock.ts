// The clock a check reads (CheckContext.now()): dates a check computes (a range ending now, the 1st
// of the month, a car's name, a sign-in state) come from it, never from Date.now() directly, so that
// a replay of a certification archive (src/setup/replay.ts) reads the very instants the recorded run read.
export interface Clock {
  now(): number;
  /** Every reading, in order, when the run records them (a certification): its archive replays them. */
  readonly readings?: number[];
}

/** The system clock; `record`: every reading is kept (a certification run). */
export function systemClock(record = false): Clock {
  if (!record) return { now: () => Date.now() };
  const readings: number[] = [];
  return {
    readings,
    now() {
      const t = Date.now();
      readings.push(t);
      return t;
    },
  };
}

/**
 * The recorded readings, in order. A check that reads the clock more often than it did when recorded
 * has already gone another way (its requests then find no recorded answer): it gets the last reading.
 */
export function replayedClock(readings: number[], fallback = Date.now()): Clock {
  let next = 0;
  return { now: () => (next < readings.length ? readings[next++] : (readings[readings.length - 1] ?? fallback)) };
}
