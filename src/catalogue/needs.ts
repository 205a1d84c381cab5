// What each planned check needs from a target besides the API (contracts/inputs.yaml names each input
// and how a vendor gets it): the inputs its requirement's routes imply, and those the requirement names
// under `needs` in requirements.yaml. Known before anything is sent, so that `init` and `--certify` can
// say what a target cannot run and why (src/setup/readiness.ts). A test runs the suite and holds every
// input a check asks for (check-api's CheckContext.asked) to these (tests/self/suite/readiness.test.ts).
//   - a route with a token (protected): tokens.full, unless an error case sends its own credential;
//     an error case's token (request.token, variants), `@token` in its Authorization (tokens.full);
//   - per scope: tokens.withoutScope.<scope>;
//   - the ids its route's parameters take (route.ts idFor): data.userId, data.carId, ... on the device
//     routes data.deviceForCarId / data.freeDeviceId, data.deviceCarId, data.devicePin; an error case's
//     replaced id names data.other<...>Id instead (id: other), or none (malformed-device, beyond-32-bits);
//     a check made once: the ids of the routes it judges and reads (on data.lockableDeviceId alone for
//     the pin attempts' lane);
//   - writes: a route that writes (POST /users..., POST /devices...).
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { SUITE_ROOT } from '../util/suite-info';
import { OTHER_ID, type Catalogue, type PlannedCheck, type Route } from './catalogue';

/** An input a check may need (contracts/inputs.yaml), or a token without one scope: tokens.withoutScope.<scope>. */
export type Need = string;

export interface InputInfo {
  what: string;
  how: string;
}

/** An input a target lacks (src/setup/readiness.ts), or that stopped checks of a run (their `missing`). */
export interface ReadinessItem {
  /** The input, as contracts/inputs.yaml names it. */
  input: string;
  /** Why the target lacks it: the words its checks' "not run" reasons use. */
  why: string;
  /** How a vendor gets it (contracts/inputs.yaml). */
  how: string;
  /** The requirements it keeps from running, with how many of their checks. */
  requirements: Array<{ id: string; class: 'core' | 'profile'; checks: number }>;
}

/** What a target cannot run, before anything is sent. */
export interface Readiness {
  /** The target file. */
  target: string;
  items: ReadinessItem[];
  /** The checks (of counted requirements) that cannot run, and their requirements. */
  checks: number;
  requirements: number;
}

/** The ids of the run each route parameter takes by default (check-api's CheckContext.idFor). */
const ID_OF: Record<string, string> = { userId: 'userId', carId: 'carId', tripId: 'tripId', pin: 'devicePin' };

let inputs: Record<string, InputInfo> | undefined;

/** contracts/inputs.yaml: each input, what it is and how a vendor gets it. */
export function inputInfo(): Record<string, InputInfo> {
  inputs ??= (YAML.parse(fs.readFileSync(path.join(SUITE_ROOT, 'contracts', 'inputs.yaml'), 'utf8')) as { inputs: Record<string, InputInfo> }).inputs;
  return inputs;
}

/** The entry of contracts/inputs.yaml an input is described by (the withoutScope tokens share one). */
export function inputOf(need: Need): string {
  return need.startsWith('tokens.withoutScope.') ? 'tokens.withoutScope' : need;
}

/** A route writes: car creation and the device routes (engine/schedule.ts runs them in lanes). */
export function writesTo(route: string): boolean {
  return route.startsWith('POST /users') || route.startsWith('POST /devices');
}

/** What a planned check needs of a target (the header). */
export function checkNeeds(p: PlannedCheck, catalogue: Catalogue): Need[] {
  const r = p.requirement;
  const needs = new Set<Need>(r.needs);
  if (p.route) {
    const route = p.route;
    if (writesTo(route.route)) needs.add('writes');
    if (p.scope) needs.add(`tokens.withoutScope.${p.scope}`);
    const variants = errorCaseVariants(p);
    if (!variants) {
      if (!route.public && !p.scope) needs.add('tokens.full');
      for (const id of routeIds(route)) needs.add(id);
    }
    for (const v of variants ?? []) {
      if (v.auth?.includes('@token')) needs.add('tokens.full');
      // "@others": every token the run holds but full, as many as it has: none is needed.
      if (v.token === '@others') continue;
      if (v.token) needs.add(`tokens.${v.token.replace('@routeScope', route.scopes[0] ?? '').replace('@scope', p.scope ?? '')}`);
      else if (v.auth === undefined && !route.public) needs.add('tokens.full');
      const replaced = v.id === 'malformed-device' ? 'deviceId' : v.id === 'beyond-32-bits' || v.id === 'other' ? resourceOf(route) : undefined;
      for (const id of routeIds(route, replaced)) needs.add(id);
      if (v.id === 'other') needs.add(`data.${OTHER_ID[resourceOf(route)]}`);
    }
    return [...needs];
  }
  const routes = [...r.routes, ...r.reads].map((id) => catalogue.route(id));
  if (routes.some((route) => writesTo(route.route))) needs.add('writes');
  if (routes.some((route) => !route.public)) needs.add('tokens.full');
  for (const route of routes) {
    for (const id of routeIds(route)) {
      // The pin attempts' lane touches data.lockableDeviceId alone (checks/pin-attempts.ts).
      if (r.lane === 'lockable-device' && (id === 'data.freeDeviceId' || id === 'data.devicePin')) continue;
      needs.add(id);
    }
  }
  if (r.lane === 'lockable-device') needs.add('data.lockableDeviceId');
  return [...needs];
}

/** An error case's requests (error-case.ts): its variants, or its one request; undefined for another procedure. */
type Variant = { id?: string; auth?: string; token?: string; ifQuery?: string };

function errorCaseVariants(p: PlannedCheck): Variant[] | undefined {
  if (p.requirement.check !== 'error-case') return undefined;
  const params = p.requirement.params as { variants?: Variant[]; request?: Variant };
  const all = params.variants ?? [params.request ?? {}];
  return all.filter((v) => !v.ifQuery || p.route!.query.includes(v.ifQuery));
}

/** The route's resource id (catalogue resourceParam), or undefined when it has none. */
function resourceOf(route: Route): string {
  return [...route.pathParams].reverse().find((name) => name !== 'deviceId') ?? route.pathParams[0];
}

/** The data keys a route's parameters take by default (check-api's idFor), but `replaced`. */
function routeIds(route: Route, replaced?: string): Need[] {
  const params = [...route.pathParams, ...Object.values(route.fixedQuery).flatMap((v) => [...v.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))];
  return params
    .filter((name) => name !== replaced)
    .map((name) => {
      if (name === 'deviceId') return 'pin' in route.fixedQuery ? 'data.freeDeviceId' : 'data.deviceForCarId';
      if (name === 'carId' && route.group === 'devices') return 'data.deviceCarId';
      return `data.${ID_OF[name] ?? name}`;
    });
}
