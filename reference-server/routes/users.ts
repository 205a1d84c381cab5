// Users routes: the connected user, a user by id, a user's cars, and car creation.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runRoute } from '../auth/guard';
import type { AppContext } from '../context';
import { parseCarBody, cardbIdFor } from './car-body';
import { carView, createdCarView, userView } from '../http/views';
import { loadUser } from './loaders';
import type { Car } from '../data/types';

type UserRequest = FastifyRequest<{ Params: { userId: string } }>;

export function usersRoutes(ctx: AppContext) {
  const { store, faults } = ctx;
  // fault created-car-not-listed: the list reads the seed only, not the cars created since.
  const listed = (cars: Car[]) => (faults.has('created-car-not-listed') ? cars.filter((c) => store.seed.cars.some((s) => s.id === c.id)) : cars);
  const carList = (userId: number) => listed(store.carsOfUser(userId)).map((c) => carView(c, ctx));

  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/users/me', (request: FastifyRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /users/me',
        respond: (_r, _q, token) => {
          const user = store.user(token!.userId)!;
          return userView(user, false, ctx);
        },
      }),
    );

    app.get('/users/me/cars', (request: FastifyRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /users/me/cars',
        // fault me-cars-only-with-device: the query joins cars on their device.
        respond: (_r, _q, token) => carList(token!.userId).filter((c) => !faults.has('me-cars-only-with-device') || c.deviceId !== null),
      }),
    );

    app.get('/users/:userId', (request: UserRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /users/:userId',
        load: () => loadUser(ctx, request.params.userId),
        respond: (user) => userView(user, true, ctx),
      }),
    );

    app.get('/users/:userId/cars', (request: UserRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'GET /users/:userId/cars',
        load: () => loadUser(ctx, request.params.userId),
        respond: (user) => carList(user.id),
      }),
    );

    app.post('/users/:userId/cars', (request: UserRequest, reply: FastifyReply) =>
      runRoute(ctx, request, reply, {
        route: 'POST /users/:userId/cars',
        load: () => loadUser(ctx, request.params.userId),
        query: () => parseCarBody(request.body, faults),
        respond: (user, input) => {
          const car = store.createCar({ ...input, userId: user.id, cardbId: cardbIdFor(input.make, input.model), createdAt: ctx.now() });
          // fault created-car-200: the generic success status.
          return reply.code(faults.has('created-car-200') ? 200 : 201).send(createdCarView(car, ctx));
        },
      }),
    );
  };
}
