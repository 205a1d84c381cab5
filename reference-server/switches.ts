// The two switches of one app instance: the active fault (faults.ts) and the active variant
// (variants.ts), each typed so that a misspelt name at a guard (`faults.has('...')`) fails to compile.

import { AsyncLocalStorage } from 'node:async_hooks';
import { faultRoutes, parseFaultSpec } from './fault-specs';
import { faultNames, type FaultName, isFaultName } from './faults';
import type { RouteKey } from './route-keys';
import { isVariantName, variantNames, type VariantName } from './variants';

/** The spellings of "no fault" / "no variant": absent, empty or `none` (flags, env vars, app options). */
export function isNone(spec: string | null | undefined): spec is '' | 'none' | null | undefined {
  return spec === undefined || spec === null || spec === '' || spec === 'none';
}

/** The response header that names the guards a request reached, while tracing (Faults.tracing). */
export const FAULT_GUARDS_HEADER = 'x-vds-fault-guards';

/** The guards one request reaches (app.ts runs each request in a store of its own). */
const requestGuards = new AsyncLocalStorage<Set<string>>();

/** Runs the rest of a request's handling with a guard set of its own (a Fastify onRequest hook's done). */
export function trackRequestGuards(done: () => void): void {
  requestGuards.run(new Set(), done);
}

/** The guards the request being handled has reached so far. */
export function guardsOfThisRequest(): string[] {
  return [...(requestGuards.getStore() ?? [])].sort();
}

/**
 * The active fault of one app instance (or none). It can be switched while the server runs
 * (`set`, the control API's `POST /_control/fault`): the mutation gate starts one reference per worker
 * and moves it from fault to fault instead of starting a server per fault. Every guard reads it at
 * request time, so a switch takes effect on the next request.
 */
export class Faults {
  private current: FaultName | null = null;
  /** The one route a per-route fault is on; null for a plain fault. */
  private currentRoute: RouteKey | null = null;
  /**
   * The guards reached since the last switch, whether their fault was active or not: `name` for
   * has(), `name@route` for on(). A fault whose guard no request reaches changes no answer: the power
   * proof reads them (GET /_control/fault-guards) to know which faults a run can see at all.
   */
  private readonly reachedGuards = new Set<string>();
  /** Each answer names the guards its request reached (header x-vds-fault-guards): POST /_control/fault-guards {"trace": true}. */
  tracing = false;

  /** Throws an Error that says what is wrong for an unknown name or a misplaced route. */
  constructor(spec?: string | null) {
    this.set(spec);
  }

  get active(): FaultName | null {
    return this.current;
  }

  get route(): RouteKey | null {
    return this.currentRoute;
  }

  /** Switches to another fault (or none); a bad spec throws and leaves the active fault as it was. */
  set(spec?: string | null): void {
    const { name, route } = Faults.parse(spec);
    this.current = name;
    this.currentRoute = route;
    this.reachedGuards.clear();
  }

  /** The guards reached since the last switch (see reachedGuards). */
  get reached(): string[] {
    return [...this.reachedGuards].sort();
  }

  private static parse(spec?: string | null): { name: FaultName | null; route: RouteKey | null } {
    if (isNone(spec)) return { name: null, route: null };
    const { name, route } = parseFaultSpec(spec);
    if (!isFaultName(name)) {
      throw new Error(`Unknown fault '${spec}' (valid: ${faultNames().join(', ')})`);
    }
    const routes = faultRoutes(name);
    if (routes.length > 0) {
      if (route === undefined || !(routes as string[]).includes(route)) {
        throw new Error(`Fault '${name}' is put on one route: start it as '${name}@<route>' with a route of ${routes.join(', ')}`);
      }
      return { name, route: route as RouteKey };
    }
    if (route !== undefined) throw new Error(`Fault '${name}' is not per route: start it as '${name}'`);
    return { name, route: null };
  }

  has(name: FaultName): boolean {
    this.reach(name);
    return this.active === name;
  }

  /** A per-route fault, active on this route. */
  on(name: FaultName, route: string): boolean {
    this.reach(`${name}@${route}`);
    return this.active === name && this.route === route;
  }

  private reach(guard: string): void {
    this.reachedGuards.add(guard);
    requestGuards.getStore()?.add(guard);
  }
}

/**
 * The active variants of one app instance (none, one, or several: `a,b,c`). Each variant is one
 * documented choice, so any set of them is still a conforming server: a vendor's implementation
 * differs from the reference in many ways at once.
 */
export class Variants {
  readonly active: ReadonlySet<VariantName>;

  /** Throws an Error naming the valid variants for an unknown name. */
  constructor(spec?: string | null) {
    const names = isNone(spec) ? [] : spec.split(',').map((n) => n.trim());
    for (const name of names) {
      if (!isVariantName(name)) throw new Error(`Unknown variant '${name}' (valid: ${variantNames().join(', ')}; several: a,b,c)`);
    }
    this.active = new Set(names as VariantName[]);
  }

  has(name: VariantName): boolean {
    return this.active.has(name);
  }
}
