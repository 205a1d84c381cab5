// The server's state: the immutable seed (users, trip histories) plus the writable part (cars,
// device links, pin failures, created cars). reset() goes back to the seed, drawn again up to the
// present when the clock has moved on since it was drawn: a real service's data keeps arriving, so its
// latest positions and trips are always minutes old, and a behaviour seen only in the last minutes of
// data (a default end set back ten minutes) must show on a server that has been up for an hour.

import { Seed, SEED_IDS, seedFor, SeedOptions } from './seed';
import { Car, CarHistory, Device, Trip, User } from './types';

const EMPTY_HISTORY: CarHistory = Object.freeze({ trips: [], locations: [], signals: [], accelerometers: [] });

/** One entry of the audit log: a device write, who asked for it, and its outcome. */
export interface AuditEntry {
  at: number;
  userId: number;
  action: 'associate-car' | 'associate-pin' | 'pin-failure' | 'dissociate';
  deviceId: string;
  carId?: number;
}

/**
 * How long writing one audit entry takes: the audit log stands for a remote audit service, reached
 * over the network. The handlers write it without waiting for it; a handler that waits for it
 * between a check and the write it guards (faults associate-check-then-act,
 * pin-failures-lost-update) lets concurrent requests pass the same check.
 */
const AUDIT_WRITE_MS = 250;
const AUDIT_LOG_SIZE = 200;

/** A car to create: the fields of the Car record that creation sets, and the creation time. */
export type NewCar = Pick<Car, 'userId' | 'name' | 'make' | 'model' | 'year' | 'numberPlate' | 'cardbId' | 'timezone'> & { createdAt: number };

/** An answer a faulty server's response cache keeps (http/response-cache.ts): when, its body and content type. */
export interface CachedAnswer {
  at: number;
  payload: string;
  contentType: string;
}

/** A seed older than this at a reset is drawn again up to the present (the ids stay the same). */
const SEED_MAX_AGE_MS = 60_000;

export class Store {
  private current: Seed;
  private readonly now: () => number;
  private readonly options: SeedOptions;
  /** The response cache of the faults of family `caches` (http/response-cache.ts); empty on the correct server. */
  readonly responseCache = new Map<string, CachedAnswer>();
  /** The entity tags the ETag layer of fault blind-conditional-before-auth gave each URL's last success; empty on the correct server. */
  readonly etags = new Map<string, string>();
  private cars = new Map<number, Car>();
  private devices = new Map<string, Device>();
  private pinFailures = new Map<string, number>();
  private auditLog: AuditEntry[] = [];
  private nextCarId: number = SEED_IDS.firstCreatedCarId;

  /** `now` is the server's clock: a number is a clock that stands still at it. */
  constructor(now: number | (() => number), options: SeedOptions = {}) {
    this.now = typeof now === 'number' ? () => now : now;
    this.options = options;
    this.current = seedFor(this.now(), options);
    this.reset();
  }

  /** The seeded data (users, cars, devices, histories), as of the last reset. */
  get seed(): Seed {
    return this.current;
  }

  /** Forgets every write: cars and devices are copied again from the seed, drawn again when it has aged. */
  reset(): void {
    const now = this.now();
    if (now - this.current.generatedAt > SEED_MAX_AGE_MS) this.current = seedFor(now, this.options);
    this.cars = new Map(this.seed.cars.map((c) => [c.id, { ...c }]));
    this.devices = new Map(this.seed.devices.map((d) => [d.id, { ...d }]));
    this.pinFailures.clear();
    this.responseCache.clear();
    this.etags.clear();
    this.auditLog = [];
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

  /** Fault device-id-case-insensitive: the device whose serial is `id` in any case. */
  deviceIgnoringCase(id: string): Device | undefined {
    return [...this.devices.values()].find((d) => d.id.toLowerCase() === id.toLowerCase());
  }

  /** `keepCounter` (fault created-car-id-reused): the next id is read but the counter is not moved on. */
  createCar(input: NewCar, keepCounter = false): Car {
    return this.storeCar(keepCounter ? this.nextCarId : this.nextCarId++, input);
  }

  /** Fault car-create-body-id: the car stored under an id the client gave, replacing any car that has it. */
  createCarWithId(id: number, input: NewCar): Car {
    return this.storeCar(id, input);
  }

  /**
   * Fault created-car-id-race: the next id is read now and the car stored under it `delayMs` later
   * (after an awaited lookup), the counter moved on only then: cars created meanwhile get the same id.
   */
  async createCarLate(input: NewCar, delayMs: number): Promise<Car> {
    const id = this.nextCarId;
    await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    this.nextCarId = Math.max(this.nextCarId, id + 1);
    return this.storeCar(id, input);
  }

  private storeCar(id: number, input: NewCar): Car {
    const car: Car = {
      id,
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

  /** One more failed pin attempt, counted in one step (what an atomic `UPDATE ... SET n = n + 1` does). */
  recordPinFailure(deviceId: string): void {
    this.pinFailures.set(deviceId, this.pinFailureCount(deviceId) + 1);
  }

  /** Stores a count read earlier (fault pin-failures-lost-update: the read and this write are apart). */
  setPinFailureCount(deviceId: string, count: number): void {
    this.pinFailures.set(deviceId, count);
  }

  /** Writes an entry to the audit log; resolves once it is written (AUDIT_WRITE_MS later). */
  audit(entry: AuditEntry): Promise<void> {
    this.auditLog = [...this.auditLog.slice(1 - AUDIT_LOG_SIZE), entry];
    return new Promise((resolve) => setTimeout(resolve, AUDIT_WRITE_MS).unref());
  }
}
