// docs/openapi.yaml is generated from contracts/ (scripts/openapi.ts). It must be what the contracts
// render now, a valid OpenAPI 3.1 document, hold every route with its scopes and every documented
// error with its status, and describe what the reference server really answers: its bodies are
// validated against the document's own schemas, not against contracts/, so a rewriting slip shows.
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { loadCatalogue, resourceParam, type Route } from '../../../src/catalogue/catalogue';
import { isCarDate, isRfc3339DateTime } from '../../../src/schemas/validate';
import { buildOpenApi, OPENAPI_FILE, renderOpenApi } from '../../../scripts/openapi';
import type { RequestVariant } from '../../../src/checks/error-case';
import { CLIENTS, Harness, REDIRECT_URI, SEED_IDS } from '../reference/helpers';

type Json = Record<string, any>;

const catalogue = loadCatalogue();
const doc = buildOpenApi(catalogue) as Json;
const operations = Object.entries(doc.paths as Json).flatMap(([path, methods]) =>
  Object.entries(methods as Json).map(([method, op]) => ({ path, method, op: op as Json })),
);
const operationOf = (route: Route) => operations.find((o) => o.op['x-vds-routes'].includes(route.route))!;
/** An example, or the components/examples entry its $ref names. */
const resolveExample = (ex: Json): Json => (ex.$ref ? doc.components.examples[ex.$ref.split('/').pop()] : ex);
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

test('docs/openapi.yaml is what the contracts render (run `npm run openapi` after a change to contracts/)', () => {
  const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
  expect(committed === renderOpenApi(doc), 'docs/openapi.yaml is stale: run `npm run openapi`').toBe(true);
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

test.describe('every route and every documented error', () => {
  test('every route of routes.yaml is an operation at its path, with its group and its scopes (public routes: none)', () => {
    for (const route of catalogue.routes) {
      const found = operations.filter((o) => o.op['x-vds-routes'].includes(route.route));
      expect(found, route.route).toHaveLength(1);
      const { path, method, op } = found[0];
      expect({ path, method, tags: op.tags, security: op.security }, route.route).toEqual({
        path: route.path,
        method: route.method.toLowerCase(),
        tags: [route.group],
        security: route.public ? [] : [{ oauth2: route.scopes }],
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

  test('the OAuth 2 scheme declares exactly the eight scopes, each with a description', () => {
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(Object.keys(flow.scopes)).toEqual(catalogue.scopes);
    for (const text of Object.values(flow.scopes)) expect(text).toMatch(/\S/);
    expect({ authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl }).toEqual({
      authorizationUrl: '/v3/auth/auth',
      tokenUrl: '/v3/auth/access_token',
    });
  });

  test('every error-case requirement has its status, type and message under each of its routes', () => {
    const missing: string[] = [];
    for (const req of catalogue.requirements.filter((r) => r.check === 'error-case')) {
      const e = req.params.expect as { status: unknown; type: string | string[]; message?: string };
      const types = Array.isArray(e.type) ? e.type : [e.type];
      for (const route of req.routes.map((id) => catalogue.route(id))) {
        const variants = ((req.params.variants as RequestVariant[]) ?? [req.params.request ?? {}]).filter((v) => !v.ifQuery || route.query.includes(v.ifQuery));
        if (variants.length === 0) continue;
        const message = e.message === '@notFound' ? catalogue.pathParams[resourceParam(route)].notFound : e.message;
        const keys = req.per === 'scope' ? route.scopes.map((s) => `${req.id}.${s}`) : [req.id];
        for (const status of (Array.isArray(e.status) ? e.status : [e.status]).map((s) => String(s).toUpperCase())) {
          const examples = operationOf(route).op.responses[status]?.content?.['application/json']?.examples ?? {};
          for (const key of keys) {
            const value = examples[key] ? resolveExample(examples[key]).value : undefined;
            if (!value) missing.push(`${key} ${route.route}: no ${status} example`);
            else if (!types.includes(value[0].type) || (message && value[0].message !== message))
              missing.push(`${key} ${route.route}: ${status} ${JSON.stringify(value[0])}`);
          }
        }
      }
    }
    expect(missing, 'documented errors missing from docs/openapi.yaml').toEqual([]);
  });

  test('a route with a noData answer documents it (car statistics: 404 "Statistics not found")', () => {
    for (const route of catalogue.routes.filter((r) => r.noData)) {
      const example = resolveExample(operationOf(route).op.responses[String(route.noData!.status)].content['application/json'].examples.noData);
      expect(example.value[0].message, route.route).toBe(route.noData!.message);
    }
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
    // The document itself is the schema resource, so "#/components/schemas/..." resolve in it.
    ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, strictTuples: false });
    addFormats(ajv);
    ajv.addFormat('vds-car-date', { type: 'string', validate: isCarDate });
    ajv.addFormat('vds-date-time', { type: 'string', validate: isRfc3339DateTime });
    ajv.addKeyword({ keyword: 'x-expected', schemaType: 'string' });
    ajv.addVocabulary(Object.keys(doc)); // openapi, info, paths, components...: not JSON Schema keywords
    ajv.addSchema({ ...doc, $id: DOC_ID });
  });
  test.afterAll(async () => h.close());

  const schemaAt = (path: string, method: string, status: string, type: string) =>
    ajv.compile({ $ref: `${DOC_ID}#/${pointer('paths', path, method, 'responses', status, 'content', type, 'schema')}` });

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
      const validate = schemaAt(path, 'get', status, type);
      if (!validate(type === 'text/html' ? res.text : res.json)) problems.push(`${url}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
    expect(gets.length).toBe(catalogue.routes.filter((r) => r.method === 'GET').length);
  });

  test("the token endpoint's answer validates against its operation", async () => {
    const validate = schemaAt('/auth/access_token', 'post', '200', 'application/json');
    expect(validate(await h.tokenResponse()), ajv.errorsText(validate.errors)).toBe(true);
  });

  test('a 401 without a token validates against the error schema, with a documented message', async () => {
    const res = await h.get(`/v3/cars/${SEED_IDS.aliceRichCar}/status`);
    expect(res.status).toBe(401);
    const validate = schemaAt('/cars/{carId}/status', 'get', '401', 'application/json');
    expect(validate(res.json), ajv.errorsText(validate.errors)).toBe(true);
    const examples = Object.values(doc.paths['/cars/{carId}/status'].get.responses['401'].content['application/json'].examples as Json);
    expect(examples.map((ex) => resolveExample(ex).value[0].message)).toContain(res.json[0].message);
  });

  test('every error example validates against the schema of its response', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Json)) {
          const validate = schemaAt(path, method, status, type);
          for (const [key, ex] of Object.entries((media.examples ?? {}) as Json)) {
            if (!validate(resolveExample(ex).value)) problems.push(`${method} ${path} ${status} ${key}: ${ajv.errorsText(validate.errors)}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
