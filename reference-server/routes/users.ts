// Users routes: the connected user, a user by id, a user's cars, and car creation.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { parseCarBody, cardbIdFor } from './car-body';
import { carView, createdCarView, userView } from '../http/views';
import { loadUser } from './loaders';
import { register } from './register';
import type { Car } from '../data/types';
import { zoneOffsetMinutes } from '../clock';

type UserRequest = FastifyRequest<{ Params: { userId: string } }>;

/**
 * Fault car-create-body-members: the body's members of the car record (but id, userId and deviceId,
 * set by the server) copied onto it as they came, dates read as instants.
 */
function massAssign(car: Car, others: Record<string, unknown>): void {
  const record = car as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(others)) {
    if (key === 'id' || key === 'userId' || key === 'deviceId' || !(key in record)) continue;
    record[key] = key.endsWith('Date') && typeof value === 'string' ? Date.parse(value) : value;
  }
}

/** How long the car-type lookup of a created car takes with fault created-car-id-race (a remote car database). */
const CAR_TYPE_LOOKUP_MS = 250;

export function usersRoutes(ctx: AppContext) {
  const { store, faults, variants } = ctx;
  // fault created-car-not-listed: the list reads the seed only, not the cars created since.
  const listed = (cars: Car[]) => (faults.has('created-car-not-listed') ? cars.filter((c) => store.seed.cars.some((s) => s.id === c.id)) : cars);
  // variant cars-newest-first: a user's cars, the most recently created first.
  const ordered = (cars: Car[]) => (variants.has('cars-newest-first') ? [...cars].reverse() : cars);
  const carList = (userId: number) => ordered(listed(store.carsOfUser(userId))).map((c) => carView(c, ctx));
  // fault me-cars-date-zulu: the connected user's list has a serializer of its own, writing dates with "Z".
  const meView = (c: Car) => carView(c, ctx, { zulu: faults.has('me-cars-date-zulu') });
  // fault me-cars-all-users: the connected user's list is queried without its user filter.
  // fault me-cars-omit-created: the connected user's list reads the seed only; GET /users/{userId}/cars lists the created cars.
  const meListed = (cars: Car[]) => (faults.has('me-cars-omit-created') ? cars.filter((c) => store.seed.cars.some((s) => s.id === c.id)) : listed(cars));
  const meCars = (userId: number) => ordered(meListed(faults.has('me-cars-all-users') ? store.allCars() : store.carsOfUser(userId))).map(meView);
  const load = (request: UserRequest) => () => loadUser(ctx, request.params.userId);

  return async function plugin(app: FastifyInstance): Promise<void> {
    register(app, ctx, 'GET /users/me', () => ({
      respond: (_r, _q, token) => {
        // fault users-me-first-user: the session's user is never read; the first user of the store answers.
        const user = faults.has('users-me-first-user') ? store.seed.users[0] : store.user(token!.userId)!;
        return userView(user, false, ctx);
      },
    }));

    register(app, ctx, 'GET /users/me/cars', () => ({
      // fault me-cars-only-with-device: the query joins cars on their device.
      respond: (_r, _q, token) => meCars(token!.userId).filter((c) => !faults.has('me-cars-only-with-device') || c.deviceId !== null),
    }));

    register(app, ctx, 'GET /users/:userId', (request: UserRequest) => ({
      load: load(request),
      respond: (user) => userView(user, true, ctx),
    }));

    register(app, ctx, 'GET /users/:userId/cars', (request: UserRequest) => ({
      load: load(request),
      respond: (user) => carList(user.id),
    }));

    register(app, ctx, 'POST /users/:userId/cars', (request: UserRequest, reply: FastifyReply) => ({
      load: load(request),
      query: () => parseCarBody(request.body, faults, variants, Number(request.params.userId)),
      respond: async (user, { others, ...input }) => {
        // fault car-create-body-user-id: the body's userId, when it names a user, wins over the path's.
        const owner = faults.has('car-create-body-user-id') && typeof others.userId === 'number' && store.user(others.userId) ? others.userId : user.id;
        // fault blind-created-car-local-time: the creation time taken as the car's wall-clock time and stored as if it were UTC.
        const localShift = faults.has('blind-created-car-local-time') ? zoneOffsetMinutes(ctx.now(), input.timezone) * 60_000 : 0;
        const newCar = { ...input, userId: owner, cardbId: cardbIdFor(input.make, input.model), createdAt: ctx.now() + localShift };
        // fault car-create-body-id: a body's integer id is the new car's, replacing a car that has it.
        if (faults.has('car-create-body-id') && Number.isSafeInteger(others.id) && (others.id as number) > 0) {
          return reply.code(201).send(createdCarView(store.createCarWithId(others.id as number, newCar), ctx));
        }
        // fault created-car-id-race: the id is taken before an awaited car-type lookup, the car stored after it.
        // fault created-car-id-reused: every created car gets the same id (the counter is never moved on).
        const car = faults.has('created-car-id-race')
          ? await store.createCarLate(newCar, CAR_TYPE_LOOKUP_MS)
          : store.createCar(newCar, faults.has('created-car-id-reused'));
        // fault car-create-body-members: the body's other members are copied onto the new car, all but id and userId.
        if (faults.has('car-create-body-members')) massAssign(car, others);
        // fault car-create-body-device: the device column written from the body's deviceId.
        if (faults.has('car-create-body-device') && typeof others.deviceId === 'string') car.deviceId = others.deviceId;
        // fault created-car-200: the generic success status.
        return reply.code(faults.has('created-car-200') ? 200 : 201).send(createdCarView(car, ctx));
      },
    }));
  };
}
