// Everything a check procedure may use: the target, the run's tokens and ids, the requirement and
// route under test, and requests that fill in ids and credentials the way the documents say.
// Inputs that are missing raise NotRun naming the target-file key that would provide them.
import type { Browser } from '@playwright/test';
import type { BrowserSession } from '../setup/browser';
import { dataKeyFor } from '../setup/device-pair';
import { bearerOf } from '../transport/bearer';
import { MAX_LIST_BODY_BYTES, type ApiClient, type ApiResponse, type Credential } from '../transport/api';
import { fillRoute, type Catalogue, type Requirement, type Route } from '../catalogue/catalogue';
import type { DataKey, RunContext } from '../setup/run-context';
import type { Redactor } from '../util/redact';
import type { Scope, Target, TokenKey } from '../setup/target';
import { expectStatus } from './assertions';
import { systemClock, type Clock } from '../transport/clock';
import { NotApplicable, NotRun, unreadable } from './outcome';
import { validCarBody } from '../setup/created-cars';
import { noBrowser, writesNotAllowed } from '../setup/readiness';

export interface CallOptions {
  /** Path or fixed-query parameter values, overriding the run's ids. */
  ids?: Record<string, string>;
  query?: Record<string, string | undefined>;
  /** Query pairs sent as they are, after the route's fixed ones (may repeat a name); replaces `query`. */
  queryPairs?: Array<[string, string]>;
  /** Raw Authorization header; null sends none. Overrides `token`. */
  authorization?: string | null;
  token?: TokenKey;
  body?: unknown;
  rawBody?: string;
  /** Members added to the JSON body (the route's valid body, or an object of their own). */
  bodyMembers?: Record<string, string>;
  /** An application/x-www-form-urlencoded body in place of a JSON one. */
  form?: Record<string, string>;
  /** Request headers besides the Authorization header. */
  headers?: Record<string, string>;
  /** What the credential the request carries is, by name (a near-miss of a token key): recorded in place of the raw header's "header". */
  credential?: string;
  /** Hostile input (fuzz.ts): its answers never open nor close the route for the other checks (api.ts RequestOptions.hostile). */
  hostile?: boolean;
}

export type { BrowserSession };

/** An error answer another check of the group received on a route (CORE-ERROR-BODY judges them all). */
export interface SeenError {
  /** The key of the check that received it. */
  by: string;
  res: ApiResponse;
}

/** Which run id fills each parameter of a route by default. */
const DEFAULT_IDS: Record<string, DataKey> = {
  userId: 'userId',
  carId: 'carId',
  tripId: 'tripId',
  pin: 'devicePin',
};

/** A part of a check that depends on no other check's writes, so it may start before the check's turn (checks/index.ts EARLY). */
export type EarlyPart<T = unknown> = (ctx: CheckContext) => Promise<T>;

export class CheckContext {
  readonly warnings: string[] = [];
  /**
   * The inputs the check asked for (tokens.<key>, data.<key>, writes, browser), got or not: what its
   * requirement needs of a target (src/catalogue/needs.ts names them before a run; a test holds the two equal).
   */
  readonly asked = new Set<string>();
  /** The early part the engine started, and its promise (startEarly). */
  private started?: { part: EarlyPart; result: Promise<unknown> };

  constructor(
    readonly target: Target,
    readonly run: RunContext,
    readonly catalogue: Catalogue,
    readonly api: ApiClient,
    readonly redactor: Redactor,
    readonly requirement: Requirement,
    readonly route?: Route,
    readonly scope?: Scope,
    /** Runs a function with the worker's browser (fixtures/suite-fixtures.ts). */
    private readonly browserSession?: BrowserSession,
    /** The clock the check reads (src/transport/clock.ts): the system's, or a replay's recorded readings. */
    private readonly clock: Clock = systemClock(),
    /** The error answers the group's other checks received so far, by route (src/engine/errors-seen.ts). */
    private readonly seenErrors: (route: string) => SeenError[] = () => [],
    /** Whether a check of this requirement ran in the group so far (errors-seen.ts). */
    private readonly ranInGroup: (requirementId: string) => boolean = () => true,
  ) {}

  /**
   * The engine starts `part` at once, before the check's turn in its lane (schedule.ts): its requests
   * are the check's, its failure the check's when it awaits it (early()).
   */
  startEarly(part: EarlyPart): void {
    const result = part(this);
    result.catch(() => undefined); // awaited, and judged, by the check
    this.started = { part, result };
  }

