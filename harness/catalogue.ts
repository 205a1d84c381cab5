// Loads the requirement catalogue (contracts/routes.yaml + contracts/requirements.yaml), validates it,
// and resolves which routes each requirement covers. The conformance tests, the certificate and the
// requirements document are all generated from what this module returns.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Scope } from './target';

export type ConformanceClass = 'core' | 'profile';
export type Group = 'users' | 'cars' | 'trips' | 'devices' | 'auth';
export const GROUPS: Group[] = ['users', 'cars', 'trips', 'devices', 'auth'];

export interface Route {
  /** "METHOD /path" exactly as the documents write it: the route's stable id. */
  route: string;
  method: 'GET' | 'POST';
  /** The path without the documented query part, e.g. /devices/{deviceId}/associate */
  path: string;
  /** Query parameters fixed by the route's form, e.g. { carId: '{carId}' } for associate?carId={carId} */
  fixedQuery: Record<string, string>;
  /** Path parameter names in order, e.g. ['carId'] */
  pathParams: string[];
  group: Group;
  scopes: Scope[];
  success: { status: number; contract?: string; contentTypes?: string[] };
  query: string[];
  dates: string[];
  sandboxOpen: boolean;
  /** The documented answer in place of the success when the range holds no data (car statistics). */
  noData?: { status: number; message: string };
  /** Needs no bearer token (the two auth routes). */
  public: boolean;
  cite: string;
}

export interface Requirement {
  id: string;
  class: ConformanceClass;
  title: string;
  cite: string;
  check: string;
  severity: 'critical' | 'major' | 'minor';
  /** Advisory requirements only warn: neither document states the behaviour (profile, rule 3). */
  advisory: boolean;
  per: 'route' | 'scope' | 'once';
  env: Array<'cloud' | 'sandbox'>;
  /** Routes covered, resolved from `where`. */
  routes: string[];
  /** Group whose test file holds the requirement's tests (for per: once). */
  group?: Group;
  /** Everything else of the entry: the check's own parameters (request, expect, values, bodies, ...). */
  params: Record<string, unknown>;
}

export interface PathParamInfo { resource: string; notFound?: string; forbidden?: string }

export interface Catalogue {
  scopes: Scope[];
  routes: Route[];
  requirements: Requirement[];
  pathParams: Record<string, PathParamInfo>;
  queryParameters: Record<string, { meaning: string; cite: string }>;
  route(id: string): Route;
  requirement(id: string): Requirement;
}

/** One generated test: a requirement applied to one route (and scope), or once. */
export interface PlannedCheck {
  requirement: Requirement;
  route?: Route;
  scope?: Scope;
  group: Group;
  /** Unique, stable: used as the test title and as the key in baselines. */
  key: string;
}

export class CatalogueError extends Error {}

const CONTRACTS_DIR = path.resolve(__dirname, '..', 'contracts');
const REQUIREMENT_KEYS = new Set(['id', 'class', 'title', 'cite', 'check', 'severity', 'advisory', 'per', 'env', 'where', 'group']);
const WHERE_KEYS = new Set(['routes', 'exclude', 'method', 'group', 'pathParam', 'query', 'protected', 'sandboxOpen', 'contract', 'dated']);

let cached: Catalogue | undefined;

export function loadCatalogue(dir = CONTRACTS_DIR): Catalogue {
  if (cached && dir === CONTRACTS_DIR) return cached;
  const routesDoc = readYaml(path.join(dir, 'routes.yaml'));
  const reqDoc = readYaml(path.join(dir, 'requirements.yaml'));
  const scopes = routesDoc.scopes as Scope[];
  const pathParams = routesDoc.pathParams as Record<string, PathParamInfo>;
  const routes = (routesDoc.routes as Array<Record<string, any>>).map((r) => parseRoute(r, scopes, pathParams));
  const byRoute = new Map(routes.map((r) => [r.route, r]));
  if (byRoute.size !== routes.length) throw new CatalogueError('routes.yaml: two routes share an id');

  const seen = new Set<string>();
  const requirements = (reqDoc.requirements as Array<Record<string, any>>).map((entry) => {
    const req = parseRequirement(entry, routes, byRoute);
    if (seen.has(req.id)) throw new CatalogueError(`requirements.yaml: duplicate id ${req.id}`);
    seen.add(req.id);
    return req;
  });
  const byId = new Map(requirements.map((r) => [r.id, r]));
  const catalogue: Catalogue = {
    scopes,
    routes,
    requirements,
    pathParams,
    queryParameters: routesDoc.queryParameters,
    route(id) {
      const r = byRoute.get(id);
      if (!r) throw new CatalogueError(`unknown route "${id}"`);
      return r;
    },
    requirement(id) {
      const r = byId.get(id);
      if (!r) throw new CatalogueError(`unknown requirement "${id}"`);
      return r;
    },
  };
  if (dir === CONTRACTS_DIR) cached = catalogue;
  return catalogue;
}

/** The path parameter naming the route's resource: the last id of the path (/users/{userId}/cars -> userId). */
export function resourceParam(route: Route): string {
  const param = [...route.pathParams].reverse().find((p) => p !== 'deviceId') ?? route.pathParams[0];
  if (!param) throw new Error(`${route.route} has no id in its path`);
  return param;
}

