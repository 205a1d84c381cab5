// The device checks' second write lane. The checks that associate a device with a car and read it back
// share that device (data.deviceForCarId) and that car (data.deviceCarId): they run one after another,
// and on a distant server their round trips are the run's critical path. A target that gives a second
// device for association by car (data.secondDeviceForCarId) and has a second car without a device
// (data.secondDeviceCarId, else discovered) splits them in two: the requirements marked `lane: second`
// (contracts/requirements.yaml) run in a lane of their own beside the first (engine/schedule.ts), on the
// second pair. Their procedures ask for deviceForCarId and deviceCarId as always and get the second
// pair's ids (check-api CheckContext.data), naming in their messages the keys they used (dataName).
// Every check of data.freeDeviceId is in the second lane: that device is shared too. Without a second
// pair, every device check runs in the one lane, as written in the catalogue.
import type { Requirement } from '../catalogue/catalogue';
import type { DataKey } from './target';

type RunData = Partial<Record<DataKey, string>>;

/** The second pair's key for each key of the first. */
const SECOND_PAIR: Partial<Record<DataKey, DataKey>> = { deviceForCarId: 'secondDeviceForCarId', deviceCarId: 'secondDeviceCarId' };

/**
 * Why the run's second pair cannot make a lane of its own: its device is one another key names (the
 * first pair's, the pin device, the lockable one), or its car is the first pair's or the data car (two
 * lanes on one device or car would meet). Undefined when there is no second pair or it can be used.
 */
export function secondPairProblem(data: RunData): string | undefined {
  const { secondDeviceForCarId: device, secondDeviceCarId: car } = data;
  if (!device || !car) return undefined;
  const sameDevice = (['deviceForCarId', 'freeDeviceId', 'lockableDeviceId'] as const).find((k) => data[k] === device);
  if (sameDevice) return `data.secondDeviceForCarId is data.${sameDevice} (${device}): the device checks run in one write lane`;
  const sameCar = (['deviceCarId', 'carId'] as const).find((k) => data[k] === car);
  if (sameCar) return `data.secondDeviceCarId is data.${sameCar} (${car}): the device checks run in one write lane`;
  return undefined;
}

/** The run has a second device for association by car and a second car without a device, each its own. */
function hasSecondPair(data: RunData): boolean {
  return Boolean(data.secondDeviceForCarId && data.secondDeviceCarId) && secondPairProblem(data) === undefined;
}

/** The requirement's checks run in the devices' second write lane in this run. */
export function inSecondLane(requirement: Pick<Requirement, 'lane'>, data: RunData): boolean {
  return requirement.lane === 'second' && hasSecondPair(data);
}

/** The key a check of `requirement` reads for `key`: the second pair's in the second lane. */
export function dataKeyFor(requirement: Pick<Requirement, 'lane'>, data: RunData, key: DataKey): DataKey {
  return inSecondLane(requirement, data) ? (SECOND_PAIR[key] ?? key) : key;
}

/** The cars the device checks associate devices with in this run (what they change there is theirs). */
export function deviceCars(data: RunData): string[] {
  return [data.deviceCarId, hasSecondPair(data) ? data.secondDeviceCarId : undefined].filter((id): id is string => !!id);
}

/** The devices the device checks associate with a car in this run (freed once they are done: device-release.ts). */
export function carDevices(data: RunData): string[] {
  return [data.deviceForCarId, hasSecondPair(data) ? data.secondDeviceForCarId : undefined].filter((id): id is string => !!id);
}
