// The two switches of one app instance: the active fault (faults.ts) and the active variant
// (variants.ts), each typed so that a misspelt name at a guard (`faults.has('...')`) fails to compile.

import { faultRoutes, parseFaultSpec } from './fault-specs';
import { faultNames, type FaultName, isFaultName } from './faults';
import type { RouteKey } from './route-keys';
import { isVariantName, variantNames, type VariantName } from './variants';

/** The spellings of "no fault" / "no variant": absent, empty or `none` (flags, env vars, app options). */
export function isNone(spec: string | null | undefined): spec is '' | 'none' | null | undefined {
  return spec === undefined || spec === null || spec === '' || spec === 'none';
}

/** The active fault of one app instance (or none). */
export class Faults {
  readonly active: FaultName | null;
  /** The one route a per-route fault is on; null for a plain fault. */
  readonly route: RouteKey | null = null;

  /** Throws an Error that says what is wrong for an unknown name or a misplaced route. */
  constructor(spec?: string | null) {
    if (isNone(spec)) {
      this.active = null;
      return;
    }
    const { name, route } = parseFaultSpec(spec);
    if (!isFaultName(name)) {
      throw new Error(`Unknown fault '${spec}' (valid: ${faultNames().join(', ')})`);
    }
    const routes = faultRoutes(name);
    if (routes.length > 0) {
      if (route === undefined || !(routes as string[]).includes(route)) {
        throw new Error(`Fault '${name}' is put on one route: start it as '${name}@<route>' with a route of ${routes.join(', ')}`);
      }
      this.route = route as RouteKey;
    } else if (route !== undefined) {
      throw new Error(`Fault '${name}' is not per route: start it as '${name}'`);
    }
    this.active = name;
  }

  has(name: FaultName): boolean {
    return this.active === name;
  }

  /** A per-route fault, active on this route. */
  on(name: FaultName, route: string): boolean {
    return this.active === name && this.route === route;
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
