// The existence step of the id routes. A malformed id (letters, sign, too many digits, ...) cannot
// name a resource, so it answers the same 404 as an unknown id (one consistent rule, no 500).

import type { Owned } from '../auth/guard';
import type { AppContext } from '../context';
import type { Car, Trip, User } from '../data/types';
import { ApiError, internalError, notFound } from '../http/errors';
import { parseIntegerId, parseTripId } from '../http/params';

export function loadUser(ctx: AppContext, raw: string): Owned<User> {
  const id = parseIntegerId(raw);
  // fault user-id-beyond-32-bits-500: the id is read into a 32-bit integer, which a larger one overflows.
  if (id !== null && id > 2 ** 31 - 1 && ctx.faults.has('user-id-beyond-32-bits-500')) {
    throw internalError('integer out of range for type int4');
  }
  const user = id === null ? undefined : ctx.store.user(id);
  if (!user) throw notFound('User', ctx.faults);
  return { kind: 'user', ownerId: user.id, value: user };
}

export function loadCar(ctx: AppContext, raw: string): Owned<Car> {
  const id = parseIntegerId(raw);
  const car = id === null ? undefined : ctx.store.car(id);
  if (!car) {
    // fault unknown-car-500: the handler dereferences the missing car.
    if (id !== null && ctx.faults.has('unknown-car-500')) {
      throw internalError("Cannot read properties of undefined (reading 'userId')");
    }
    throw notFound('Car', ctx.faults);
  }
  return { kind: 'car', ownerId: car.userId, value: car };
}

export function loadTrip(ctx: AppContext, raw: string, options: { lowercaseMessage?: boolean } = {}): Owned<Trip> {
  const id = parseTripId(raw);
  const trip = id === null ? undefined : ctx.store.trip(id);
  if (!trip) {
    const error = notFound('Trip', ctx.faults);
    // fault trip-stats-not-found-lowercase: the two stats pages' "trip not found".
    if (options.lowercaseMessage && ctx.faults.has('trip-stats-not-found-lowercase')) {
      throw new ApiError(404, 'PARAMETERS_ERROR', 'trip not found', error.tip);
    }
    throw error;
  }
  const car = ctx.store.car(trip.carId);
  // A trip belongs to its car's owner; seeded trips always have a seeded car.
  return { kind: 'trip', ownerId: car ? car.userId : -1, value: trip };
}