  /** What `part` gives: started early by the engine, else now. */
  early<T>(part: EarlyPart<T>): Promise<T> {
    return this.started?.part === part ? (this.started.result as Promise<T>) : part(this);
  }

  /** A check of this requirement ran in this route group (before the checks that judge the errors seen). */
  ran(requirementId: string): boolean {
    return this.ranInGroup(requirementId);
  }

  /**
   * The error answers every other (non-advisory) check of this group has received on the route under
   * test: a requirement that judges them (`judges: errors-seen`) runs after the group's other checks.
   */
  errorsSeen(): SeenError[] {
    return this.route ? this.seenErrors(this.route.route) : [];
  }

  /** Now, in milliseconds: every date a check computes starts here (never Date.now(): a replay must read the recorded instants). */
  now(): number {
    return this.clock.now();
  }

  /** Whether the check has a browser for the sign-in page (withBrowser would use it). */
  hasBrowser(): boolean {
    return Boolean(this.run.browser.executablePath && this.browserSession);
  }

  /** Uses the worker's browser for the sign-in page, or NotRun saying why there is none. */
  withBrowser<T>(use: (browser: Browser) => Promise<T>): Promise<T> {
    this.asked.add('browser');
    if (!this.run.browser.executablePath || !this.browserSession) {
      throw new NotRun(noBrowser(this.run.browser), 'browser');
    }
    return this.browserSession(use);
  }

  /** The route under test; only per-route requirements have one (a catalogue defect otherwise). */
  requireRoute(): Route {
    if (!this.route) throw new Error(`${this.requirement.id} is not a per-route requirement`);
    return this.route;
  }

