// `npm run openapi`: writes docs/openapi.yaml, an OpenAPI 3.1 description of the API generated from
// contracts/ only (routes.yaml, requirements.yaml, schemas/*.yaml), so that API browsers, client
// generators and mock servers read the very facts the suite checks, and cannot drift from them
// (tests/self/contracts/openapi.test.ts fails when the committed file is stale).
// What OpenAPI cannot say is kept, not dropped: two routes that differ only by their query
// (associate?carId / associate?pin) share one operation; the sandbox's open routes and the
// requirements behind each operation travel in x-vds-* extensions. `--check` exits 1 when stale.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { GROUPS, loadCatalogue, resourceParam, type Catalogue, type Requirement, type Route } from '../src/catalogue/catalogue';
import { contractRegistry, SCHEMA_BASE } from '../src/schemas/validate';
import type { RequestVariant } from '../src/checks/error-case';

const ROOT = path.resolve(__dirname, '..');
export const OPENAPI_FILE = path.join(ROOT, 'docs', 'openapi.yaml');

/** Every route is below the API root (vehicle-data-service-v3.md § Endpoints, Hosts: {base_url} ends with /v3). */
const API_ROOT = '/v3';
const SECURITY_SCHEME = 'oauth2';
const COMPONENT_SCHEMAS = '#/components/schemas/';
/** Stands in for text neither document gives (the tip is only required to be non-empty). */
const UNDOCUMENTED = 'not documented';

type Json = Record<string, unknown>;
type Schemas = ReadonlyMap<string, Json>;

// ---- schemas: the contracts under components/schemas -----------------------------------------

/** A contract file's $ref ("dates.yaml#/$defs/dateTime", "#/$defs/position") as a pointer into components/schemas. */
function componentRef(ref: string, fromName: string): string {
  const url = new URL(ref, `${SCHEMA_BASE}${fromName}.yaml`);
  const target = url.href.replace(/#.*$/, '');
  if (!target.startsWith(SCHEMA_BASE)) throw new Error(`contracts/schemas/${fromName}.yaml: $ref ${ref} leaves the contracts`);
  const name = target.slice(SCHEMA_BASE.length).replace(/\.yaml$/, '');
  return `${COMPONENT_SCHEMAS}${name}${url.hash.replace(/^#/, '')}`;
}

/** A copy of the schema whose $refs point into the document; $id and $schema go (jsonSchemaDialect says 2020-12). */
function asComponent(node: unknown, name: string, root = true): unknown {
  if (Array.isArray(node)) return node.map((item) => asComponent(item, name, false));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (root && (key === '$id' || key === '$schema')) continue;
    out[key] = key === '$ref' && typeof value === 'string' ? componentRef(value, name) : asComponent(value, name, false);
  }
  return out;
}

/** "car" or "car[]" as the schema of a response body. */
function contractSchema(contract: string): Json {
  return contract.endsWith('[]') ? { type: 'array', items: { $ref: COMPONENT_SCHEMAS + contract.slice(0, -2) } } : { $ref: COMPONENT_SCHEMAS + contract };
}

function contractTitle(contract: string, schemas: Schemas): string {
  const name = contract.replace(/\[\]$/, '');
  const title = String(schemas.get(name)?.title ?? name).replace(/\s*\(.*\)$/, '');
  return contract.endsWith('[]') ? `array of ${title}` : title;
}

/** The JSON Schema of a resource's id, read from its record contract (id of user, car, trip); a string otherwise. */
function idSchema(resource: string, schemas: Schemas): Json {
  const find = (schema: Json | undefined): Json | undefined => {
    if (!schema) return undefined;
    const id = (schema.properties as Json | undefined)?.id as Json | undefined;
    if (id?.type) return { type: id.type };
    for (const part of (schema.allOf as Json[] | undefined) ?? []) {
      const found = typeof part.$ref === 'string' ? find(schemas.get(part.$ref.replace(/\.yaml$/, ''))) : find(part);
      if (found) return found;
    }
    return undefined;
  };
  return find(schemas.get(resource)) ?? { type: 'string' };
}

