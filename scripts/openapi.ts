// `npm run openapi`: writes docs/openapi.yaml, an OpenAPI 3.1 description of the API generated from
// contracts/ only (routes.yaml, requirements.yaml, schemas/*.yaml), so that the tools a vendor already
// uses (a validating gateway or proxy, a mock server, a client or server generator, a linter) read the
// very facts the suite checks, and cannot drift from them (tests/self/contracts/openapi.test.ts fails
// when the committed file is stale; openapi-tools.test.ts runs Prism and Redocly on it).
// Every request and every answer the documents state is described: the request bodies and the token
// endpoint's HTTP Basic, every documented status (the legacy body, the sign-in page's HTML 404), the
// query parameters with their types and bounds, dates as the standard format date-time with the
// pattern of their shape. Its examples are the embedded reference's real answers
// (scripts/openapi-reference.ts). What OpenAPI cannot say is kept, not dropped: two routes that differ
// only by their query (associate?carId / associate?pin) share one operation; the sandbox's open routes
// and the requirements behind each operation travel in x-vds-* extensions. `--check` exits 1 when stale.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { GROUPS, loadCatalogue, type Catalogue, type Route } from '../src/catalogue/catalogue';
import { FORMAT_PATTERNS } from '../src/schemas/formats';
import { contractRegistry, SCHEMA_BASE } from '../src/schemas/validate';
import { documentedAnswers, REQUEST_BODY_EXAMPLES, successRequest, type DocumentedAnswer, type ErrorBody } from './openapi-answers';
import { askReference, EXAMPLES_AT, type ExampleRequest, type RealAnswer } from './openapi-reference';
import { NEAR_MISS_WORDS } from '../src/check-api/near-miss';

const ROOT = path.resolve(__dirname, '..');
export const OPENAPI_FILE = path.join(ROOT, 'docs', 'openapi.yaml');

/** Every route is below the API root (vehicle-data-service-v3.md § Endpoints, Hosts: {base_url} ends with /v3). */
const API_ROOT = '/v3';
const BEARER = 'oauth2';
const CLIENT_BASIC = 'clientCredentials';
const COMPONENT_SCHEMAS = '#/components/schemas/';
/** A list in an example keeps its first items: enough to show the record, short enough to read. */
const EXAMPLE_ITEMS = 2;

type Json = Record<string, unknown>;
type Schemas = ReadonlyMap<string, Json>;
/** The reference's answers, by request (requestKey). */
export type Answers = ReadonlyMap<string, RealAnswer>;

// ---- schemas: the contracts under components/schemas -----------------------------------------

/** A contract that only holds definitions (dates.yaml): its definitions are components of their own. */
const definitionsOnly = (schema: Json | undefined) =>
  !!schema && schema.$defs !== undefined && !['type', 'allOf', 'anyOf', 'oneOf', '$ref', 'properties'].some((k) => k in schema);

