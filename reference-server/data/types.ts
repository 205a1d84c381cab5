// In-memory records. Dates are epoch milliseconds; they are formatted only when serialized.

type Gender = 'MALE' | 'FEMALE';

export interface User {
  id: number;
  firstName: string;
  lastName: string;
  nickName: string | null;
  gender: Gender;
  birthDate: number | null;
  licenceDeliveryDate: number | null;
  role: string;
  isLocationEnabled: boolean;
  creationDate: number;
  lastUpdateDate: number;
  email: string;
  /** Fake, public test password (see docs/ARCHITECTURE.md). */
  password: string;
}

export interface Car {
  id: number;
  userId: number;
  name: string;
  make: string;
  model: string | null;
  year: number;
  numberPlate: string | null;
  deviceId: string | null;
  cardbId: number;
  creationDate: number;
  lastUpdateDate: number;
  timezone: string;
}

export interface Location {
  latitude: number;
  longitude: number;
  altitude: number;
  satellites: number;
  heading: number;
  date: number;
}

export interface Signal {
  name: string;
  value: number;
  date: number;
}

export interface Accelerometer {
  x: number;
  y: number;
  z: number;
  date: number;
}

export interface Trip {
  id: string;
  carId: number;
  beginDate: number;
  endDate: number;
  /** km, haversine along `locations` rounded to 3 decimals. */
  mileage: number;
  /** seconds, endDate - beginDate. */
  usedTime: number;
  locations: Location[];
  signals: Signal[];
  accelerometers: Accelerometer[];
}

/** Everything recorded for one car, each list in ascending date order. */
export interface CarHistory {
  trips: Trip[];
  locations: Location[];
  signals: Signal[];
  accelerometers: Accelerometer[];
}

export interface Device {
  id: string;
  pin: string;
  /** The car it is associated with. A device on a car belongs to that car's owner. */
  carId: number | null;
  /**
   * The user it is linked to: by its pin, or the user who associated it with one of their cars
   * through the API. Null for a free device, and for one its installer linked to a car (the seed's).
   */
  userId: number | null;
}

export const SIGNAL_NAMES = [
  'Odometer',
  'FuelLevel',
  'ComputedFuelLevel',
  'BatteryVoltage',
  'EngineSpeed',
  'VehiculeSpeed',
  'LockSts',
  'IgnitionSts',
  'HeadLightSts',
] as const;

export type SignalName = (typeof SIGNAL_NAMES)[number];

export function isSignalName(name: string): name is SignalName {
  return (SIGNAL_NAMES as readonly string[]).includes(name);
}