// ---- parameters and security -----------------------------------------------------------------

function pathParameter(name: string, c: Catalogue, schemas: Schemas): Json {
  const info = c.pathParams[name];
  return {
    name,
    in: 'path',
    required: true,
    description: `The ${info.resource} id.${info.notFound ? ` Unknown: 404 "${info.notFound}".` : ''}`,
    schema: idSchema(info.resource, schemas),
  };
}

function queryParameter(name: string, c: Catalogue): Json {
  const q = c.queryParameters[name];
  // routes.yaml gives meanings, not types: every value is described as the string it is on the wire.
  return { name, in: 'query', required: false, description: `${q.meaning} (${q.cite})`, schema: { type: 'string' } };
}

/** A query parameter fixed by the route's own form (associate?carId={carId}): required by that route only. */
function formParameter(name: string, routes: Route[], c: Catalogue, schemas: Schemas): Json {
  const owners = routes.filter((r) => name in r.fixedQuery).map((r) => r.route);
  const alone = owners.length === routes.length;
  const info = c.pathParams[name];
  return {
    name,
    in: 'query',
    required: alone,
    description: alone
      ? `Part of the route ${owners.join(', ')}.`
      : `Required by the route ${owners.join(', ')}; give exactly one of ${routes.flatMap((r) => Object.keys(r.fixedQuery)).join(', ')}.`,
    schema: info ? idSchema(info.resource, schemas) : { type: 'string' },
  };
}

function securityScheme(c: Catalogue): Json {
  const publicRoute = (method: string) => c.routes.find((r) => r.public && r.group === 'auth' && r.method === method);
  const page = publicRoute('GET');
  const token = publicRoute('POST');
  if (!page || !token) throw new Error('routes.yaml: the auth group needs a public GET (sign-in page) and POST (token endpoint) route');
  // One line per scope, derived from the routes that need it.
  const scopes = Object.fromEntries(
    c.scopes.map((s) => [
      s,
      `Needed by ${c.routes
        .filter((r) => r.scopes.includes(s))
        .map((r) => r.route)
        .join(', ')}`,
    ]),
  );
  return {
    type: 'oauth2',
    description: `Bearer access tokens. Sign-in page: ${page.route}; token endpoint: ${token.route}.`,
    // Relative URLs resolve against the server URL per RFC 3986, which would drop /v3 from "/auth/auth".
    flows: { authorizationCode: { authorizationUrl: API_ROOT + page.path, tokenUrl: API_ROOT + token.path, scopes } },
  };
}

// ---- responses ---------------------------------------------------------------------------------

interface ErrorAnswer {
  status: string;
  key: string;
  type: string;
  message?: string;
  tip: string;
  summary: string;
  description: string;
}

interface ErrorExpect {
  status: number | number[] | string;
  /** One type, or the types any of which will do (the example shows the first). */
  type: string | string[];
  message?: string;
  tip?: string;
  scope?: string;
}

/** OpenAPI response keys: 404 -> "404", [400, 404] -> both, "4xx" -> "4XX". */
function statusKeys(status: ErrorExpect['status']): string[] {
  return (Array.isArray(status) ? status : [status]).map((s) => String(s).toUpperCase());
}

function describeVariant(v: RequestVariant, route: Route, c: Catalogue, scope: string | undefined): string {
  const resource = () => c.pathParams[resourceParam(route)].resource;
  const parts: string[] = [];
  if (v.id === 'unknown') parts.push(`a ${resource()} id that does not exist`);
  if (v.id === 'other') parts.push(`another user's ${resource()}`);
  if (v.id === 'unknown-device') parts.push('a well-formed device id that does not exist');
  if (v.id === 'malformed-device') parts.push('a malformed device id');
  if (v.auth === 'none') parts.push('no Authorization header');
  else if (v.auth !== undefined) parts.push(`Authorization: ${v.auth.replace('@token', '<a valid access token>')}`);
  if (v.token) parts.push(`token ${v.token.replace('@routeScope', route.scopes[0]).replace('@scope', scope ?? '')} (a target file token key)`);
  if (v.query)
    parts.push(
      `?${Object.entries(v.query)
        .map(([k, val]) => `${k}=${val}`)
        .join('&')}`,
    );
  return parts.join(', ') || 'the request of the success';
}

