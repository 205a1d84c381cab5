// Finds the ids the checks need when the target file does not give them: the user through
// /users/me, the car with the most data through /users/me/cars and /cars/{id}/trips (a test account
// may have many cars, some never driven, in any order), a trip of that car, the second user's car and
// trip likewise, a device of the second user (where writes are allowed), and a window of at most 28
// days that holds data (for range checks). What it chose is said in the console (`choices`).
// Never fails the run: what cannot be found is noted, and the checks needing it are not run.
import { deviceNotGiven } from './readiness';
import { NoAnswerError } from '../transport/api';
import { isSuiteCreatedCar } from './created-cars';
import { secondPairProblem } from './device-pair';
import type { Preparation } from './preparation';
import type { DataKey } from './run-context';
import { inTurns } from '../util/in-turns';
import { rfc3339 } from '../catalogue/templates';
import type { TokenKey } from './target';

const DAY = 86_400_000;
/** Windows are 28 days: clearly inside the documented "at most one month" (v3-profile.md decisions). */
const WINDOW_DAYS = 28;
const WINDOWS_SEARCHED = 6;
/**
 * Fewer trips than this in the most recent window that holds any: the car's data stopped at the window's
 * far edge (weeks ago), and the window is moved to end with its newest trip, so that it holds the weeks
 * of data before it (range checks need items on both sides of a date) rather than its last hours.
 */
const FEW_TRIPS = 3;
/**
 * Trip lists asked at once while looking: every car of the user is looked at (a fleet account may
 * have hundreds, its driven cars anywhere in the list), many at a time, so that a distant server's
 * round trips overlap; a server or its gateway that limits concurrent requests sees a bounded number.
 */
const LOOKUPS_AT_ONCE = 16;

