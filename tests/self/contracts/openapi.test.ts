// docs/openapi.yaml is generated from contracts/ (scripts/openapi.ts), its examples the embedded
// reference's answers. It must be what the contracts render now, a valid OpenAPI 3.1 document, hold
// every route with its scopes, parameters (typed as routes.yaml types them) and request body, every
// documented error with its status and an example of the reference's answer, dates as the standard
// date-time with their shape's pattern, servers a tool resolves to a working base URL, and describe
// what the reference really answers: its bodies and the document's own examples are validated against
// the document's own schemas (not contracts/), so a rewriting slip shows.
// What other tools make of it (Prism, Redocly) is openapi-tools.test.ts's.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { loadCatalogue, resourceParam, type Route } from '../../../src/catalogue/catalogue';
import { FORMAT_PATTERNS } from '../../../src/schemas/formats';
import { OPENAPI_FILE, openApiDocument, renderOpenApi } from '../../../scripts/openapi';
import { documentedAnswers } from '../../../scripts/openapi-answers';
import { EXAMPLES_AT } from '../../../scripts/openapi-reference';
import type { RequestVariant } from '../../../src/checks/error-case';
import { buildReferenceApp } from '../../../reference-server/app';
import { CLIENTS, Harness, REDIRECT_URI, SEED_IDS } from '../reference/helpers';

type Json = Record<string, any>;

const catalogue = loadCatalogue();
let doc: Json;
let operations: Array<{ path: string; method: string; op: Json }>;
const operationOf = (route: Route) => operations.find((o) => o.op['x-vds-routes'].includes(route.route))!;
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
/** Every example of a response (status) of an operation, by key. */
const examplesAt = (op: Json, status: string): Record<string, Json> =>
  Object.fromEntries(Object.values((op.responses[status]?.content ?? {}) as Json).flatMap((media: Json) => Object.entries((media.examples ?? {}) as Json)));

test.beforeAll(async () => {
  doc = await openApiDocument(catalogue);
  operations = Object.entries(doc.paths as Json).flatMap(([path, methods]) =>
    Object.entries(methods as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );
});

test('docs/openapi.yaml is what the contracts and the reference render (run `npm run openapi` after a change to contracts/)', () => {
  const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
  expect(committed === renderOpenApi(doc), 'docs/openapi.yaml is stale: run `npm run openapi`').toBe(true);
});

test('the document does not depend on the day it is rendered: the reference is asked at a fixed instant', () => {
  const today = new Date().toISOString().slice(0, 10);
  expect(renderOpenApi(doc)).not.toContain(today);
  expect(doc.info.description).toContain(EXAMPLES_AT);
});

test.describe('a valid OpenAPI 3.1 document', () => {
  // ESM only: loaded with import(), which Node 20 allows from this CommonJS module.
  const validate = async (document: Json) => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    return { ...result, version: validator.version };
  };

  test('the OpenAPI 3.1 schema accepts it, $refs included (@seriousme/openapi-schema-validator)', async () => {
    const result = await validate(doc);
    expect(result.errors ?? [], 'docs/openapi.yaml breaks the OpenAPI 3.1 schema').toEqual([]);
    expect({ valid: result.valid, version: result.version }).toEqual({ valid: true, version: '3.1' });
  });

  test('the validator does refuse a broken copy (a response without description, a dangling $ref)', async () => {
    const noDescription = structuredClone(doc);
    delete noDescription.paths['/users/me'].get.responses['200'].description;
    expect((await validate(noDescription)).valid).toBe(false);
    const dangling = structuredClone(doc);
    dangling.paths['/users/me'].get.responses['200'].content['application/json'].schema.$ref = '#/components/schemas/nothing';
    expect((await validate(dangling)).valid).toBe(false);
  });

  test('every component schema is valid JSON Schema 2020-12 (the OpenAPI schema does not look inside them)', () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      expect(ajv.validateSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }), `${name}: ${ajv.errorsText()}`).toBe(true);
      expect(JSON.stringify(schema), `${name} keeps a $ref outside the document`).not.toMatch(/"\$ref":"(?!#\/components\/schemas\/)/);
    }
  });
});

