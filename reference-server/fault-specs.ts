// Fault specs: the string that starts a fault, a plain fault's name or a per-route fault's
// `name@<route key>` (faults.ts), as the command line, the app options and the mutation run take it.

import { faultInfo, type FaultFamily, type FaultName, FAULTS, isFaultName } from './faults';
import { isReadById, ROUTE_SCOPES, type RouteKey } from './route-keys';

/** A fault spec split into its name and, for a per-route fault, its route (not validated). */
export function parseFaultSpec(spec: string): { name: string; route?: string } {
  const at = spec.indexOf('@');
  return at < 0 ? { name: spec } : { name: spec.slice(0, at), route: spec.slice(at + 1) };
}

/** The mode a run must use to see a fault (a per-route fault's spec `name@route` works too). */
export function faultMode(spec: string): 'cloud' | 'sandbox' {
  const { name } = parseFaultSpec(spec);
  return (isFaultName(name) && faultInfo(name).mode) || 'cloud';
}

/** The routes a per-route fault can be put on, in the profile's order; [] for the others. */
export function faultRoutes(name: FaultName): RouteKey[] {
  const { routes } = faultInfo(name);
  const keys = Object.keys(ROUTE_SCOPES) as RouteKey[];
  if (routes === 'all') return keys;
  if (routes === 'get') return keys.filter((k) => k.startsWith('GET '));
  return routes === 'by-id' ? keys.filter(isReadById) : [];
}

/**
 * Every fault a run can start: each plain fault, and each per-route fault on each of its routes
 * (with `firstRouteOnly`, on its first route: one instance per kind of defect).
 */
export function faultSpecs(options: { firstRouteOnly?: boolean } = {}): string[] {
  return FAULTS.flatMap((f) => {
    if (!faultInfo(f.name).routes) return [f.name];
    const routes = faultRoutes(f.name);
    return (options.firstRouteOnly ? routes.slice(0, 1) : routes).map((r) => `${f.name}@${r}`);
  });
}

/** The family of a fault spec (plain name or `name@route`). */
export function faultFamily(spec: string): FaultFamily {
  const { name } = parseFaultSpec(spec);
  if (!isFaultName(name)) throw new Error(`Unknown fault '${spec}'`);
  return faultInfo(name).family;
}