/** Fills in the run's ids, their notes, the data window, its warnings and choices (`prep.run`), with the run's tokens. */
export async function discoverData(prep: Pick<Preparation, 'target' | 'api' | 'redactor' | 'run'>, now = new Date()): Promise<void> {
  const { target, api, redactor, run: found } = prep;
  const { data, dataNotes, tokens } = found;
  const bearer = (key: TokenKey) => (tokens[key] ? `Bearer ${tokens[key]}` : undefined);
  // Read routes by id: a sandbox serves them without a token; the cloud needs the primary token.
  const byIdAuth = target.env === 'sandbox' ? null : bearer('full');
  const canReadById = target.env === 'sandbox' || Boolean(tokens.full);

  /** `notes`: where a failed read is said (each user's lookups have their own, said in order). */
  const getJson = async (path: string, authorization: string | null | undefined, notes: string[], query?: Record<string, string>) => {
    try {
      const res = await api.get(path, { authorization, query });
      if (res.status === 200 && res.json !== undefined) return res.json;
      notes.push(`discovery: GET ${path} answered ${res.status}${res.jsonError ? ` (${res.jsonError})` : ''}${refusedToken(res, authorization)}`);
    } catch (err) {
      if (!(err instanceof NoAnswerError)) throw err;
      notes.push(`discovery: ${err.message}`);
    }
    return undefined;
  };
  // A token the target refuses outright is most often the user's (expired, or another server's): say so.
  const refusedToken = (res: { status: number; json: unknown }, authorization: string | null | undefined) => {
    const key = (Object.keys(tokens) as TokenKey[]).find((k) => authorization === bearer(k));
    const message = Array.isArray(res.json) ? (res.json as Array<{ message?: unknown }>).map((e) => e?.message).find((m) => typeof m === 'string') : undefined;
    const refused = res.status === 401 || (res.status === 403 && /expired|revoked/i.test(String(message ?? '')));
    if (!key || !refused) return '';
    return (
      `${message ? ` "${redactor.redact(String(message).slice(0, 200))}"` : ''}: the target refuses the ${key} token; if it has expired or is not this server's, ` +
      `give a fresh one (tokens.${key} in ${target.source}, or the variable it names): checks using it get the same answer`
    );
  };
  const missing = (key: DataKey, why: string) => {
    if (!data[key]) dataNotes[key] = `data.${key} is not in ${target.source} and could not be discovered: ${why}`;
  };

  // The primary user and the second user are looked up side by side (neither waits for the other's
  // answers: a distant server costs discovery the longer of the two, not both); what each notes and
  // chooses is said in that order.
  const primaryNotes: string[] = [];
  const secondNotes: string[] = [];
  const [primaryChoice, secondChoice] = await Promise.all([discoverPrimary(primaryNotes), discoverSecondUser(secondNotes)]);
  found.warnings.push(...primaryNotes, ...secondNotes);
  found.choices.push(...[primaryChoice, secondChoice].filter((c): c is string => c !== undefined));
  const noOther = 'no second user token (tokens.otherUser, or oauth.otherUsername + oauth.otherPassword)';
  missing('otherUserId', tokens.otherUser ? 'GET /users/me gave no id for the second user' : noOther);
  missing('otherCarId', tokens.otherUser ? 'the second user has no car' : noOther);
  missing('otherTripId', tokens.otherUser ? "the second user's car has no recent trip" : noOther);
  missing('otherDeviceId', tokens.otherUser ? "none of the second user's cars has a device (GET /users/{otherUserId}/cars)" : noOther);
  for (const key of ['freeDeviceId', 'devicePin', 'deviceForCarId', 'lockableDeviceId', 'lockableDevicePin'] as const) {
    if (!data[key]) dataNotes[key] = deviceNotGiven(target, key);
  }
  return;

  /** The primary user, their car with the most data, its trip and window, and a car without a device; the choice line. */
  async function discoverPrimary(notes: string[]): Promise<string | undefined> {
    let choice: string | undefined;
    // Beside /users/me, the user's own list (GET /users/me/cars: the same car records), so that its
    // cars' trips are looked at while the list by id is asked: used when that list names the same cars
    // in the same order, else looked at again for its cars (the choice stays the list by id's). Nothing
    // waits for it: an own list not back when the list by id is, is not used.
    const early = !data.userId && !data.carId && Boolean(tokens.full) && target.env !== 'sandbox' && canReadById;
    const earlyNotes: string[] = [];
    let earlyStopped = false;
    let earlyCandidates: string[] = [];
    let earlyLook: Promise<Chosen | undefined> | undefined;
    if (early) {
      void getJson('/users/me/cars', bearer('full'), [])
        .then((ownList) => {
          if (earlyStopped || !Array.isArray(ownList)) return;
          earlyCandidates = candidatesOf(carRecords(ownList));
          if (earlyCandidates.length) earlyLook = carWithMostData(earlyCandidates, byIdAuth, earlyNotes, () => earlyStopped);
          void earlyLook?.catch(() => undefined);
        })
        .catch(() => undefined);
    }
    if (!data.userId) {
      if (tokens.full) data.userId = idOf(await getJson('/users/me', bearer('full'), notes));
      missing('userId', tokens.full ? 'GET /users/me gave no id' : 'no primary token (tokens.full) to ask /users/me');
    }
    // The primary car: one with trips, so that range, trip and coherence checks have data.
    let cars: Array<Record<string, unknown>> = [];
    if (data.userId && canReadById) {
      const list = await getJson(`/users/${encodeURIComponent(data.userId)}/cars`, byIdAuth, notes);
      if (Array.isArray(list)) cars = carRecords(list);
    }
    const primaryCandidates = data.carId ? [data.carId] : candidatesOf(cars);
    let primary: Chosen | undefined;
    if (earlyLook && JSON.stringify(earlyCandidates) === JSON.stringify(primaryCandidates)) {
      primary = await earlyLook;
      notes.push(...earlyNotes);
    } else {
      earlyStopped = true;
      primary = canReadById ? await carWithMostData(primaryCandidates, byIdAuth, notes) : undefined;
    }
    if (primary) {
      const givenTrip = data.tripId;
      data.carId ??= primary.carId;
      found.window = primary.range;
      data.tripId ??= primary.tripId;
      choice = choiceLine('primary', primary, givenTrip);
    }
    data.carId ??= primaryCandidates[0];
    missing('carId', cars.length ? 'no car id in the list' : 'the user has no car (or the list could not be read)');
    missing('tripId', data.carId ? `car ${data.carId} has no trip in the last ${WINDOW_DAYS * WINDOWS_SEARCHED} days` : 'no car');
    if (!found.window) notes.push('discovery: no 28-day window with trips was found; range checks will not run');

    // A car of the primary user without a device, for the device lifecycle (never the data car).
    if (!data.deviceCarId) {
      const free = cars.find((c) => c.deviceId === null && idOf(c) !== data.carId);
      if (free) data.deviceCarId = idOf(free);
      missing('deviceCarId', 'the primary user has no other car without a device');
    }
    // A second one for the second device (data.secondDeviceForCarId): the device checks' second write lane.
    if (data.secondDeviceForCarId && !data.secondDeviceCarId) {
      const second = cars.find((c) => c.deviceId === null && ![data.carId, data.deviceCarId].includes(idOf(c)));
      if (second) data.secondDeviceCarId = idOf(second);
      else
        notes.push(
          'discovery: the primary user has no car without a device besides data.carId and data.deviceCarId, for data.secondDeviceForCarId: the device checks run in one write lane',
        );
    }
    const unusable = secondPairProblem(data);
    if (unusable) notes.push(`discovery: ${unusable}`);
    return choice;
  }

  /**
   * The second user, their car and trip (cross-user checks), and a device of theirs; the choice line.
   * Who they are and their cars are asked together, and so are their cars' trips and the list that
   * shows their devices (neither needs the other's answer).
   */
  async function discoverSecondUser(notes: string[]): Promise<string | undefined> {
    if (!tokens.otherUser) return undefined;
    let choice: string | undefined;
    const [me, otherCars] = await Promise.all([
      data.otherUserId ? undefined : getJson('/users/me', bearer('otherUser'), notes),
      // Their car with a trip (the list's order is not documented: the first car may have none).
      getJson('/users/me/cars', bearer('otherUser'), notes),
    ]);
    if (!data.otherUserId) data.otherUserId = idOf(me);
    const candidates = data.otherCarId ? [data.otherCarId] : idsOf(Array.isArray(otherCars) ? byLastUpdate(otherCars) : otherCars);
    // A device of theirs, for the cross-user writes: the deviceId of one of their cars, read in the
    // spec's one detailed answer (GET /users/{userId}/cars), as the checks read the primary user's.
    const lookForDevice = !data.otherDeviceId && target.allowWrites && data.otherUserId;
    const [other, list] = await Promise.all([
      data.otherTripId ? undefined : carWithMostData(candidates, bearer('otherUser'), notes),
      lookForDevice ? getJson(`/users/${encodeURIComponent(data.otherUserId!)}/cars`, bearer('otherUser'), notes) : undefined,
    ]);
    if (other) {
      data.otherCarId ??= other.carId;
      data.otherTripId = other.tripId;
      choice = choiceLine("second user's", other);
    }
    data.otherCarId ??= candidates[0];
    if (lookForDevice) {
      const deviceId = Array.isArray(list)
        ? list.map((c) => (c as Record<string, unknown>)?.deviceId).find((d) => typeof d === 'string' && d !== '')
        : undefined;
      if (deviceId) data.otherDeviceId = String(deviceId);
    }
    return choice;
  }

  /**
   * Of these cars (every one, LOOKUPS_AT_ONCE at a time), the one with the most trips in the most
   * recent 28-day window where any of them has one (ties: the first in the order given), that window
   * (ending with its data when it holds only its last few trips: FEW_TRIPS) and its first trip.
   */
  async function carWithMostData(
    carIds: string[],
    authorization: string | null | undefined,
    notes: string[],
    stopped: () => boolean = () => false,
  ): Promise<Chosen | undefined> {
    const examined = carIds;
    for (let i = 0; i < WINDOWS_SEARCHED && !stopped(); i++) {
      // Whole seconds, written as the checks write dates (rfc3339): a check that narrows the window
      // compares items with the very bounds it sent.
      const end = new Date(Math.floor(now.getTime() / 1000) * 1000 - i * WINDOW_DAYS * DAY);
      const range = { begin: rfc3339(new Date(end.getTime() - WINDOW_DAYS * DAY)), end: rfc3339(end) };
      const lists = await inTurns(examined, LOOKUPS_AT_ONCE, async (carId) => {
        if (stopped()) return [];
        const trips = await getJson(`/cars/${encodeURIComponent(carId)}/trips`, authorization, notes, range);
        return Array.isArray(trips) ? trips : [];
      });
      const best = lists.reduce((b, trips, k) => (trips.length > lists[b].length ? k : b), 0);
      if (lists[best]?.length) {
        const chosen = { carId: examined[best], range, tripId: idOf(lists[best][0]), trips: lists[best].length, examined: examined.length };
        return lists[best].length < FEW_TRIPS ? endingWithItsData(chosen, lists[best], authorization, notes) : chosen;
      }
    }
    return undefined;
  }

  /** The window moved to end just after the newest of `trips` (FEW_TRIPS), when it then holds more of them. */
  async function endingWithItsData(chosen: Chosen, trips: unknown[], authorization: string | null | undefined, notes: string[]): Promise<Chosen> {
    const ends = trips.map((t) => Date.parse(String((t as Record<string, unknown> | null)?.endDate))).filter((ms) => !Number.isNaN(ms));
    if (!ends.length) return chosen;
    const endMs = Math.floor(Math.max(...ends) / 1000) * 1000 + 1000;
    if (endMs >= Date.parse(chosen.range.end)) return chosen;
    const range = { begin: rfc3339(new Date(endMs - WINDOW_DAYS * DAY)), end: rfc3339(new Date(endMs)) };
    const list = await getJson(`/cars/${encodeURIComponent(chosen.carId)}/trips`, authorization, notes, range);
    if (!Array.isArray(list) || list.length <= chosen.trips) return chosen;
    return { ...chosen, range, trips: list.length, tripId: idOf(list[0]) ?? chosen.tripId };
  }
}

