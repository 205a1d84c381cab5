// The server's state: the immutable seed (users, trip histories) plus the writable part (cars,
// device links, pin failures, created cars). reset() goes back to the seed as it was at startup.

import { Seed, SEED_IDS, seedFor, SeedOptions } from './seed';
import { Car, CarHistory, Device, Trip, User } from './types';

const EMPTY_HISTORY: CarHistory = Object.freeze({ trips: [], locations: [], signals: [], accelerometers: [] });

/** A car to create: the fields of the Car record that creation sets, and the creation time. */
export type NewCar = Pick<Car, 'userId' | 'name' | 'make' | 'model' | 'year' | 'numberPlate' | 'cardbId' | 'timezone'> & { createdAt: number };

export class Store {
  readonly seed: Seed;
  private cars = new Map<number, Car>();
  private devices = new Map<string, Device>();
  private pinFailures = new Map<string, number>();
  private nextCarId: number = SEED_IDS.firstCreatedCarId;

  constructor(nowMs: number, options: SeedOptions = {}) {
    this.seed = seedFor(nowMs, options);
    this.reset();
  }

  /** Forgets every write: cars and devices are copied again from the seed. */
  reset(): void {
    this.cars = new Map(this.seed.cars.map((c) => [c.id, { ...c }]));
    this.devices = new Map(this.seed.devices.map((d) => [d.id, { ...d }]));
    this.pinFailures.clear();
    this.nextCarId = SEED_IDS.firstCreatedCarId;
  }

  user(id: number): User | undefined {
    return this.seed.users.find((u) => u.id === id);
  }

  userByEmail(email: string): User | undefined {
    const wanted = email.trim().toLowerCase();
    return this.seed.users.find((u) => u.email.toLowerCase() === wanted);
  }

  car(id: number): Car | undefined {
    return this.cars.get(id);
  }

  /** A user's cars in ascending id order (creation order). */
  carsOfUser(userId: number): Car[] {
    return this.allCars().filter((c) => c.userId === userId);
  }

  /** Every user's cars in ascending id order. */
  allCars(): Car[] {
    return [...this.cars.values()].sort((a, b) => a.id - b.id);
  }

  trip(id: string): Trip | undefined {
    return this.seed.trips.get(id);
  }

  history(carId: number): CarHistory {
    return this.seed.histories.get(carId) ?? EMPTY_HISTORY;
  }

  device(id: string): Device | undefined {
    return this.devices.get(id);
  }

  /** `keepCounter` (fault created-car-id-reused): the next id is read but the counter is not moved on. */
  createCar(input: NewCar, keepCounter = false): Car {
    const car: Car = {
      id: keepCounter ? this.nextCarId : this.nextCarId++,
      userId: input.userId,
      name: input.name,
      make: input.make,
      model: input.model,
      year: input.year,
      numberPlate: input.numberPlate,
      deviceId: null,
      cardbId: input.cardbId,
      creationDate: input.createdAt,
      lastUpdateDate: input.createdAt,
      timezone: input.timezone,
    };
    this.cars.set(car.id, car);
    return car;
  }

  pinFailureCount(deviceId: string): number {
    return this.pinFailures.get(deviceId) ?? 0;
  }

  recordPinFailure(deviceId: string): void {
    this.pinFailures.set(deviceId, this.pinFailureCount(deviceId) + 1);
  }
}