function errorCaseAnswers(req: Requirement, route: Route, c: Catalogue): ErrorAnswer[] {
  const variants = ((req.params.variants as RequestVariant[] | undefined) ?? [(req.params.request as RequestVariant | undefined) ?? {}]).filter(
    (v) => !v.ifQuery || route.query.includes(v.ifQuery),
  );
  if (variants.length === 0) return [];
  const e = req.params.expect as ErrorExpect;
  const message = e.message === '@notFound' ? c.pathParams[resourceParam(route)].notFound : e.message;
  const scopes: Array<string | undefined> = req.per === 'scope' ? route.scopes : [undefined];
  return scopes.flatMap((scope) => {
    const named = e.tip === 'names-scope' ? (e.scope ?? (variants[0].token?.includes('@routeScope') ? route.scopes[0] : scope)) : undefined;
    const request = variants.map((v) => describeVariant(v, route, c, scope)).join(' | ');
    const types = Array.isArray(e.type) ? e.type : [e.type];
    // The spec says only that the tip is a string; a non-empty one is the profile's decision.
    const anyTip = req.class === 'core' ? 'any text' : 'any non-empty text';
    return statusKeys(e.status).map((status) => ({
      status,
      key: scope ? `${req.id}.${scope}` : req.id,
      type: types[0],
      message,
      tip: named ? `${UNDOCUMENTED}: ${anyTip} naming the scope ${named}` : `${UNDOCUMENTED}: ${anyTip}`,
      summary: `${req.id}${req.env.length === 1 ? ` (${req.env[0]} only)` : ''}`,
      description: `${req.title}. Request: ${request}.${types.length > 1 ? ` Type: ${types.join(' or ')}.` : ''} ${req.cite}.`,
    }));
  });
}

/** The documented error answers of a route: its error-case requirements, malformed ids, and noData. */
function errorAnswers(route: Route, c: Catalogue): ErrorAnswer[] {
  const answers: ErrorAnswer[] = [];
  for (const req of c.requirements.filter((r) => r.routes.includes(route.route))) {
    if (req.check === 'error-case') answers.push(...errorCaseAnswers(req, route, c));
    if (req.check === 'malformed-id') {
      answers.push(
        ...['400', '404'].map((status) => ({
          status,
          key: req.id,
          type: 'PARAMETERS_ERROR',
          tip: `${UNDOCUMENTED}: any non-empty text`,
          summary: req.id,
          description: `${req.title}. Request: ids such as ${(req.params.values as string[]).slice(0, 3).join(', ')}. ${req.cite}.`,
        })),
      );
    }
  }
  if (route.noData) {
    answers.push({
      status: String(route.noData.status),
      key: 'noData',
      type: 'PARAMETERS_ERROR',
      message: route.noData.message,
      tip: `${UNDOCUMENTED}: any non-empty text`,
      summary: 'no data in the range',
      description: `The answer in place of the success when the range holds no data (routes.yaml noData). ${route.cite}.`,
    });
  }
  return answers;
}

function errorResponse(answers: ErrorAnswer[]): Json {
  const kinds = [...new Set(answers.map((a) => `${a.type} ${a.message ? `"${a.message}"` : '(message not documented)'}`))];
  const examples: Json = {};
  for (const a of answers) {
    examples[a.key] = {
      summary: a.summary,
      description: a.description,
      value: [{ type: a.type, message: a.message ?? `${UNDOCUMENTED}: any text`, tip: a.tip }],
    };
  }
  return {
    description: kinds.join('; '),
    content: { 'application/json': { schema: { $ref: `${COMPONENT_SCHEMAS}errorArray` }, examples } },
  };
}

