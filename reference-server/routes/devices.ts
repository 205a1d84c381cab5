// Device routes (profile, "Devices"): associate a device with a car (carId) or with the token's user
// (pin), and dissociate it. Order after auth and scope: device id (400 malformed, 404 unknown) ->
// query parameters (400) -> car existence (404) -> access (403) -> pin lock (403) -> conflicts (409) -> pin
// check (400) (variant pin-lock-before-format: the lock before the pin's format).
// 404 and 409 use the type PARAMETERS_ERROR (decision table). A device on a car belongs to that car's
// owner; one without a car to the user it is linked to (by pin), or to nobody (free).
//
// Each write is atomic: its checks and the state change it guards run in one synchronous step, so
// concurrent requests see each other's writes (one association of a free device wins, so does one
// dissociation, every failed pin counts). The audit entry is never waited for there.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accessDenied, Owned } from '../auth/guard';
import type { AccessToken } from '../auth/tokens';
import type { AppContext } from '../context';
import type { Car, Device } from '../data/types';
import { ApiError, internalError, notFound, parametersError } from '../http/errors';
import { asQuery, parseIntegerId, single } from '../http/params';
import { register } from './register';

type DeviceRequest = FastifyRequest<{ Params: { deviceId: string } }>;

const DEVICE_ID = /^[A-Za-z0-9_-]{1,32}$/;
const PIN = /^\d{4,6}$/;
/** Failed pin attempts after which a device refuses pin association. */
const MAX_PIN_FAILURES = 3;

type Association = { kind: 'car'; carId: number } | { kind: 'pin'; pin: string };