/** Every test the catalogue calls for, in catalogue order. */
export function planChecks(catalogue: Catalogue): PlannedCheck[] {
  const planned: PlannedCheck[] = [];
  for (const requirement of catalogue.requirements) {
    const covered = requirement.routes.map((id) => catalogue.route(id));
    if (requirement.per === 'once') {
      planned.push({ requirement, group: requirement.group ?? covered[0].group, key: requirement.id });
      continue;
    }
    for (const route of covered) {
      if (requirement.per === 'scope') {
        for (const scope of route.scopes) {
          planned.push({ requirement, route, scope, group: route.group, key: `${requirement.id} ${route.route} [${scope}]` });
        }
      } else {
        planned.push({ requirement, route, group: route.group, key: `${requirement.id} ${route.route}` });
      }
    }
  }
  return planned;
}

function readYaml(file: string): Record<string, any> {
  try {
    return YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CatalogueError(`${path.basename(file)}: ${(err as Error).message.split('\n')[0]}`);
  }
}

function parseRoute(r: Record<string, any>, scopes: Scope[], pathParams: Record<string, PathParamInfo>): Route {
  const match = /^(GET|POST) (\/[^?\s]*)(?:\?(.*))?$/.exec(String(r.route));
  if (!match) throw new CatalogueError(`routes.yaml: route "${r.route}" is not "METHOD /path"`);
  const [, method, routePath, queryPart] = match;
  const fixedQuery = Object.fromEntries(new URLSearchParams(queryPart ?? '').entries());
  const params = [...routePath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  for (const p of params) {
    if (!pathParams[p]) throw new CatalogueError(`routes.yaml: ${r.route} uses {${p}}, which pathParams does not describe`);
  }
  for (const s of r.scopes ?? []) {
    if (!scopes.includes(s)) throw new CatalogueError(`routes.yaml: ${r.route} needs unknown scope ${s}`);
  }
  if (!r.success?.status) throw new CatalogueError(`routes.yaml: ${r.route} has no success status`);
  return {
    route: r.route,
    method: method as Route['method'],
    path: routePath,
    fixedQuery,
    pathParams: params,
    group: r.group,
    scopes: r.scopes ?? [],
    success: r.success,
    query: r.query ?? [],
    dates: r.dates ?? [],
    sandboxOpen: r.sandboxOpen === true,
    noData: r.noData,
    public: r.public === true,
    cite: r.cite,
  };
}

function parseRequirement(e: Record<string, any>, routes: Route[], byRoute: Map<string, Route>): Requirement {
  const where = `requirements.yaml: ${e.id ?? '(entry without id)'}`;
  for (const key of ['id', 'class', 'title', 'cite', 'check', 'where']) {
    if (e[key] === undefined) throw new CatalogueError(`${where}: missing "${key}"`);
  }
  if (!/^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/.test(e.id)) throw new CatalogueError(`${where}: id must look like AREA-THING`);
  if (e.class !== 'core' && e.class !== 'profile') throw new CatalogueError(`${where}: class must be core or profile`);
  for (const key of Object.keys(e.where)) {
    if (!WHERE_KEYS.has(key)) throw new CatalogueError(`${where}: unknown selector "where.${key}"`);
  }
  for (const id of [...(e.where.routes ?? []), ...(e.where.exclude ?? [])]) {
    if (!byRoute.has(id)) throw new CatalogueError(`${where}: unknown route "${id}"`);
  }
  const covered = routes.filter((r) => selects(e.where, r)).map((r) => r.route);
  if (covered.length === 0) throw new CatalogueError(`${where}: "where" selects no route`);
  const params = Object.fromEntries(Object.entries(e).filter(([k]) => !REQUIREMENT_KEYS.has(k)));
  const envs = e.env ? [e.env] : ['cloud', 'sandbox'];
  return {
    id: e.id,
    class: e.class,
    title: e.title,
    cite: e.cite,
    check: e.check,
    severity: e.severity ?? 'major',
    advisory: e.advisory === true,
    per: e.per ?? 'route',
    env: envs,
    routes: covered,
    group: e.group,
    params,
  };
}

function selects(w: Record<string, any>, r: Route): boolean {
  const anyOf = (v: unknown, test: (x: any) => boolean) => (Array.isArray(v) ? v.some(test) : test(v));
  if (w.routes && !w.routes.includes(r.route)) return false;
  if (w.exclude?.includes(r.route)) return false;
  if (w.method && !anyOf(w.method, (m) => r.method === m)) return false;
  if (w.group && !anyOf(w.group, (g) => r.group === g)) return false;
  if (w.pathParam && !anyOf(w.pathParam, (p) => r.pathParams.includes(p))) return false;
  if (w.query && !anyOf(w.query, (q) => r.query.includes(q))) return false;
  if (w.protected !== undefined && (r.scopes.length > 0 && !r.public) !== w.protected) return false;
  if (w.sandboxOpen !== undefined && r.sandboxOpen !== w.sandboxOpen) return false;
  if (w.contract !== undefined && Boolean(r.success.contract) !== w.contract) return false;
  if (w.dated !== undefined && (r.dates.length > 0) !== w.dated) return false;
  return true;
}
