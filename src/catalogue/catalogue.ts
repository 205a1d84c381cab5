// Loads the requirement catalogue (contracts/routes.yaml + contracts/requirements.yaml, traced to
// contracts/statements.yaml), validates it, and resolves which routes each requirement covers. The
// conformance tests, the certificate and the requirements document are all generated from what this
// module returns.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import YAML from 'yaml';
import type { Scope } from './scopes';
import { cachedParse } from '../util/parsed-cache';
import { SUITE_ROOT } from '../util/suite-info';

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
  /** The documented request body: its contract and content type (default application/json). */
  body?: { contract: string; contentType?: string };
  /** basic: the application's credentials by HTTP Basic (the token endpoint), not a bearer token. */
  clientAuth?: 'basic';
  /** Documented answers besides the success that no requirement's `expect` describes (the legacy body, an HTML page). */
  errors?: RouteError[];
  /** Needs no bearer token (the two auth routes). */
  public: boolean;
  /** The spec's Purpose column for the route, quoted. */
  purpose: string;
  cite: string;
  /** The records (schemas) its success is made of: its contract and every schema that one refers to. */
  records: string[];
}

/** A documented answer of routes.yaml `errors`: the error array's type and message, or another body (its contract, its content type). */
export interface RouteError {
  status: number;
  type?: string;
  message?: string;
  contract?: string;
  contentTypes?: string[];
  /** The condition the document names. */
  when: string;
  cite: string;
}

/** One of the profile's query parameters (routes.yaml queryParameters). */
interface QueryParameter {
  meaning: string;
  cite: string;
  /** The profile requirement that judges a refusal of it. */
  judgedBy: string;
  /** The JSON Schema of its value (a $ref names a contract's definition). */
  schema?: Record<string, unknown>;
  /** false: a list written as one comma-separated value. */
  explode?: boolean;
  required?: boolean;
}

/** The document a statement is quoted from: the spec (core) or the profile. */
export type StatementSource = 'spec' | 'profile';

/** What a statement speaks of, unit by unit: each route it selects, or each route and scope, or each route and kind of error. */
interface About {
  /** The routes, selected by their facts in routes.yaml, as a requirement's `where` selects them. */
  where: Record<string, unknown>;
  /** route: one unit per route; scope: per route and each scope it needs; error: per route and each error status the catalogue provokes there. */
  per: 'route' | 'scope' | 'error';
}

/** One statement of the spec or the profile (contracts/statements.yaml). */
export interface Statement {
  id: string;
  source: StatementSource;
  section: string;
  text: string;
  /** What it speaks of: it is covered unit by unit (coverageOf). */
  about?: About;
  /** Why no check can fail a server that breaks it; such a statement covers nothing. */
  untestable?: string;
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
  /** Routes it judges, resolved from `where`: a check of it fails on what these routes answer. */
  routes: string[];
  /**
   * Routes a once-check only reads to arrange or find what it judges (the user's id, a created car's
   * listing): they never count as covered by it.
   */
  reads: string[];
  /** Judges the error answers every other (non-advisory) check of its group receives on its routes (CORE-ERROR-BODY). */
  judgesErrorsSeen: boolean;
  /** Group whose test file holds the requirement's tests (for per: once). */
  group?: Group;
  /**
   * A device check that writes, in a lane of its own (engine/schedule.ts): `second`, the devices' second
   * write lane when the target gives a second device for association by car (setup/device-pair.ts);
   * `lockable-device`, the pin attempts on data.lockableDeviceId, which no other check touches.
   */
  lane?: 'second' | 'lockable-device';
  /**
   * What its checks need of a target besides what its routes imply (contracts/inputs.yaml: a second
   * user's token, a browser, a device, ...): src/catalogue/needs.ts adds the rest.
   */
  needs: string[];
  /** The statements of the documents it tests (contracts/statements.yaml). */
  statements: string[];
  /** The suite's decisions it rests on where neither document decides (contracts/decisions.yaml). */
  decisions: string[];
  /** Everything else of the entry: the check's own parameters (request, expect, values, bodies, ...). */
  params: Record<string, unknown>;
}