  param<T = unknown>(name: string): T {
    return this.requirement.params[name] as T;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  token(key: TokenKey): string {
    this.asked.add(`tokens.${key}`);
    const token = this.run.tokens[key];
    if (!token && this.tokenlessSandbox()) throw new NotApplicable(TOKENLESS_SANDBOX);
    if (!token) throw new NotRun(this.run.tokenNotes[key] ?? `tokens.${key} is not available`, `tokens.${key}`);
    return token;
  }

  /**
   * A token the check uses where the target gives it and goes on without (one request fewer, said in a
   * warning): not one of its needs, so not recorded as asked (readiness never predicts it not run).
   */
  tokenIfGiven(key: TokenKey): string | undefined {
    return this.run.tokens[key] || undefined;
  }

  /**
   * A sandbox target that gives no token: it serves only its read routes by id, and what needs a
   * token (the connected user's routes, writes, the credentials checks) is not applicable to it.
   */
  tokenlessSandbox(): boolean {
    return this.target.env === 'sandbox' && Object.values(this.run.tokens).every((t) => !t);
  }

  /**
   * The answer is a success: the route's documented status (the profile's), or for a core requirement
   * any 2xx (the spec shows no status code).
   */
  expectSuccess(res: ApiResponse, route: Route, why = ''): void {
    if (this.requirement.class === 'core') this.expectProfileParametersTaken(res, route);
    expectStatus(res, this.requirement.class === 'core' ? '2xx' : route.success.status, why);
  }

  /**
   * A core check that sent the profile's query parameters (begin, end, limit, ...: the spec shows
   * none) and met a refusal of them (400 or 416) cannot judge the spec with that request: not run,
   * naming the profile requirement of the parameter (routes.yaml queryParameters judgedBy).
   */
  expectProfileParametersTaken(res: ApiResponse, route: Route): void {
    if (res.status !== 400 && res.status !== 416) return;
    const sent = [...new URL(res.exchange.url).searchParams.keys()].filter((k) => !(k in route.fixedQuery) && this.catalogue.queryParameters[k]);
    if (!sent.length) return;
    const judges = [...new Set(sent.map((k) => this.catalogue.queryParameters[k].judgedBy))];
    throw unreadable(`${route.route} refused the profile's query parameters ${sent.join(', ')} with ${res.status}`, judges.join(' and '));
  }

  /**
   * The run's id for `key`, or NotRun saying why there is none. A check in the devices' second write lane
   * gets the second pair's device and car for deviceForCarId and deviceCarId (setup/device-pair.ts).
   */
  data(key: DataKey): string {
    this.asked.add(`data.${key}`);
    const actual = dataKeyFor(this.requirement, this.run.data, key);
    const value = this.run.data[actual];
    if (!value) throw new NotRun(this.run.dataNotes[actual] ?? `data.${actual} is not available`, `data.${actual}`);
    return value;
  }

  /** How a message names the id `data(key)` gives: data.deviceForCarId, or data.secondDeviceForCarId in the second lane. */
  dataName(key: DataKey): string {
    return `data.${dataKeyFor(this.requirement, this.run.data, key)}`;
  }

  window(): { begin: string; end: string } {
    if (!this.run.window) throw new NotRun('no 28-day window with trips was found for the primary car (see the run warnings)');
    return this.run.window;
  }

  requireWrites(): void {
    this.asked.add('writes');
    if (this.tokenlessSandbox()) throw new NotApplicable(TOKENLESS_SANDBOX);
    if (!this.target.allowWrites) {
      throw new NotRun(writesNotAllowed(this.target), 'writes');
    }
  }

  /** The Authorization header a valid request carries: none on a sandbox's open routes, else the primary token. */
  defaultAuthorization(route: Route): string | null {
    if (route.public) return null;
    if (this.target.env === 'sandbox' && route.sandboxOpen) return null;
    return `Bearer ${this.token('full')}`;
  }

  /** The device a route acts on by default: the car-association device, or the pin device. */
  private defaultDevice(route: Route): DataKey {
    return 'pin' in route.fixedQuery ? 'freeDeviceId' : 'deviceForCarId';
  }

  /** The run's value for a route parameter ({carId}, {deviceId}, pin, ...), or NotRun naming the key. */
  idFor(route: Route, name: string): string {
    if (name === 'deviceId') return this.data(this.defaultDevice(route));
    // The car a device is associated with is a car of the user that has none (never the data car).
    if (name === 'carId' && route.group === 'devices') return this.data('deviceCarId');
    const key = DEFAULT_IDS[name];
    if (!key) throw new Error(`no default for route parameter {${name}}`);
    return this.data(key);
  }

  /** Fills the route's path and fixed query from the run's ids (or the overrides). */
  resolve(route: Route, ids: Record<string, string> = {}): { path: string; query: Record<string, string> } {
    // idFor throws NotRun for an id the run lacks: every parameter has a value.
    return fillRoute(route, (name) => ids[name] ?? this.idFor(route, name))!;
  }

  /** Which credential an Authorization header is, by name: the run's token key it carries, or a raw header. */
  private credentialOf(authorization: string | null): Credential {
    if (authorization === null) return 'none';
    const carried = bearerOf(authorization)?.token;
    const key = carried === undefined ? undefined : Object.entries(this.run.tokens).find(([, token]) => token && token === carried)?.[0];
    return (key as TokenKey | undefined) ?? 'header';
  }

  async call(route: Route, options: CallOptions = {}): Promise<ApiResponse> {
    if (route.method !== 'GET') this.requireWrites();
    const { path, query } = this.resolve(route, options.ids);
    const authorization =
      options.authorization !== undefined ? options.authorization : options.token ? `Bearer ${this.token(options.token)}` : this.defaultAuthorization(route);
    let body = options.body;
    if (body === undefined && options.rawBody === undefined && !options.form && route.method === 'POST' && route.success.contract === 'createdCar') {
      body = validCarBody(this.now());
    }
    if (options.bodyMembers) body = { ...(body && typeof body === 'object' ? body : {}), ...options.bodyMembers };
    // A list grows with the data (neither document states a page size): more of it is read, and an
    // answer larger still is not judged (the check is not run) rather than failed.
    const list = route.success.contract?.endsWith('[]') ?? false;
    const res = await this.api.request(route.method, path, {
      query: options.queryPairs ? [...Object.entries(query), ...options.queryPairs] : { ...query, ...options.query },
      authorization,
      body,
      rawBody: options.rawBody,
      ...(options.form ? { form: options.form } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      route: route.route,
      credential: options.credential ?? this.credentialOf(authorization),
      ...(list ? { maxBytes: MAX_LIST_BODY_BYTES } : {}),
      ...(options.hostile ? { hostile: true } : {}),
    });
    if (list && res.truncated && res.status === route.success.status) {
      throw new NotRun(
        `${route.route} answered more than ${MAX_LIST_BODY_BYTES / 2 ** 20} MiB, the most of one answer the suite reads: ` +
          `too much to judge; a car with less data (data.carId in ${this.target.source}) would let it run`,
      );
    }
    return res;
  }
}

const TOKENLESS_SANDBOX =
  'the target is a sandbox without tokens: a sandbox serves only its read routes by id without one, and this check needs a token ' +
  '(v3-profile.md § Hosts and environments); give tokens in the target file to run it';

export { CREATED_CAR_PREFIX, CREATED_CAR_SHORT_MAKE, isSuiteCreatedCar, validCarBody } from '../setup/created-cars';