function successResponse(route: Route, schemas: Schemas): [string, Json] {
  const { status, contract, contentTypes } = route.success;
  if (!contract && !contentTypes) return [String(status), { description: 'No body' }];
  const types = contentTypes ?? ['application/json'];
  const schema = contract ? contractSchema(contract) : { type: 'string' };
  const description = contract ? contractTitle(contract, schemas) : types.join(', ');
  return [String(status), { description, content: Object.fromEntries(types.map((t) => [t, { schema }])) }];
}

/** Response keys in order: numbers ascending, then ranges (4XX). */
function byStatus(a: string, b: string): number {
  const n = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number(s[0]) * 100 + 99.5);
  return n(a) - n(b);
}

function responses(routes: Route[], answers: ErrorAnswer[], schemas: Schemas): Json {
  const success = routes.map((r) => successResponse(r, schemas));
  if (new Set(success.map((s) => JSON.stringify(s))).size !== 1)
    throw new Error(`${routes.map((r) => r.route).join(' and ')}: one path, two different successes`);
  const byStatusKey = new Map<string, ErrorAnswer[]>();
  for (const answer of answers) {
    const list = byStatusKey.get(answer.status) ?? [];
    if (!list.some((a) => a.key === answer.key)) list.push(answer);
    byStatusKey.set(answer.status, list);
  }
  const out: Json = { [success[0][0]]: success[0][1] };
  for (const status of [...byStatusKey.keys()].sort(byStatus)) out[status] = errorResponse(byStatusKey.get(status)!);
  return out;
}

// ---- operations ------------------------------------------------------------------------------

/** GET /cars/{carId}/locations.geojson -> getCarsByCarIdLocationsGeojson */
function operationId(method: string, routePath: string): string {
  const words = routePath
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      return param ? ['by', param[1]] : segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
    });
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

function operation(routes: Route[], c: Catalogue, schemas: Schemas): Json {
  const [first] = routes;
  const access = (r: Route) => `${r.scopes.join(' ')}|${r.public}|${r.sandboxOpen}`;
  if (routes.some((r) => access(r) !== access(first))) {
    throw new Error(`${routes.map((r) => r.route).join(' and ')}: one path, two different scope sets (or public, sandboxOpen)`);
  }
  const ids = routes.map((r) => r.route);
  const covering = c.requirements.filter((r) => r.routes.some((id) => ids.includes(id)));
  const answers = routes.flatMap((r) => errorAnswers(r, c));
  const shownAsResponses = new Set(answers.map((a) => a.key.split('.')[0]));
  const success = first.success;
  const parameters = [
    ...first.pathParams.map((p) => pathParameter(p, c, schemas)),
    ...[...new Set(routes.flatMap((r) => Object.keys(r.fixedQuery)))].map((q) => formParameter(q, routes, c, schemas)),
    ...[...new Set(routes.flatMap((r) => r.query))].map((q) => queryParameter(q, c)),
  ];
  const notes = [
    routes.length > 1 ? `One operation for the routes ${ids.join(' and ')}: OpenAPI keys operations by path and method, not by query.` : '',
    `Documented in: ${[...new Set(routes.map((r) => r.cite))].join(' | ')}.`,
    first.sandboxOpen ? 'In the sandbox this route answers without an Authorization header (x-vds-sandbox-open).' : '',
    'Also required (contracts/requirements.yaml):',
    ...covering.filter((r) => !shownAsResponses.has(r.id)).map((r) => `- ${r.id} (${r.class}): ${r.title}`),
  ].filter(Boolean);
  return {
    operationId: operationId(first.method, first.path),
    tags: [first.group],
    summary: `${success.status} ${success.contract ? contractTitle(success.contract, schemas) : (success.contentTypes ?? ['no body']).join(', ')}`,
    description: notes.join('\n'),
    ...(parameters.length ? { parameters } : {}),
    security: first.public ? [] : [{ [SECURITY_SCHEME]: [...first.scopes] }],
    responses: responses(routes, answers, schemas),
    'x-vds-routes': ids,
    ...(first.sandboxOpen ? { 'x-vds-sandbox-open': true } : {}),
    'x-vds-requirements': covering.map((r) => r.id),
  };
}