export function devicesRoutes(ctx: AppContext) {
  const { store, faults, variants } = ctx;

  function loadDevice(raw: string, onDissociate: boolean): Owned<Device> {
    if (!DEVICE_ID.test(raw)) {
      // fault malformed-device-id-500: the raw id reaches the device lookup, which throws.
      if (faults.has('malformed-device-id-500')) throw internalError(`Invalid serial number '${raw.slice(0, 40)}'`);
      throw parametersError(400, 'Malformed device id', 'Use the serial number of the device, e.g. VDSREF0101');
    }
    // fault device-id-case-insensitive: the serial looked up whatever its case (a case-insensitive collation).
    const device = store.device(raw) ?? (faults.has('device-id-case-insensitive') ? store.deviceIgnoringCase(raw) : undefined);
    if (!device) {
      // fault dissociate-unknown-device-409: dissociation takes "no such device" for "no association".
      if (onDissociate && faults.has('dissociate-unknown-device-409')) throw conflict('Device is not associated', false);
      // fault unknown-device-400: an unknown device reported as a bad parameter.
      if (faults.has('unknown-device-400')) throw parametersError(400, 'Device not found', 'Check the serial number of the device');
      // fault device-404-type-not-found: the profile's NOT_FOUND type.
      throw new ApiError(
        404,
        faults.has('device-404-type-not-found') ? 'NOT_FOUND' : 'PARAMETERS_ERROR',
        'Device not found',
        'Check the serial number of the device',
      );
    }
    return { kind: 'device', ownerId: ownerOf(device), value: device };
  }

  /** The user a device belongs to: its car's owner when it is on a car, else the user it is linked to (null: free). */
  function ownerOf(device: Device): number | null {
    const car = device.carId === null ? undefined : store.car(device.carId);
    return car ? car.userId : device.userId;
  }

  function conflict(message: string, onAssociate: boolean): ApiError {
    // fault device-already-associated-400: association conflicts reported as bad parameters.
    const status = onAssociate && faults.has('device-already-associated-400') ? 400 : 409;
    return parametersError(status, message, onAssociate ? 'Dissociate the device first' : 'Associate the device before dissociating it');
  }

  /**
   * Whose failed pin attempts count together: the device's, whoever made them (fault pin-failures-per-user:
   * each user's apart, so a second account guesses on).
   */
  function failureKey(deviceId: string, userId: number | undefined): string {
    return userId !== undefined && faults.has('pin-failures-per-user') ? `${deviceId}|${userId}` : deviceId;
  }

  /** Whether the device refuses pin association (to this user): it failed MAX_PIN_FAILURES attempts already. */
  function pinLocked(deviceId: string, userId?: number): boolean {
    // fault pin-lockout-never: the failure counter is kept but never read.
    return store.pinFailureCount(failureKey(deviceId, userId)) >= MAX_PIN_FAILURES && !faults.has('pin-lockout-never');
  }

  function tooManyAttempts(): ApiError {
    return new ApiError(403, 'AUTHORIZATION_ERROR', 'Too many failed pin attempts', 'This device is locked for pin association; contact support');
  }

  function parseAssociation(request: DeviceRequest): Association {
    const q = asQuery(request.query);
    const carId = single(q, 'carId');
    const pin = single(q, 'pin');
    if (carId !== undefined && pin !== undefined) throw parametersError(400, 'Give either carId or pin, not both', 'Use ?carId=<car id> or ?pin=<pin>');
    if (carId !== undefined) {
      const id = parseIntegerId(carId);
      if (id === null) {
        // fault malformed-carid-404: a carId that is not an id is looked up like any other and not found.
        if (faults.has('malformed-carid-404')) throw notFound('Car', faults);
        throw parametersError(400, 'Malformed carId', 'Give carId as the integer id of one of your cars');
      }
      return { kind: 'car', carId: id };
    }
    if (pin !== undefined) {
      // variant pin-lock-before-format: a locked device refuses every pin association before the pin is read
      // (the documents do not place the lock in the order of checks).
      if (variants.has('pin-lock-before-format') && pinLocked(request.params.deviceId)) throw tooManyAttempts();
      // fault pin-compared-as-number: the pin read as a number (any digits), compared numerically.
      if (!(faults.has('pin-compared-as-number') ? /^\d{1,12}$/ : PIN).test(pin)) {
        // fault malformed-pin-500: the pin is parsed as a number before it is validated.
        if (faults.has('malformed-pin-500')) throw internalError(`Cannot convert '${pin.slice(0, 40)}' to a pin`);
        // variant malformed-pin-counts: any refused pin is a failed attempt, malformed ones included.
        if (variants.has('malformed-pin-counts')) store.recordPinFailure(request.params.deviceId);
        throw parametersError(400, 'Malformed pin', 'Give the 4 to 6 digit pin of the device');
      }
      return { kind: 'pin', pin };
    }
    throw parametersError(400, 'Missing parameter', 'Give carId or pin');
  }

  async function associateCar(device: Device, carId: number, token: AccessToken, reply: FastifyReply): Promise<FastifyReply> {
    const car: Car | undefined = store.car(carId);
    if (!car) {
      // variant associate-unknown-car-400: an unknown carId is a bad parameter (the profile lists it under 400 and 404).
      if (variants.has('associate-unknown-car-400')) throw parametersError(400, 'Car not found', 'Give carId as the id of one of your cars');
      throw notFound('Car', faults);
    }
    // fault associate-car-owner-unchecked: only the device's owner is compared with the token's user.
    if (car.userId !== token.userId && !faults.has('associate-car-owner-unchecked')) throw accessDenied('car');
    // fault associate-device-owner-user-link: the device's owner is read from its user link alone; a device its
    // installer linked to another user's car has none, and only the conflict check below refuses it (409).
    const deviceOwner = faults.has('associate-device-owner-user-link') ? device.userId : ownerOf(device);
    // fault associate-device-owner-unchecked: the device's owner is never compared with the token's user (only the car's).
    if (deviceOwner !== null && deviceOwner !== token.userId && !faults.has('associate-device-owner-unchecked')) throw accessDenied('user');
    // fault associate-conflict-same-car-only: "already associated?" compares the device's car with the one named.
    if (device.carId !== null && (device.carId === car.id || !faults.has('associate-conflict-same-car-only')))
      throw conflict('Device already associated', true);
    if (car.deviceId !== null) throw conflict('Car already associated with a device', true);
    const entry = { at: ctx.now(), userId: token.userId, action: 'associate-car', deviceId: device.id, carId: car.id } as const;
    // fault associate-check-then-act: the audit entry is waited for between the checks above and the write
    // below, so two concurrent associations of one free device both pass the checks, and both succeed.
    if (faults.has('associate-check-then-act')) await store.audit(entry);
    else void store.audit(entry);
    // Only with fault associate-conflict-same-car-only can the device be on another car here: it moves from it.
    const previous = device.carId === null || device.carId === car.id ? undefined : store.car(device.carId);
    if (previous) previous.deviceId = null;
    device.carId = car.id;
    device.userId = car.userId;
    // fault associate-leaves-deviceId-null: the car side of the link is not written.
    if (!faults.has('associate-leaves-deviceId-null')) car.deviceId = device.id;
    car.lastUpdateDate = ctx.now();
    // fault device-associate-200: answers the device instead of 204 No Content.
    if (faults.has('device-associate-200')) return reply.code(200).send({ deviceId: device.id, carId: car.id });
    return reply.code(204).send();
  }

  async function associatePin(device: Device, pin: string, token: AccessToken, reply: FastifyReply): Promise<FastifyReply> {
    // fault pin-lockout-right-pin-accepted: the lock is checked only once the pin turned out wrong.
    if (pinLocked(device.id, token.userId) && !(faults.has('pin-lockout-right-pin-accepted') && pin === device.pin)) throw tooManyAttempts();
    // fault pin-associate-ignores-car-link: only an earlier pin link (a user link without a car) counts as associated.
    // fault pin-link-per-user: only a link of the token's own user counts (a device linked to another user is taken over).
    const associated = faults.has('pin-associate-ignores-car-link')
      ? device.userId !== null && device.carId === null
      : faults.has('pin-link-per-user')
        ? device.userId === token.userId || device.carId !== null
        : device.userId !== null || device.carId !== null;
    if (associated) throw conflict('Device already associated', true);
    // fault pin-not-checked: only the pin's format is validated.
    const wrong = faults.has('pin-compared-as-number') ? Number(pin) !== Number(device.pin) : pin !== device.pin;
    if (wrong && !faults.has('pin-not-checked')) {
      const entry = { at: ctx.now(), userId: token.userId, action: 'pin-failure', deviceId: device.id } as const;
      const key = failureKey(device.id, token.userId);
      if (faults.has('pin-failures-lost-update')) {
        // fault pin-failures-lost-update: the count is read, the audit entry waited for, then the count read
        // plus one written back: wrong pins sent together overwrite each other's count (lost updates).
        const failures = store.pinFailureCount(key);
        await store.audit(entry);
        store.setPinFailureCount(key, failures + 1);
      } else {
        store.recordPinFailure(key);
        void store.audit(entry);
      }
      throw parametersError(400, 'Wrong pin', `Check the pin of the device; ${MAX_PIN_FAILURES} failed attempts lock it`);
    }
    // fault pin-association-500: saving the user link fails (the right pin ends in a 500, nothing is linked).
    if (faults.has('pin-association-500')) throw internalError(`Cannot save the link of device ${device.id} to user ${token.userId}`);
    device.userId = token.userId;
    void store.audit({ at: ctx.now(), userId: token.userId, action: 'associate-pin', deviceId: device.id });
    // fault pin-associate-200: answers the device instead of 204 No Content.
    if (faults.has('pin-associate-200')) return reply.code(200).send({ deviceId: device.id, userId: token.userId });
    return reply.code(204).send();
  }

  return async function plugin(app: FastifyInstance): Promise<void> {
    register(app, ctx, 'POST /devices/:deviceId/associate', (request: DeviceRequest, reply: FastifyReply) => ({
      load: () => loadDevice(request.params.deviceId, false),
      query: () => parseAssociation(request),
      respond: (device, association, token) =>
        association.kind === 'car' ? associateCar(device, association.carId, token!, reply) : associatePin(device, association.pin, token!, reply),
    }));

    register(app, ctx, 'POST /devices/:deviceId/dissociate', (request: DeviceRequest, reply: FastifyReply) => ({
      load: () => loadDevice(request.params.deviceId, true),
      respond: async (device, _q, token) => {
        const car = device.carId === null ? undefined : store.car(device.carId);
        if (car) {
          // fault device-owner-not-checked: the car's owner is never compared with the token's user.
          // fault dissociate-owner-user-link: the owner is read from the device's user link, not from its car: a
          // device its installer linked to a car has none, and anyone may dissociate it.
          const owner = faults.has('dissociate-owner-user-link') ? device.userId : car.userId;
          if (owner !== null && owner !== token!.userId && !faults.has('device-owner-not-checked')) throw accessDenied('car');
        } else if (device.userId !== null) {
          // fault dissociate-user-link-unchecked: only a device on a car has its owner checked.
          if (device.userId !== token!.userId && !faults.has('dissociate-user-link-unchecked')) throw accessDenied('user');
          // variant dissociate-cars-only: the spec's route "dissociates the device from its car"; a device linked
          // only to a user has no car to be dissociated from. So for variant dissociate-keeps-user-link, where the
          // user link is the device's for good.
          if (variants.has('dissociate-cars-only') || variants.has('dissociate-keeps-user-link')) throw conflict('Device is not associated with a car', false);
        } else if (!faults.has('dissociate-unassociated-204')) {
          // fault dissociate-unassociated-204: dissociation treated as idempotent.
          throw conflict('Device is not associated', false);
        }
        const entry = { at: ctx.now(), userId: token!.userId, action: 'dissociate', deviceId: device.id, ...(car ? { carId: car.id } : {}) } as const;
        // fault dissociate-check-then-act: the audit entry is waited for between the checks above and the write
        // below, so two concurrent dissociations of one device both pass the checks, and both succeed.
        if (faults.has('dissociate-check-then-act')) await store.audit(entry);
        else void store.audit(entry);
        if (car) {
          // fault dissociate-leaves-deviceId: only the device side of the link is cleared.
          if (!faults.has('dissociate-leaves-deviceId')) car.deviceId = null;
          car.lastUpdateDate = ctx.now();
        }
        device.carId = null;
        // variant dissociate-keeps-user-link: the device stays linked to its user (the car's owner) once off the car.
        if (!variants.has('dissociate-keeps-user-link')) device.userId = null;
        return reply.code(204).send();
      },
    }));
  };
}
