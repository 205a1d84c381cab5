// The cars the suite creates (car creation checks): their name or make marks them, so that discovery and
// the coherence checks leave them out (a server may keep them: none can be deleted).

/** Cars the suite creates carry this name, so coherence checks can leave them out while they appear. */
export const CREATED_CAR_PREFIX = 'VDS conformance';

/**
 * The make of the car the suite creates at the creation body's lower bounds (CAR-CREATE-BOUNDS: a
 * make of 3 characters, an empty name), which has no room for the prefix.
 */
export const CREATED_CAR_SHORT_MAKE = 'VDS';

/** A car the suite created, in this run or an earlier one (a server may keep them: none can be deleted). */
export function isSuiteCreatedCar(car: Record<string, unknown>): boolean {
  return car.make === CREATED_CAR_PREFIX || car.make === CREATED_CAR_SHORT_MAKE || String(car.name ?? '').startsWith(CREATED_CAR_PREFIX);
}

export function validCarBody(now: number): Record<string, unknown> {
  return { make: CREATED_CAR_PREFIX, model: 'Reference run', name: `${CREATED_CAR_PREFIX} ${new Date(now).toISOString().slice(0, 10)}` };
}