// ---- the document ----------------------------------------------------------------------------

type Operations = Record<string, Record<string, Json>>;

/** Every example of the operations, with the map holding it (paths -> operation -> response -> media type -> examples). */
function* examplesOf(paths: Operations): Generator<{ key: string; value: unknown; examples: Json }> {
  for (const methods of Object.values(paths)) {
    for (const op of Object.values(methods)) {
      for (const response of Object.values(op.responses as Record<string, Json>)) {
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) {
          const examples = (media.examples ?? {}) as Json;
          for (const [key, value] of Object.entries(examples)) yield { key, value, examples };
        }
      }
    }
  }
}

/** Examples that are the same wherever they occur (AUTH-MISSING on 23 routes) are written once, under components/examples. */
function shareExamples(paths: Operations): Json {
  const versions = new Map<string, { texts: Set<string>; uses: number; value: unknown }>();
  for (const { key, value } of examplesOf(paths)) {
    const v = versions.get(key) ?? { texts: new Set<string>(), uses: 0, value };
    v.texts.add(JSON.stringify(value));
    v.uses += 1;
    versions.set(key, v);
  }
  const shared = new Map([...versions].filter(([, v]) => v.texts.size === 1 && v.uses > 1));
  for (const { key, examples } of examplesOf(paths)) {
    if (shared.has(key)) examples[key] = { $ref: `#/components/examples/${key}` };
  }
  return Object.fromEntries([...shared].map(([key, v]) => [key, v.value]));
}

/** The OpenAPI 3.1 document of the catalogue and the contracts; pure, and in a stable key order. */
export function buildOpenApi(c: Catalogue, schemas: Schemas = contractRegistry().schemas): Json {
  const paths: Record<string, Record<string, Route[]>> = {};
  for (const route of c.routes) {
    const byMethod = (paths[route.path] ??= {});
    (byMethod[route.method.toLowerCase()] ??= []).push(route);
  }
  const operations: Operations = Object.fromEntries(
    Object.entries(paths).map(([p, methods]) => [p, Object.fromEntries(Object.entries(methods).map(([m, routes]) => [m, operation(routes, c, schemas)]))]),
  );
  const examples = shareExamples(operations);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Vehicle Data Service v3',
      version: '3',
      description: [
        'Generated by `npm run openapi` from contracts/routes.yaml, contracts/requirements.yaml and contracts/schemas/*.yaml; do not edit by hand.',
        'Errors are JSON arrays of {type, message, tip}: type and message are compared exactly; the documents require of the tip only that it is non-empty and, for a missing scope, names the scope, so the examples say so instead of inventing a text.',
        'Example requests write dates as @now-<n>d: now minus n days (RFC 3339). x-vds-routes names the routes.yaml routes of an operation, x-vds-requirements the requirements covering it.',
      ].join('\n'),
    },
    servers: [{ url: API_ROOT, description: 'The API root: a cloud or sandbox host, the path ending with /v3' }],
    tags: GROUPS.filter((g) => c.routes.some((r) => r.group === g)).map((g) => ({ name: g })),
    paths: operations,
    components: {
      securitySchemes: { [SECURITY_SCHEME]: securityScheme(c) },
      examples,
      schemas: Object.fromEntries([...schemas].map(([name, schema]) => [name, asComponent(schema, name)])),
    },
  };
}

const HEADER = [
  '# Generated by `npm run openapi` (scripts/openapi.ts) from contracts/routes.yaml, contracts/requirements.yaml',
  '# and contracts/schemas/*.yaml. Do not edit by hand: change contracts/ and run `npm run openapi`.',
].join('\n');

export function renderOpenApi(doc: Json): string {
  return `${HEADER}\n${YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 })}`;
}

function main(): void {
  const text = renderOpenApi(buildOpenApi(loadCatalogue()));
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
    if (current !== text) {
      console.error('docs/openapi.yaml is not what the contracts render: run `npm run openapi`.');
      process.exitCode = 1;
    }
    return;
  }
  fs.writeFileSync(OPENAPI_FILE, text);
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
}

if (require.main === module) main();