/** A contract file's $ref ("dates.yaml#/$defs/dateTime", "#/$defs/position") as a pointer into components/schemas. */
function componentRef(ref: string, fromName: string, schemas: Schemas): string {
  const url = new URL(ref, `${SCHEMA_BASE}${fromName}.yaml`);
  const target = url.href.replace(/#.*$/, '');
  if (!target.startsWith(SCHEMA_BASE)) throw new Error(`contracts/schemas/${fromName}.yaml: $ref ${ref} leaves the contracts`);
  const name = target.slice(SCHEMA_BASE.length).replace(/\.yaml$/, '');
  const fragment = url.hash.replace(/^#/, '');
  const def = /^\/\$defs\/(\w+)$/.exec(fragment);
  if (def && definitionsOnly(schemas.get(name))) return `${COMPONENT_SCHEMAS}${def[1]}`;
  return `${COMPONENT_SCHEMAS}${name}${fragment}`;
}

/**
 * A copy of a contract schema for the export: $refs point into the document, $id and $schema go
 * (jsonSchemaDialect says 2020-12), and the suite's two date formats become the standard date-time
 * with the pattern of their shape (src/schemas/formats.ts): other tools know no format of ours.
 */
function exportSchema(node: unknown, name: string, schemas: Schemas, root = true): unknown {
  if (Array.isArray(node)) return node.map((item) => exportSchema(item, name, schemas, false));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (root && (key === '$id' || key === '$schema')) continue;
    if (key === 'format' && typeof value === 'string' && FORMAT_PATTERNS[value]) {
      out.format = 'date-time';
      out.pattern = FORMAT_PATTERNS[value];
      continue;
    }
    out[key] = key === '$ref' && typeof value === 'string' ? componentRef(value, name, schemas) : exportSchema(value, name, schemas, false);
  }
  return out;
}

/** Every contract as a component; a definitions-only contract's definitions each as their own. */
function componentSchemas(schemas: Schemas): Json {
  const out: Json = {};
  for (const [name, schema] of schemas) {
    const parts = definitionsOnly(schema) ? Object.entries(schema.$defs as Record<string, Json>) : [[name, schema] as const];
    for (const [key, part] of parts) {
      if (key in out || (key !== name && schemas.has(key))) throw new Error(`contracts/schemas: two components named ${key}`);
      out[key] = exportSchema(part, name, schemas);
    }
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

/** A query parameter as routes.yaml types it (queryParameters: its schema, a list written with commas). */
function queryParameter(name: string, c: Catalogue, schemas: Schemas): Json {
  const q = c.queryParameters[name];
  return {
    name,
    in: 'query',
    required: q.required === true,
    description: `${q.meaning[0].toUpperCase()}${q.meaning.slice(1)} (${q.cite}).`,
    ...(q.explode === false ? { style: 'form', explode: false } : {}),
    schema: q.schema ? exportSchema(q.schema, '_', schemas, false) : { type: 'string' },
  };
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

function securitySchemes(c: Catalogue): Json {
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
    [BEARER]: {
      type: 'oauth2',
      description: `Bearer access tokens. Sign-in page: ${page.route}; token endpoint: ${token.route}.`,
      // Relative URLs resolve against the server URL per RFC 3986, which would drop /v3 from "/auth/auth".
      flows: { authorizationCode: { authorizationUrl: API_ROOT + page.path, tokenUrl: API_ROOT + token.path, scopes } },
    },
    [CLIENT_BASIC]: {
      type: 'http',
      scheme: 'basic',
      description: `The application's client id and secret, each form-urlencoded (RFC 6749 § 2.3.1): ${c.routes
        .filter((r) => r.clientAuth === 'basic')
        .map((r) => r.route)
        .join(', ')} (v3-profile.md § Scopes per route, HTTP Basic).`,
    },
  };
}

function security(route: Route): Json[] {
  if (route.clientAuth === 'basic') return [{ [CLIENT_BASIC]: [] }];
  return route.public ? [] : [{ [BEARER]: [...route.scopes] }];
}

// ---- examples: the reference's real answers ---------------------------------------------------

/** A request's identity, to find its answer. */
export const requestKey = (req: ExampleRequest) => JSON.stringify(req);

function answerTo(req: ExampleRequest, answers: Answers, what: string): RealAnswer {
  const answer = answers.get(requestKey(req));
  if (!answer) throw new Error(`${what}: the reference was not asked ${requestInWords(req)}`);
  return answer;
}

/** What a symbol of a request stands for, in words. */
const SYMBOLS: Record<string, string> = {
  '@code': '<a fresh authorization code>',
  '@code-with-redirect': '<a fresh authorization code, its sign-in given redirect_uri>',
  '@refresh': '<a fresh refresh token>',
  '@client-secret': "<the application's client secret>",
  '@token': '<the full token>',
};

function credentialInWords(req: ExampleRequest): string {
  const c = req.credential;
  if (c === 'none') return 'no Authorization header';
  if ('token' in c) return `Authorization: Bearer <the ${c.token} token${c.nearMiss ? `, ${NEAR_MISS_WORDS[c.nearMiss]}` : ''}>`;
  if ('header' in c) return `Authorization: ${c.header.replace(/@[a-z-]+/g, (s) => SYMBOLS[s] ?? s)}`;
  return `HTTP Basic ${c.client === 'wrong-secret' ? 'with the client id and a wrong secret' : `with the ${c.client} application's client id and secret`}`;
}

/** A query as a reader reads it: its values as they are, not percent-encoded. */
const queryInWords = (query: Record<string, string> | undefined) =>
  query
    ? `?${Object.entries(query)
        .map(([k, v]) => `${k}=${SYMBOLS[v] ?? v}`)
        .join('&')}`
    : '';

/** A request as the examples' descriptions show it: its line, its credential and body, and what was sent before it. */
function requestInWords(req: ExampleRequest): string {
  const query = queryInWords(req.query);
  const form =
    req.form &&
    Object.entries(req.form)
      .map(([k, v]) => `${k}=${SYMBOLS[v] ?? v}`)
      .join('&');
  const text = req.json !== undefined ? JSON.stringify(req.json) : (form ?? req.raw?.text);
  const body = text === undefined ? '' : `, body ${text}`;
  const before = req.before?.length ? ` (after ${req.before.map((b) => `${b.method} ${API_ROOT}${b.path}${queryInWords(b.query)}`).join(', ')})` : '';
  const variant = req.variant ? ` (the reference with its conforming variant ${req.variant}: the documents allow either answer)` : '';
  return `${req.method} ${API_ROOT}${req.path}${query}, ${credentialInWords(req)}${body}${before}${variant}`;
}

/** The value with its lists of records cut to their first items; `cut` says whether any was. */
function firstItems(value: unknown): { value: unknown; cut: number[] } {
  const cut: number[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      const records = v.length > EXAMPLE_ITEMS && v.every((item) => item !== null && typeof item === 'object');
      if (records) cut.push(v.length);
      return (records ? v.slice(0, EXAMPLE_ITEMS) : v).map(walk);
    }
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value), cut };
}

const mediaType = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

// ---- responses ---------------------------------------------------------------------------------

/** The response key an answer's example sits under: its real status, or the range (4XX) the answer is documented with. */
function exampleStatus(a: DocumentedAnswer, real: RealAnswer): string {
  const exact = String(real.status);
  if (a.statuses.includes(exact)) return exact;
  const range = `${exact[0]}XX`;
  if (a.statuses.includes(range)) return range;
  throw new Error(`${a.key}: the reference answered ${real.status}, the catalogue documents ${a.statuses.join(' or ')}`);
}

/** The answer's example value, once checked to be what the catalogue documents (a type it names, its message). */
function errorExample(a: DocumentedAnswer, real: RealAnswer, where: string): unknown {
  const body = real.body;
  const problem = (() => {
    if (a.body.kind === 'html') return mediaType(real.contentType) === 'text/html' ? undefined : `not HTML (${real.contentType})`;
    if (a.body.kind === 'legacy') {
      const message = (body as { message?: unknown } | null)?.message;
      return a.body.message && message !== a.body.message ? `message ${JSON.stringify(message)}` : undefined;
    }
    const first = Array.isArray(body) ? (body[0] as { type?: string; message?: string } | undefined) : undefined;
    if (!first) return 'not an error array';
    if (a.body.types.length && !a.body.types.includes(first.type ?? '')) return `type ${first.type}`;
    return a.body.message && first.message !== a.body.message ? `message ${JSON.stringify(first.message)}` : undefined;
  })();
  if (problem) throw new Error(`${where} ${a.key}: the reference's answer is not the documented one: ${problem}`);
  return body;
}

const bodyWords = (b: ErrorBody): string =>
  b.kind === 'html'
    ? 'an HTML page'
    : b.kind === 'legacy'
      ? `the legacy body {"message": ${JSON.stringify(b.message ?? 'not documented')}}`
      : `${b.types.length ? b.types.join(' or ') : 'an error array (type not documented)'} ${b.message ? `"${b.message}"` : '(message not documented)'}`;

function errorResponse(status: string, answers: DocumentedAnswer[], examples: Map<string, { media: string; example: Json }[]>): Json {
  const kinds = new Set(answers.map((a) => (a.body.kind === 'html' ? 'html' : a.body.kind)));
  if (kinds.size > 1) throw new Error(`status ${status}: two kinds of body (${[...kinds].join(', ')}) under one media type`);
  const [kind] = kinds;
  const media = kind === 'html' ? 'text/html' : 'application/json';
  const schema = kind === 'html' ? { type: 'string' } : { $ref: `${COMPONENT_SCHEMAS}${kind === 'legacy' ? 'legacyError' : 'errorArray'}` };
  const shown: Json = {};
  for (const a of answers) for (const e of examples.get(`${status} ${a.key}`) ?? []) shown[a.key] = e.example;
  const others = (a: DocumentedAnswer) => a.statuses.filter((s) => s !== status);
  const description = [...new Set(answers.map((a) => `${bodyWords(a.body)}${others(a).length ? ` (or ${others(a).join(', ')})` : ''}`))].join('; ');
  return { description, content: { [media]: { schema, ...(Object.keys(shown).length ? { examples: shown } : {}) } } };
}

function successResponse(route: Route, schemas: Schemas, answers: Answers): [string, Json] {
  const { status, contract, contentTypes } = route.success;
  if (!contract && !contentTypes) return [String(status), { description: 'No body' }];
  const types = contentTypes ?? ['application/json'];
  const schema = contract ? contractSchema(contract) : { type: 'string' };
  const description = contract ? contractTitle(contract, schemas) : types.join(', ');
  const req = successRequest(route);
  const real = answerTo(req, answers, route.route);
  const answered = mediaType(real.contentType);
  if (real.status !== status || !types.includes(answered))
    throw new Error(
      `${route.route}: the reference answered ${real.status} ${answered} to its success example, the catalogue documents ${status} ${types.join(' or ')}`,
    );
  const { value, cut } = firstItems(real.body);
  const example = {
    summary: `The embedded reference's answer`,
    description: `The embedded reference's answer at ${EXAMPLES_AT} to ${requestInWords(req)}${cut.length ? `; its lists cut to their first ${EXAMPLE_ITEMS} items (of ${cut.join(', ')})` : ''}.`,
    value,
  };
  const content = Object.fromEntries(types.map((t) => [t, { schema, ...(t === answered ? { examples: { reference: example } } : {}) }]));
  return [String(status), { description, content }];
}

/** Response keys in order: numbers ascending, then ranges (4XX). */
function byStatus(a: string, b: string): number {
  const n = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number(s[0]) * 100 + 99.5);
  return n(a) - n(b);
}