test.describe('every request as the documents state it', () => {
  test('every route of routes.yaml is an operation at its path, with its group, its security and its parameters', () => {
    for (const route of catalogue.routes) {
      const found = operations.filter((o) => o.op['x-vds-routes'].includes(route.route));
      expect(found, route.route).toHaveLength(1);
      const { path, method, op } = found[0];
      expect({ path, method, tags: op.tags, security: op.security }, route.route).toEqual({
        path: route.path,
        method: route.method.toLowerCase(),
        tags: [route.group],
        security: route.clientAuth === 'basic' ? [{ clientCredentials: [] }] : route.public ? [] : [{ oauth2: route.scopes }],
      });
      const params = (op.parameters ?? []).map((p: Json) => `${p.in} ${p.name}`);
      const expected = [...route.pathParams.map((p) => `path ${p}`), ...[...Object.keys(route.fixedQuery), ...route.query].map((q) => `query ${q}`)];
      expect(params, route.route).toEqual(expect.arrayContaining(expected));
      const success = op.responses[String(route.success.status)];
      expect(success, `${route.route}: success ${route.success.status}`).toBeTruthy();
      expect(Object.keys(success.content ?? {}), route.route).toEqual(route.success.contentTypes ?? (route.success.contract ? ['application/json'] : []));
    }
    expect(new Set(operations.flatMap((o) => o.op['x-vds-routes'])).size).toBe(catalogue.routes.length);
    expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(operations.length);
  });

  test('the query parameters are typed and bounded as routes.yaml says, not strings for all', () => {
    const types: Record<string, unknown> = {};
    for (const { op } of operations) for (const p of op.parameters ?? []) if (p.in === 'query' && catalogue.queryParameters[p.name]) types[p.name] = p;
    expect(types.limit).toMatchObject({ schema: { type: 'integer', minimum: 0 } });
    expect(types.inclusive).toMatchObject({ schema: { type: 'boolean', default: false } });
    expect(types.initialValue).toMatchObject({ schema: { type: 'number', default: 0 } });
    expect(types.name).toMatchObject({ style: 'form', explode: false, schema: { type: 'array', items: { type: 'string' } } });
    expect(types.begin).toMatchObject({ schema: { $ref: '#/components/schemas/dateTime' } });
    expect(types.end).toMatchObject({ schema: { $ref: '#/components/schemas/dateTime' } });
    // The sign-in page's parameters (v3-profile.md § Sign-in page): client_id required.
    const signIn = operations.find((o) => o.path === '/auth/auth')!.op.parameters.map((p: Json) => [p.name, p.required]);
    expect(signIn).toEqual([
      ['client_id', true],
      ['scope', false],
      ['redirect_uri', false],
      ['state', false],
    ]);
  });

  test('car creation takes its JSON body, the token endpoint its form with HTTP Basic', () => {
    const create = operations.find((o) => o.path === '/users/{userId}/cars' && o.method === 'post')!.op;
    expect(create.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/carCreationBody' } } } });
    const token = operations.find((o) => o.path === '/auth/access_token')!.op;
    expect(token.requestBody).toMatchObject({
      required: true,
      content: { 'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/tokenRequest' } } },
    });
    expect(doc.components.securitySchemes.clientCredentials).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  test('the OAuth 2 scheme declares exactly the eight scopes, each with a description', () => {
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(Object.keys(flow.scopes)).toEqual(catalogue.scopes);
    for (const text of Object.values(flow.scopes)) expect(text).toMatch(/\S/);
    expect({ authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl }).toEqual({
      authorizationUrl: '/v3/auth/auth',
      tokenUrl: '/v3/auth/access_token',
    });
  });

  test('dates are the standard format date-time with the pattern of their shape: no format of the suite is left', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/vds-car-date|vds-date-time/);
    expect(doc.components.schemas.carDate).toMatchObject({ type: 'string', format: 'date-time', pattern: FORMAT_PATTERNS['vds-car-date'] });
    expect(doc.components.schemas.dateTime).toMatchObject({ type: 'string', format: 'date-time', pattern: FORMAT_PATTERNS['vds-date-time'] });
    const car = new RegExp(doc.components.schemas.carDate.pattern);
    const rfc = new RegExp(doc.components.schemas.dateTime.pattern);
    // The car record's strict shape; RFC 3339 with fractions and Z elsewhere (v3-profile.md § Records).
    expect(['2026-03-17T10:20:30+00:00', '2026-03-17T10:20:30-05:30'].every((d) => car.test(d))).toBe(true);
    expect(['2026-03-17T10:20:30Z', '2026-03-17T10:20:30.123+00:00', '2026-03-17 10:20:30+00:00'].some((d) => car.test(d))).toBe(false);
    expect(['2016-03-01T02:24:20.000000+00:00', '2016-01-29T18:36:17Z', '2016-07-15T12:34:30.447653854Z'].every((d) => rfc.test(d))).toBe(true);
    expect(['2016-01-29 18:36:17Z', '2016-01-29T18:36:17+0000', '2016-01-29T18:36:17'].some((d) => rfc.test(d))).toBe(false);
  });

  test('servers resolve to a working base URL: the first, given a port, is the embedded reference', async () => {
    const [first] = doc.servers;
    expect(first.url).toBe('http://127.0.0.1:{port}/v3');
    const app = await buildReferenceApp({ mode: 'cloud' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (app.server.address() as AddressInfo).port;
      const base = first.url.replace('{port}', String(port));
      const res = await fetch(`${base}/users/me`);
      expect(res.status, 'an API answer (401 without a token), not a 404').toBe(401);
      expect(await res.json()).toEqual([expect.objectContaining({ type: 'AUTHENTICATION_ERROR' })]);
    } finally {
      await app.close();
    }
    for (const server of doc.servers)
      expect(server.url, 'an absolute URL (a relative one resolves against the document, not a server)').toMatch(/^https?:\/\//);
  });
});

test.describe('every documented answer, with the reference’s own as its example', () => {
  test('every error-case requirement has its status, type and message under each of its routes, with an example', () => {
    const missing: string[] = [];
    for (const req of catalogue.requirements.filter((r) => r.check === 'error-case')) {
      const e = req.params.expect as { status: unknown; type?: string | string[]; message?: string };
      const types = e.type === undefined ? [] : Array.isArray(e.type) ? e.type : [e.type];
      for (const route of req.routes.map((id) => catalogue.route(id))) {
        const variants = ((req.params.variants as RequestVariant[]) ?? [req.params.request ?? {}]).filter((v) => !v.ifQuery || route.query.includes(v.ifQuery));
        if (variants.length === 0) continue;
        const message = e.message === '@notFound' ? catalogue.pathParams[resourceParam(route)].notFound : e.message;
        const keys = req.per === 'scope' ? route.scopes.map((s) => `${req.id}.${s}`) : [req.id];
        const statuses = (Array.isArray(e.status) ? e.status : [e.status]).map((s) => String(s).toUpperCase());
        const { op } = operationOf(route);
        for (const status of statuses) if (!op.responses[status]) missing.push(`${req.id} ${route.route}: no ${status} response`);
        for (const key of keys) {
          // The example sits under the status the reference answered: one of the documented ones.
          const found = statuses.map((s) => examplesAt(op, s)[key]).find(Boolean);
          if (!found) missing.push(`${key} ${route.route}: no example under ${statuses.join(' or ')}`);
          else if ((types.length && !types.includes(found.value[0].type)) || (message && found.value[0].message !== message))
            missing.push(`${key} ${route.route}: ${JSON.stringify(found.value[0])}`);
        }
      }
    }
    expect(missing, 'documented errors missing from docs/openapi.yaml').toEqual([]);
  });

  test('every error status a requirement expects or provokes is a response of its routes (409s, the 400 of a bad creation body, ...)', () => {
    const missing: string[] = [];
    for (const req of catalogue.requirements) {
      const e = req.params.expect as { status: unknown } | undefined;
      const statuses = [...(e ? (Array.isArray(e.status) ? e.status : [e.status]) : []), ...((req.params.provokes as number[] | undefined) ?? [])];
      for (const route of req.routes.map((id) => catalogue.route(id)))
        for (const s of statuses) if (!operationOf(route).op.responses[String(s).toUpperCase()]) missing.push(`${req.id} ${route.route} ${s}`);
    }
    expect(missing).toEqual([]);
  });

  test("routes.yaml's other documented answers: the token endpoint's 400, 401 and legacy 403, the sign-in page's HTML 404", () => {
    const token = operations.find((o) => o.path === '/auth/access_token')!.op.responses;
    expect(Object.keys(token)).toEqual(['200', '400', '401', '403']);
    expect(token['403'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/legacyError' });
    for (const ex of Object.values(examplesAt({ responses: token }, '403'))) expect(ex.value).toEqual({ message: 'Invalid authentication' });
    expect(Object.values(examplesAt({ responses: token }, '400')).map((ex) => ex.value[0].message)).toContain('Missing parameter');
    const page = operations.find((o) => o.path === '/auth/auth')!.op.responses;
    expect(Object.keys(page)).toEqual(['200', '404']);
    expect(Object.keys(page['404'].content)).toEqual(['text/html']);
    expect(Object.keys(examplesAt({ responses: page }, '404')).sort()).toEqual(['SIGNIN-BAD-REDIRECT', 'SIGNIN-UNKNOWN-CLIENT']);
  });

  test('a route with a noData answer documents it (car statistics: 404 "Statistics not found")', () => {
    for (const route of catalogue.routes.filter((r) => r.noData)) {
      const example = examplesAt(operationOf(route).op, String(route.noData!.status)).noData;
      expect(example.value[0].message, route.route).toBe(route.noData!.message);
    }
  });

  test('every success with a body has the reference’s answer as its example; every documented answer one, under one of its statuses', () => {
    const missing: string[] = [];
    for (const route of catalogue.routes) {
      const { op } = operationOf(route);
      const status = String(route.success.status);
      if (op.responses[status].content && Object.keys(examplesAt(op, status)).join() !== 'reference') missing.push(`${route.route} ${status}`);
      const answers = documentedAnswers(route, catalogue);
      for (const a of answers) {
        if (!a.request) missing.push(`${route.route} ${a.key}: no request to provoke it on the reference`);
        else if (!a.statuses.some((s) => examplesAt(op, s)[a.key])) missing.push(`${route.route} ${a.key}: no example under ${a.statuses.join(' or ')}`);
      }
      // A response without an example documents only answers whose example sits under their other status (400 or 404).
      for (const s of Object.keys(op.responses).filter((x) => x !== status && !Object.keys(examplesAt(op, x)).length)) {
        const here = answers.filter((a) => a.statuses.includes(s));
        if (!here.length || here.some((a) => a.statuses.length < 2)) missing.push(`${route.route} ${s}: no example`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('error examples carry the reference’s real tips (no placeholder), and examples name no secret', () => {
    const text = renderOpenApi(doc);
    expect(text).not.toMatch(/not documented: any/);
    for (const { op } of operations)
      for (const status of Object.keys(op.responses).filter((x) => /^[45]/.test(x)))
        for (const ex of Object.values(examplesAt(op, status)))
          if (Array.isArray(ex.value)) for (const e of ex.value) expect(e.tip, `${op.operationId} ${status}`).toMatch(/\S/);
    for (const secret of [CLIENTS.full.secret, CLIENTS.limited.secret, 'alice-password', 'bob-password']) expect(text).not.toContain(secret);
  });
});

test.describe('the reference server answers what the document describes', () => {
  const DOC_ID = 'https://vds-conformance.test/openapi.yaml';
  let h: Harness;
  let token: string;
  let ajv: Ajv2020;

  test.beforeAll(async () => {
    h = await Harness.start();
    token = await h.alice();
    // The document itself is the schema resource, so "#/components/schemas/..." resolve in it; the
    // standard formats only (ajv-formats): the document knows no format of the suite's.
    ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, strictTuples: false });
    addFormats(ajv);
    ajv.addKeyword({ keyword: 'x-expected', schemaType: 'string' });
    ajv.addVocabulary(Object.keys(doc)); // openapi, info, paths, components...: not JSON Schema keywords
    ajv.addSchema({ ...doc, $id: DOC_ID });
  });
  test.afterAll(async () => h.close());

  const schemaAt = (...parts: string[]) => ajv.compile({ $ref: `${DOC_ID}#/${pointer(...parts)}` });

  test('every GET route with a full-scope token and the seeded ids: the success body validates against its operation', async () => {
    const ids: Record<string, string | number> = { userId: SEED_IDS.alice, carId: SEED_IDS.aliceRichCar, tripId: h.latestTrip(SEED_IDS.aliceRichCar) };
    const signIn = `?client_id=${CLIENTS.full.id}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`;
    const problems: string[] = [];
    const gets = operations.filter((o) => o.method === 'get');
    for (const { path, op } of gets) {
      const status = Object.keys(op.responses)[0];
      const url = `/v3${path.replace(/\{(\w+)\}/g, (_, p: string) => String(ids[p]))}`;
      const res = op.security.length ? await h.get(url, token) : await h.get(url + signIn);
      const type = res.contentType.split(';')[0].trim();
      if (String(res.status) !== status || !op.responses[status].content?.[type]) {
        problems.push(`${url}: ${res.status} ${type}, the document says ${status} ${Object.keys(op.responses[status].content ?? {}).join(' or ')}`);
        continue;
      }
      const validate = schemaAt('paths', path, 'get', 'responses', status, 'content', type, 'schema');
      if (!validate(type === 'text/html' ? res.text : res.json)) problems.push(`${url}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
    expect(gets.length).toBe(catalogue.routes.filter((r) => r.method === 'GET').length);
  });

  test("the token endpoint's answer validates against its operation", async () => {
    const validate = schemaAt('paths', '/auth/access_token', 'post', 'responses', '200', 'content', 'application/json', 'schema');
    expect(validate(await h.tokenResponse()), ajv.errorsText(validate.errors)).toBe(true);
  });

  test('every example validates against the schema it illustrates: answers, error answers and request bodies', () => {
    const problems: string[] = [];
    let count = 0;
    for (const { path, method, op } of operations) {
      const medias: Array<[string[], Json]> = [
        ...Object.entries((op.requestBody?.content ?? {}) as Json).map(([type, media]) => [['requestBody', 'content', type], media] as [string[], Json]),
        ...Object.entries(op.responses as Json).flatMap(([status, response]) =>
          Object.entries((response.content ?? {}) as Json).map(([type, media]) => [['responses', status, 'content', type], media] as [string[], Json]),
        ),
      ];
      for (const [at, media] of medias) {
        const validate = schemaAt('paths', path, method, ...at, 'schema');
        for (const [key, ex] of Object.entries((media.examples ?? {}) as Json)) {
          count += 1;
          if (!validate((ex as Json).value)) problems.push(`${method} ${path} ${at.join(' ')} ${key}: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThan(300);
  });

  test('a wrong date is refused by the document’s schemas: the pattern of the shape, not only the standard format', () => {
    const car = schemaAt('components', 'schemas', 'car');
    const example = operations.find((o) => o.path === '/cars/{carId}')!.op.responses['200'].content['application/json'].examples.reference.value;
    expect(car(example), ajv.errorsText(car.errors)).toBe(true);
    // date-time alone accepts Z; the car record's shape does not (vehicle-data-service-v3.md § Car record).
    expect(car({ ...example, creationDate: example.creationDate.replace('+00:00', 'Z') })).toBe(false);
    expect(car.errors?.map((e) => e.keyword)).toEqual(['pattern']);
  });
});