interface PathParamInfo {
  resource: string;
  notFound?: string;
  forbidden?: string;
}

/**
 * A decision of the suite (contracts/decisions.yaml): where neither document decides what a server
 * must do and a check asks it all the same, what the documents say and what the suite decided, with
 * what it rests on, in the profile's style (v3-profile.md § Conflicts and decisions).
 */
interface Decision {
  id: string;
  point: string;
  documents: string;
  decision: string;
}

export interface Catalogue {
  scopes: Scope[];
  routes: Route[];
  requirements: Requirement[];
  statements: Statement[];
  decisions: Decision[];
  pathParams: Record<string, PathParamInfo>;
  /** The profile's query parameters: meaning, citation, and the profile requirement that judges a refusal of them. */
  queryParameters: Record<string, QueryParameter>;
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

class CatalogueError extends Error {}

const CONTRACTS_DIR = path.join(SUITE_ROOT, 'contracts');
const REQUIREMENT_KEYS = new Set([
  'id',
  'class',
  'title',
  'cite',
  'statements',
  'check',
  'severity',
  'advisory',
  'per',
  'env',
  'where',
  'reads',
  'judges',
  'group',
  'lane',
  'needs',
  'decisions',
]);
const STATEMENT_KEYS = new Set(['id', 'section', 'text', 'about', 'untestable']);
const ABOUT_KEYS = new Set(['where', 'per']);
/** Which document a statement id names: S- the spec, P- the profile. */
const STATEMENT_PREFIX: Record<StatementSource, string> = { spec: 'S-', profile: 'P-' };
const WHERE_KEYS = new Set(['routes', 'exclude', 'method', 'group', 'pathParam', 'query', 'protected', 'sandboxOpen', 'contract', 'record', 'dated']);

let cached: Catalogue | undefined;

export function loadCatalogue(dir = CONTRACTS_DIR): Catalogue {
  if (cached && dir === CONTRACTS_DIR) return cached;
  // The three documents parsed, requirements.yaml checked against its schema: kept between runs (parsed-cache.ts).
  const files = ['routes.yaml', 'requirements.yaml', 'statements.yaml', 'requirements.schema.yaml', 'decisions.yaml'].map((f) => path.join(dir, f));
  const [routesDoc, reqDoc, statementsDoc, decisionsDoc] = cachedParse(files, (texts) => {
    const docs = texts.slice(0, 3).map((text, i) => parseYaml(text, files[i]));
    checkAgainstSchema(docs[1], files[3], texts[3]);
    // decisions.yaml is optional (a catalogue whose checks ask nothing the documents leave open).
    return [...docs, texts[4] ? parseYaml(texts[4], files[4]) : {}];
  });
  const scopes = routesDoc.scopes as Scope[];
  const pathParams = routesDoc.pathParams as Record<string, PathParamInfo>;
  const records = recordsUsed(path.join(dir, 'schemas'));
  const queryParameters = (routesDoc.queryParameters ?? {}) as Record<string, QueryParameter>;
  const routes = (routesDoc.routes as Array<Record<string, any>>).map((r) => parseRoute(r, scopes, pathParams, queryParameters, records));
  const byRoute = new Map(routes.map((r) => [r.route, r]));
  if (byRoute.size !== routes.length) throw new CatalogueError('routes.yaml: two routes share an id');
  const statements = parseStatements(statementsDoc, routes, byRoute);
  const statementsById = new Map(statements.map((st) => [st.id, st]));
  const decisions = parseDecisions(decisionsDoc);
  const decisionIds = new Set(decisions.map((d) => d.id));

  const seen = new Set<string>();
  const requirements = (reqDoc.requirements as Array<Record<string, any>>).map((entry) => {
    const req = parseRequirement(entry, routes, byRoute);
    if (seen.has(req.id)) throw new CatalogueError(`requirements.yaml: duplicate id ${req.id}`);
    checkStatements(req, statementsById);
    for (const id of req.decisions)
      if (!decisionIds.has(id)) throw new CatalogueError(`requirements.yaml: ${req.id}: unknown decision ${id} (contracts/decisions.yaml)`);
    // The spec alone decides a core requirement: a decision of the suite is the profile class's.
    if (req.class === 'core' && req.decisions.length)
      throw new CatalogueError(`requirements.yaml: ${req.id}: a core requirement rests on the spec alone, never on a decision of the suite`);
    seen.add(req.id);
    return req;
  });
  const byId = new Map(requirements.map((r) => [r.id, r]));
  for (const [name, q] of Object.entries(queryParameters)) {
    if (!q.judgedBy || !byId.has(q.judgedBy)) throw new CatalogueError(`routes.yaml: query parameter ${name} names no known requirement in "judgedBy"`);
  }
  const catalogue: Catalogue = {
    scopes,
    routes,
    requirements,
    statements,
    decisions,
    pathParams,
    queryParameters,
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

/**
 * requirements.yaml against its schema (contracts/requirements.schema.yaml: every key, and each check
 * procedure's parameters typed): a misspelt or unknown key, or a parameter of the wrong type, stops the
 * catalogue with a message naming the requirement and the key.
 */
function checkAgainstSchema(doc: Record<string, any>, schemaFile: string, schemaText: string): void {
  if (!fs.existsSync(schemaFile)) return;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(YAML.parse(schemaText));
  if (validate(doc)) return;
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if');
  // An unknown key first (its propertyNames error names it), else the first mistake.
  const unknownKey = errors.find((e) => e.propertyName !== undefined);
  throw new CatalogueError(`requirements.yaml: ${describeSchemaError(doc, unknownKey ?? errors[0])} (contracts/requirements.schema.yaml)`);
}

function describeSchemaError(doc: Record<string, any>, e: ErrorObject | undefined): string {
  if (!e) return 'does not follow its schema';
  const index = /^\/requirements\/(\d+)/.exec(e.instancePath)?.[1];
  const entry = index === undefined ? undefined : doc.requirements?.[Number(index)];
  const who = entry?.id ?? (index === undefined ? 'the file' : `requirement #${Number(index) + 1}`);
  if (e.propertyName !== undefined) return `${who}: "${e.propertyName}" is not a key of a requirement of check ${entry?.check ?? '?'}`;
  return `${who}: ${e.instancePath.replace(/^\/requirements\/\d+\/?/, '') || '(the entry)'} ${e.message ?? 'does not follow its schema'}`;
}

/**
 * The route's path and fixed query with their parameters filled in (`valueOf`: a parameter's value,
 * undefined when there is none): the path's values percent-encoded, the query's as they are (the HTTP
 * client encodes a query). Undefined when a parameter has no value.
 */
export function fillRoute(
  route: Pick<Route, 'path' | 'fixedQuery'>,
  valueOf: (name: string) => string | undefined,
): { path: string; query: Record<string, string> } | undefined {
  let missing = false;
  const fill = (template: string, encode: boolean) =>
    template.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = valueOf(name);
      if (value === undefined) missing = true;
      return encode ? encodeURIComponent(value ?? '') : (value ?? '');
    });
  const path = fill(route.path, true);
  const query = Object.fromEntries(Object.entries(route.fixedQuery).map(([k, v]) => [k, fill(v, false)]));
  return missing ? undefined : { path, query };
}

/** The run's id of another user's resource, by the path parameter naming it (the second user's user, car, trip). */
export const OTHER_ID: Readonly<Record<string, 'otherUserId' | 'otherCarId' | 'otherTripId'>> = {
  userId: 'otherUserId',
  carId: 'otherCarId',
  tripId: 'otherTripId',
};

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

function parseYaml(text: string, file: string): Record<string, any> {
  if (!fs.existsSync(file)) throw new CatalogueError(`${path.basename(file)}: not found in ${path.dirname(file)}`);
  try {
    return YAML.parse(text);
  } catch (err) {
    throw new CatalogueError(`${path.basename(file)}: ${(err as Error).message.split('\n')[0]}`);
  }
}

/**
 * The records each contract is made of: its own schema and every schema it refers to, transitively
 * (contracts/schemas: trip refers to tripSummary, which refers to location). A statement about a
 * record speaks of every route answering it (`where: { record: location }`).
 */
function recordsUsed(schemasDir: string): Map<string, Set<string>> {
  const refs = new Map<string, Set<string>>();
  if (!fs.existsSync(schemasDir)) return new Map();
  for (const file of fs.readdirSync(schemasDir).filter((f) => f.endsWith('.yaml'))) {
    const text = fs.readFileSync(path.join(schemasDir, file), 'utf8');
    refs.set(file.replace(/\.yaml$/, ''), new Set([...text.matchAll(/\$ref:\s*"?([A-Za-z0-9]+)\.yaml/g)].map((m) => m[1])));
  }
  const closure = new Map<string, Set<string>>();
  const walk = (name: string, into: Set<string>) => {
    if (into.has(name)) return;
    into.add(name);
    for (const next of refs.get(name) ?? []) walk(next, into);
  };
  for (const name of refs.keys()) {
    const all = new Set<string>();
    walk(name, all);
    closure.set(name, all);
  }
  return closure;
}

function parseRoute(
  r: Record<string, any>,
  scopes: Scope[],
  pathParams: Record<string, PathParamInfo>,
  queryParameters: Record<string, QueryParameter>,
  records: Map<string, Set<string>>,
): Route {
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
  if (typeof r.purpose !== 'string' || !r.purpose) throw new CatalogueError(`routes.yaml: ${r.route} has no purpose (the spec's Purpose column)`);
  for (const q of r.query ?? []) {
    if (!queryParameters[q]) throw new CatalogueError(`routes.yaml: ${r.route} takes query parameter ${q}, which queryParameters does not describe`);
  }
  for (const contract of [r.body?.contract, ...(r.errors ?? []).map((e: RouteError) => e.contract)].filter(Boolean)) {
    if (!records.has(contract)) throw new CatalogueError(`routes.yaml: ${r.route} names contract ${contract}, which contracts/schemas does not hold`);
  }
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
    ...(r.body ? { body: r.body } : {}),
    ...(r.clientAuth ? { clientAuth: r.clientAuth } : {}),
    ...(r.errors ? { errors: r.errors } : {}),
    public: r.public === true,
    purpose: r.purpose,
    cite: r.cite,
    records: [...(r.success?.contract ? (records.get(String(r.success.contract).replace(/\[\]$/, '')) ?? []) : [])].sort(),
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
  const reads = e.reads === undefined ? [] : e.reads;
  if (!Array.isArray(reads)) throw new CatalogueError(`${where}: "reads" lists routes`);
  if (reads.length && e.per !== 'once') throw new CatalogueError(`${where}: only a check made once reads routes besides those it judges`);
  for (const id of reads) {
    if (!byRoute.has(id)) throw new CatalogueError(`${where}: reads unknown route "${id}"`);
    if (covered.includes(id)) throw new CatalogueError(`${where}: "${id}" is both judged (where) and only read (reads)`);
  }
  if (e.judges !== undefined && e.judges !== 'errors-seen') throw new CatalogueError(`${where}: "judges" can only be errors-seen`);
  if (e.lane !== undefined && (!['second', 'lockable-device'].includes(e.lane) || e.per !== 'once' || e.group !== 'devices'))
    throw new CatalogueError(`${where}: "lane" can only be second or lockable-device, on a device check made once (per: once, group: devices)`);
  // A decision of the suite is the profile class's: core asserts only what the spec states.
  if (e.decision !== undefined && e.class !== 'profile') throw new CatalogueError(`${where}: only a profile requirement rests on a decision of the suite`);
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
    reads: reads.map(String),
    judgesErrorsSeen: e.judges === 'errors-seen',
    group: e.group,
    ...(e.lane ? { lane: e.lane } : {}),
    needs: Array.isArray(e.needs) ? e.needs.map(String) : [],
    statements: Array.isArray(e.statements) ? e.statements.map(String) : [],
    decisions: Array.isArray(e.decisions) ? e.decisions.map(String) : [],
    params,
  };
}

const DECISION_KEYS = ['id', 'point', 'documents', 'decision'];

/** contracts/decisions.yaml: each entry complete, its id D-THING and unique. */
function parseDecisions(doc: Record<string, any>): Decision[] {
  const list = (doc.decisions ?? []) as Array<Record<string, any>>;
  const out: Decision[] = [];
  for (const e of list) {
    const where = `decisions.yaml: ${e.id ?? '(entry without id)'}`;
    for (const key of Object.keys(e)) if (!DECISION_KEYS.includes(key)) throw new CatalogueError(`${where}: unknown key "${key}"`);
    for (const key of DECISION_KEYS) if (typeof e[key] !== 'string' || !e[key]) throw new CatalogueError(`${where}: missing "${key}"`);
    if (!/^D(-[A-Z0-9]+)+$/.test(e.id)) throw new CatalogueError(`${where}: a decision's id looks like D-THING`);
    if (out.some((d) => d.id === e.id)) throw new CatalogueError(`${where}: duplicate id`);
    out.push({ id: e.id, point: e.point, documents: e.documents, decision: e.decision });
  }
  return out;
}

function parseStatements(doc: Record<string, any>, routes: Route[], byRoute: Map<string, Route>): Statement[] {
  const out: Statement[] = [];
  for (const source of ['spec', 'profile'] as const) {
    const list = doc[source];
    if (!Array.isArray(list) || list.length === 0) throw new CatalogueError(`statements.yaml: "${source}" lists no statement`);
    for (const e of list as Array<Record<string, any>>) {
      const where = `statements.yaml: ${e.id ?? '(entry without id)'}`;
      for (const key of Object.keys(e)) if (!STATEMENT_KEYS.has(key)) throw new CatalogueError(`${where}: unknown key "${key}"`);
      for (const key of ['id', 'section', 'text']) if (typeof e[key] !== 'string' || !e[key]) throw new CatalogueError(`${where}: missing "${key}"`);
      if (!String(e.id).startsWith(STATEMENT_PREFIX[source]) || !/^[SP](-[A-Z0-9]+)+$/.test(e.id)) {
        throw new CatalogueError(`${where}: a ${source} statement's id looks like ${STATEMENT_PREFIX[source]}THING`);
      }
      if (out.some((s) => s.id === e.id)) throw new CatalogueError(`${where}: duplicate id`);
      const about = e.about === undefined ? undefined : parseAbout(e.about, where, routes, byRoute);
      if (about && e.untestable) throw new CatalogueError(`${where}: an untestable statement speaks of nothing a check covers (drop "about")`);
      if (!about && !e.untestable) throw new CatalogueError(`${where}: missing "about" (the routes it speaks of), or "untestable" (why no check can fail it)`);
      out.push({
        id: e.id,
        source,
        section: e.section,
        text: e.text,
        ...(about ? { about } : {}),
        ...(e.untestable ? { untestable: String(e.untestable) } : {}),
      });
    }
  }
  return out;
}

function parseAbout(a: unknown, where: string, routes: Route[], byRoute: Map<string, Route>): About {
  if (!a || typeof a !== 'object' || Array.isArray(a)) throw new CatalogueError(`${where}: "about" is { where: {...}, per: route | scope | error }`);
  const about = a as Record<string, any>;
  for (const key of Object.keys(about)) if (!ABOUT_KEYS.has(key)) throw new CatalogueError(`${where}: unknown key "about.${key}"`);
  const per = about.per ?? 'route';
  if (!['route', 'scope', 'error'].includes(per)) throw new CatalogueError(`${where}: "about.per" is route, scope or error`);
  const w = about.where ?? {};
  if (typeof w !== 'object' || Array.isArray(w)) throw new CatalogueError(`${where}: "about.where" selects routes by their facts`);
  for (const key of Object.keys(w)) if (!WHERE_KEYS.has(key)) throw new CatalogueError(`${where}: unknown selector "about.where.${key}"`);
  for (const id of [...(w.routes ?? []), ...(w.exclude ?? [])]) if (!byRoute.has(id)) throw new CatalogueError(`${where}: unknown route "${id}"`);
  if (!routes.some((r) => selects(w, r))) throw new CatalogueError(`${where}: "about.where" selects no route`);
  return { where: w, per };
}

/**
 * A requirement names the statements it tests: known ones that a check can break (not `untestable`,
 * but for an advisory requirement, which only warns, naming the rule that lets it warn);
 * a core requirement at least one of the spec's, a profile requirement at least one of the profile's
 * and none of the spec's (a spec statement is the core class's: v3-profile.md, rules of precedence).
 */
function checkStatements(req: Requirement, byId: Map<string, Statement>): void {
  const where = `requirements.yaml: ${req.id}`;
  if (req.statements.length === 0) throw new CatalogueError(`${where}: missing "statements" (the statements of contracts/statements.yaml it tests)`);
  for (const id of req.statements) {
    const st = byId.get(id);
    if (!st) throw new CatalogueError(`${where}: unknown statement ${id}`);
    // An advisory requirement only warns: it may name the rule that lets it (P-RULE-WARN), which no check can fail a server on.
    if (st.untestable && !req.advisory) throw new CatalogueError(`${where}: ${id} is marked untestable in statements.yaml (${st.untestable})`);
  }
  const sources = req.statements.map((id) => byId.get(id)!.source);
  if (req.class === 'core' && !sources.includes('spec')) throw new CatalogueError(`${where}: a core requirement tests at least one statement of the spec (S-)`);
  if (req.class === 'profile' && (!sources.includes('profile') || sources.includes('spec'))) {
    throw new CatalogueError(`${where}: a profile requirement tests statements of the profile (P-), never of the spec (those are core)`);
  }
}

/** Why a requirement's checks do not apply to a target of another environment (a sandbox-only requirement on a cloud target). */
export function notApplicableReason(r: Pick<Requirement, 'env'>, targetEnv: string): string {
  return `applies to ${r.env.join(' and ')} targets; this target is ${targetEnv}`;
}

/** The error statuses a requirement's checks provoke on the routes it judges: its documented answer (`expect.status`), or `provokes`. */
export function provokedStatuses(r: Requirement): number[] {
  const statuses = [(r.params.expect as { status?: unknown } | undefined)?.status, r.params.provokes].flat();
  return [...new Set(statuses.filter((s): s is number => typeof s === 'number' && s >= 400))].sort();
}

/** The non-advisory requirements that provoke this error status on this route (they judge it). */
export function errorProvokers(catalogue: Catalogue, route: string, status: number): Requirement[] {
  return catalogue.requirements.filter((r) => !r.advisory && !r.judgesErrorsSeen && r.routes.includes(route) && provokedStatuses(r).includes(status));
}

/** The error statuses the catalogue's non-advisory requirements provoke on a route they judge. */
export function errorStatusesOf(catalogue: Catalogue, route: string): number[] {
  const statuses = catalogue.requirements.filter((r) => !r.advisory && r.routes.includes(route)).flatMap(provokedStatuses);
  return [...new Set(statuses)].sort();
}

/** Whether a `where` (a requirement's, a statement's `about`) selects the route. */
export function selects(w: Record<string, any>, r: Route): boolean {
  const anyOf = (v: unknown, test: (x: any) => boolean) => (Array.isArray(v) ? v.some(test) : test(v));
  if (w.routes && !w.routes.includes(r.route)) return false;
  if (w.exclude?.includes(r.route)) return false;
  if (w.method && !anyOf(w.method, (m) => r.method === m)) return false;
  if (w.group && !anyOf(w.group, (g) => r.group === g)) return false;
  if (w.pathParam && !anyOf(w.pathParam, (p) => r.pathParams.includes(p))) return false;
  if (w.query && !anyOf(w.query, (q) => r.query.includes(q))) return false;
  if (w.protected !== undefined && (r.scopes.length > 0 && !r.public) !== w.protected) return false;
  if (w.sandboxOpen !== undefined && r.sandboxOpen !== w.sandboxOpen) return false;
  if (typeof w.contract === 'boolean' && Boolean(r.success.contract) !== w.contract) return false;
  if (w.contract !== undefined && typeof w.contract !== 'boolean' && !anyOf(w.contract, (c) => r.success.contract === c)) return false;
  if (w.record && !anyOf(w.record, (name) => r.records.includes(name))) return false;
  if (w.dated !== undefined && r.dates.length > 0 !== w.dated) return false;
  return true;
}
