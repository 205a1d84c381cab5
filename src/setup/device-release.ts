// The devices the device checks associate with a car (data.deviceForCarId, and data.secondDeviceForCarId
// in a run with a second pair: device-pair.ts), freed once they are done.
// Each device check frees it before arranging what it needs (whatever an earlier check or an
// interrupted run left), so none cleans up after itself: a check's trailing dissociation would only
// repeat the next one's leading one, a round trip more per check on the run's critical path (the device
// checks' write lane runs one request after another). The run frees it once, after the lanes, so that
// the target is left as the run found it and the next run (or discovery's car without a device) finds it free.
import { fillRoute, type Catalogue, type PlannedCheck } from '../catalogue/catalogue';
import type { ApiClient } from '../transport/api';
import { carDevices } from './device-pair';
import type { RunContext } from './run-context';
import type { Target } from './target';

/** The route whose association the device checks leave behind them. */
const ASSOCIATE_CAR = 'POST /devices/{deviceId}/associate?carId={carId}';

/**
 * After a route group's writing checks: when one of them associates a device with a car, dissociates
 * the devices they associate (together) with the run's full token, through `api` (the engine's client
 * for the group); the answers are not judged (204, or 409 when already free).
 */
export async function releaseDevice(target: Target, run: RunContext, catalogue: Catalogue, writing: PlannedCheck[], api: ApiClient): Promise<void> {
  if (!writing.some((p) => [...p.requirement.routes, ...p.requirement.reads].includes(ASSOCIATE_CAR))) return;
  const devices = carDevices(run.data);
  const token = run.tokens.full;
  if (!target.allowWrites || !devices.length || !token) return;
  const dissociate = catalogue.route('POST /devices/{deviceId}/dissociate');
  await Promise.all(
    devices.map((device) => {
      const { path } = fillRoute(dissociate, (name) => (name === 'deviceId' ? device : undefined))!;
      return api.post(path, { authorization: `Bearer ${token}`, route: dissociate.route }).catch(() => undefined);
    }),
  );
}