function responses(routes: Route[], answers: DocumentedAnswer[], schemas: Schemas, real: Answers): Json {
  const success = routes.map((r) => successResponse(r, schemas, real));
  if (new Set(success.map((s) => JSON.stringify(s))).size !== 1)
    throw new Error(`${routes.map((r) => r.route).join(' and ')}: one path, two different successes`);
  // Each answer is documented under every status it may come with; its example under the one the reference gave.
  const byStatusKey = new Map<string, DocumentedAnswer[]>();
  const examples = new Map<string, { media: string; example: Json }[]>();
  for (const a of answers) {
    for (const status of a.statuses) {
      const list = byStatusKey.get(status) ?? [];
      if (!list.some((x) => x.key === a.key)) list.push(a);
      byStatusKey.set(status, list);
    }
    if (!a.request) continue;
    const answer = answerTo(a.request, real, a.key);
    const status = exampleStatus(a, answer);
    const value = errorExample(a, answer, routes[0].route);
    const example = { summary: a.summary, description: `${a.description} The embedded reference's answer to ${requestInWords(a.request)}.`, value };
    examples.set(`${status} ${a.key}`, [{ media: mediaType(answer.contentType), example }]);
  }
  const out: Json = { [success[0][0]]: success[0][1] };
  for (const status of [...byStatusKey.keys()].sort(byStatus)) out[status] = errorResponse(status, byStatusKey.get(status)!, examples);
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

/** The documented request body: its contract, its content type, and the body the success example answers. */
function requestBody(route: Route): Json | undefined {
  if (!route.body) return undefined;
  const type = route.body.contentType ?? 'application/json';
  const value = Object.fromEntries(
    Object.entries(REQUEST_BODY_EXAMPLES[route.body.contract] ?? {}).map(([k, v]) => [k, typeof v === 'string' ? (SYMBOLS[v] ?? v) : v]),
  );
  return {
    required: true,
    content: {
      [type]: {
        schema: { $ref: COMPONENT_SCHEMAS + route.body.contract },
        examples: { reference: { summary: 'The body of the success example', value } },
      },
    },
  };
}

function operation(routes: Route[], c: Catalogue, schemas: Schemas, real: Answers): Json {
  const [first] = routes;
  const access = (r: Route) => `${r.scopes.join(' ')}|${r.public}|${r.sandboxOpen}|${r.clientAuth}|${JSON.stringify(r.body)}`;
  if (routes.some((r) => access(r) !== access(first))) {
    throw new Error(`${routes.map((r) => r.route).join(' and ')}: one path, two different scope sets (or public, sandboxOpen, client auth, body)`);
  }
  const ids = routes.map((r) => r.route);
  const covering = c.requirements.filter((r) => r.routes.some((id) => ids.includes(id)));
  const answers = routes.flatMap((r) => documentedAnswers(r, c));
  const shownAsResponses = new Set(answers.map((a) => a.key.split('.')[0]));
  const success = first.success;
  const parameters = [
    ...first.pathParams.map((p) => pathParameter(p, c, schemas)),
    ...[...new Set(routes.flatMap((r) => Object.keys(r.fixedQuery)))].map((q) => formParameter(q, routes, c, schemas)),
    ...[...new Set(routes.flatMap((r) => r.query))].map((q) => queryParameter(q, c, schemas)),
  ];
  const notes = [
    routes.length > 1 ? `One operation for the routes ${ids.join(' and ')}: OpenAPI keys operations by path and method, not by query.` : '',
    `Documented in: ${[...new Set(routes.map((r) => r.cite))].join(' | ')}.`,
    first.sandboxOpen ? 'In the sandbox this route answers without an Authorization header (x-vds-sandbox-open).' : '',
    'Also required (contracts/requirements.yaml):',
    ...covering.filter((r) => !shownAsResponses.has(r.id)).map((r) => `- ${r.id} (${r.class}): ${r.title}`),
  ].filter(Boolean);
  const body = requestBody(first);
  return {
    operationId: operationId(first.method, first.path),
    tags: [first.group],
    summary: `${success.status} ${success.contract ? contractTitle(success.contract, schemas) : (success.contentTypes ?? ['no body']).join(', ')}`,
    description: notes.join('\n'),
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    security: security(first),
    responses: responses(routes, answers, schemas, real),
    'x-vds-routes': ids,
    ...(first.sandboxOpen ? { 'x-vds-sandbox-open': true } : {}),
    'x-vds-requirements': covering.map((r) => r.id),
  };
}

// ---- the document ----------------------------------------------------------------------------

type Operations = Record<string, Record<string, Json>>;

/** Every request whose real answer the document shows: each route's success with a body, each documented answer's. */
export function exampleRequests(c: Catalogue): ExampleRequest[] {
  return c.routes.flatMap((route) => [
    ...(route.success.contract || route.success.contentTypes ? [successRequest(route)] : []),
    ...documentedAnswers(route, c).flatMap((a) => (a.request ? [a.request] : [])),
  ]);
}

/** The purposes of a group's routes, as the spec words them: its tag's description. */
function tagDescription(group: string, c: Catalogue): string {
  const routes = c.routes.filter((r) => r.group === group);
  return `${routes.map((r) => `${r.route}: ${r.purpose}`).join(' ')} (vehicle-data-service-v3.md § Endpoints)`;
}

/**
 * The OpenAPI 3.1 document of the catalogue and the contracts, its examples the reference's `answers`
 * to exampleRequests(c); pure, and in a stable key order.
 */
export function buildOpenApi(c: Catalogue, answers: Answers, schemas: Schemas = contractRegistry().schemas): Json {
  const paths: Record<string, Record<string, Route[]>> = {};
  for (const route of c.routes) {
    const byMethod = (paths[route.path] ??= {});
    (byMethod[route.method.toLowerCase()] ??= []).push(route);
  }
  const operations: Operations = Object.fromEntries(
    Object.entries(paths).map(([p, methods]) => [
      p,
      Object.fromEntries(Object.entries(methods).map(([m, routes]) => [m, operation(routes, c, schemas, answers)])),
    ]),
  );
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Vehicle Data Service v3',
      version: '3',
      description: [
        'Generated by `npm run openapi` from contracts/routes.yaml, contracts/requirements.yaml and contracts/schemas/*.yaml; do not edit by hand.',
        'Errors are JSON arrays of {type, message, tip}: type and message are compared exactly; the documents require of the tip only that it is non-empty and, for a missing scope, names the scope. The token endpoint refuses an invalid code or refresh token with the legacy body {"message": "Invalid authentication"}.',
        `Every example is the embedded reference's real answer (its clock at ${EXAMPLES_AT}) to the request its description shows; tokens by their target file key, random values by their length. x-vds-routes names the routes.yaml routes of an operation, x-vds-requirements the requirements covering it.`,
      ].join('\n'),
    },
    servers: [
      {
        url: `http://127.0.0.1:{port}${API_ROOT}`,
        description: 'The embedded reference, started with `npm run reference -- --port 8080` (cloud mode)',
        variables: { port: { default: '8080' } },
      },
      {
        url: `https://{env}.{host}${API_ROOT}`,
        description: 'A deployment: https://{env}.<host>/v3 (vehicle-data-service-v3.md § Endpoints, Hosts)',
        variables: {
          env: {
            enum: ['cloud', 'sandbox'],
            default: 'cloud',
            description: 'cloud: production, Authorization needed; sandbox: fake data, no Authorization on the read routes by id',
          },
          host: { default: 'example.com', description: "The service's host" },
        },
      },
    ],
    tags: GROUPS.filter((g) => c.routes.some((r) => r.group === g)).map((g) => ({ name: g, description: tagDescription(g, c) })),
    paths: operations,
    components: {
      securitySchemes: securitySchemes(c),
      schemas: componentSchemas(schemas),
    },
    'x-vds-lint': {
      'info-license':
        'No license is given for the API: neither vehicle-data-service-v3.md nor v3-profile.md states one (Redocly lint warns of its absence; the rule is left on, and this is why).',
    },
  };
}

/** The document, its examples asked of the embedded reference. */
export async function openApiDocument(c: Catalogue = loadCatalogue()): Promise<Json> {
  const requests = exampleRequests(c);
  const real = await askReference(requests);
  return buildOpenApi(c, new Map(requests.map((r, i) => [requestKey(r), real[i]])));
}

const HEADER = [
  '# Generated by `npm run openapi` (scripts/openapi.ts) from contracts/routes.yaml, contracts/requirements.yaml',
  "# and contracts/schemas/*.yaml, its examples the embedded reference's answers. Do not edit by hand: change",
  '# contracts/ and run `npm run openapi`.',
].join('\n');

/** YAML that every reader takes the same way: strings a YAML 1.1 reader would take for dates or booleans are quoted. */
export function renderOpenApi(doc: Json): string {
  return `${HEADER}\n${YAML.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0, version: '1.1' })}`;
}

async function main(): Promise<void> {
  const text = renderOpenApi(await openApiDocument());
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

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  });
}