interface Chosen {
  carId: string;
  range: { begin: string; end: string };
  tripId?: string;
  /** Its trips in the window. */
  trips: number;
  /** How many cars were looked at. */
  examined: number;
}

/** The records of a car list: an odd element (null, a number) is the list checks' to fail, not discovery's. */
function carRecords(list: unknown[]): Array<Record<string, unknown>> {
  return list.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && !Array.isArray(c));
}

/**
 * The cars to look at, in order: the user's own first (on a server that keeps its state, the cars
 * earlier runs created, with no data, may fill the start of the list), the most recently updated
 * first (the likeliest to have been driven lately: a tie on the most trips goes to it).
 */
function candidatesOf(cars: Array<Record<string, unknown>>): string[] {
  return idsOf([...byLastUpdate(cars.filter((c) => !isSuiteCreatedCar(c))), ...cars.filter(isSuiteCreatedCar)]);
}

/** A record's id as text (undefined without one). */
function idOf(value: unknown): string | undefined {
  return value && typeof value === 'object' && 'id' in value ? String((value as { id: unknown }).id) : undefined;
}

/** The ids of a list's records, in order. */
function idsOf(list: unknown): string[] {
  return Array.isArray(list) ? list.map(idOf).filter((id): id is string => !!id) : [];
}

/** Car records, the most recently updated first (lastUpdateDate; a car without a readable one keeps its place after them). */
function byLastUpdate<T>(cars: T[]): T[] {
  const updated = (c: T) => Date.parse(String((c as Record<string, unknown> | null)?.lastUpdateDate));
  const dated = cars.filter((c) => !Number.isNaN(updated(c))).sort((a, b) => updated(b) - updated(a));
  return [...dated, ...cars.filter((c) => Number.isNaN(updated(c)))];
}

/** What discovery chose, for the console: "car 5001 (44 trips from ... to ..., the most of 3 cars looked at), trip ...". */
function choiceLine(whose: string, c: Chosen, givenTrip?: string): string {
  const among = c.examined > 1 ? `, the most of the ${c.examined} cars looked at, every car listed, the most recently updated first` : '';
  return (
    `discovery: the ${whose} car ${c.carId} (${c.trips} trip${c.trips === 1 ? '' : 's'} from ${c.range.begin} to ${c.range.end}${among})` +
    (givenTrip ? '' : `, trip ${c.tripId ?? 'none'}`)
  );
}
