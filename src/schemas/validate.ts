// The record contracts (contracts/schemas/*.yaml, JSON Schema 2020-12) and their validator.
// Every schema is compiled once per process (a Playwright worker is a process), when first used:
// Playwright starts a fresh worker after each failing check, so compiling all 23 up front would be
// paid again after every failure. The contract self-tests compile every one (compileAll).
// Failures are made readable for vendors (src/schemas/violations.ts); members the documents
// do not show are never failures, only reported by unknownFields() for warnings.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { cachedParse } from '../util/parsed-cache';
import { SUITE_ROOT } from '../util/suite-info';
import { FORMAT_EXPECTATIONS, isCarDate, isRfc3339DateTime } from './formats';
import { escapePointerToken, unescapePointerToken } from './json-pointer';
import { toViolations, type ContractViolation } from './violations';

export { describeViolations, type ContractViolation } from './violations';
export { isCarDate, isRfc3339DateTime } from './formats';

export const SCHEMA_DIR = path.join(SUITE_ROOT, 'contracts', 'schemas');
export const SCHEMA_BASE = 'https://vds-conformance.test/schemas/';

type Schema = Record<string, unknown>;

export interface ContractRegistry {
  readonly ajv: Ajv2020;
  /** Parsed schema documents by contract name. */
  readonly schemas: ReadonlyMap<string, Schema>;
  /** Compiled validators by contract name, filled as contracts are first used. */
  readonly validators: Map<string, ValidateFunction>;
}

let registry: ContractRegistry | undefined;

function build(): ContractRegistry {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true, // errors carry the offending data and the failing schema (for x-expected)
    strict: true,
    allowUnionTypes: true,
    strictTuples: false, // a position's altitude is optional: prefixItems of 3 with minItems 2
    // The contracts are checked against JSON Schema 2020-12 by npm test (tests/self/contracts/meta-schema.test.ts),
    // not by each run: compiling the meta-schema would cost each worker about 0.1 s.
    validateSchema: false,
  });
  addFormats(ajv); // the standard formats, available to any contract that needs one
  ajv.addFormat('vds-car-date', { type: 'string', validate: isCarDate });
  ajv.addFormat('vds-date-time', { type: 'string', validate: isRfc3339DateTime });
  ajv.addKeyword({ keyword: 'x-expected', schemaType: 'string' }); // annotation only: readable expectation

  const schemas = new Map<string, Schema>();
  const files = fs
    .readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  // Parsed once between runs (src/util/parsed-cache.ts): the YAML was most of a worker's first contract check.
  const parsed = cachedParse(
    files.map((f) => path.join(SCHEMA_DIR, f)),
    (texts) => texts.map((t) => YAML.parse(t) as Schema),
    'schemas',
  );
  for (const [i, file] of files.entries()) {
    const schema = parsed[i];
    if (schema.$id !== SCHEMA_BASE + file) {
      throw new Error(`contracts/schemas/${file}: $id must be ${SCHEMA_BASE + file}, found ${String(schema.$id)}`);
    }
    schemas.set(file.replace(/\.yaml$/, ''), schema);
    ajv.addSchema(schema);
  }
  return { ajv, schemas, validators: new Map<string, ValidateFunction>() };
}

/** The process-wide registry; built on first call, the same object afterwards. */
export function contractRegistry(): ContractRegistry {
  registry ??= build();
  return registry;
}

export function contractNames(): string[] {
  return [...contractRegistry().schemas.keys()];
}

function splitName(contract: string): { name: string; isArray: boolean } {
  const isArray = contract.endsWith('[]');
  const name = isArray ? contract.slice(0, -2) : contract;
  if (!contractRegistry().schemas.has(name)) {
    throw new Error(`unknown contract '${contract}'; known: ${contractNames().join(', ')}`);
  }
  return { name, isArray };
}

/** Compiles (once) and returns the validator of a contract name without "[]". */
function compiled(name: string): ValidateFunction {
  const r = contractRegistry();
  let validate = r.validators.get(name);
  if (!validate) {
    validate = r.ajv.getSchema(r.schemas.get(name)!.$id as string)!;
    r.validators.set(name, validate);
  }
  return validate;
}

/** Compiles every contract: a broken schema then fails at once, whatever contract a test uses. */
export function compileAll(): void {
  for (const name of contractRegistry().schemas.keys()) compiled(name);
}

/** The compiled validator of one contract (always the same function object within a process). */
export function validatorFor(name: string): ValidateFunction {
  return compiled(splitName(name).name);
}

function checkOne(name: string, body: unknown, prefix: string): ContractViolation[] {
  const validate = compiled(name);
  if (validate(body)) return [];
  return toViolations(validate.errors ?? []).map((v) => ({ ...v, pointer: prefix + v.pointer }));
}

/**
 * Violations of `body` against a contract, [] when it conforms. "name[]" means a JSON array whose
 * every element has the contract; pointers then start with the element index ("/3/creationDate").
 */
export function checkContract(contract: string, body: unknown): ContractViolation[] {
  const { name, isArray } = splitName(contract);
  if (!isArray) return checkOne(name, body, '');
  if (!Array.isArray(body)) return [{ pointer: '', keyword: 'type', expected: `array of ${name}`, actual: body }];
  return body.flatMap((item, i) => checkOne(name, item, `/${i}`));
}

// ---- unknown members: walk the schema and the body together --------------------------------------

interface Facet {
  schema: Schema;
  base: string;
}

function resolveRef(ref: string, base: string): Facet {
  const url = new URL(ref, base);
  const docId = url.href.replace(/#.*$/, '');
  const name = docId.slice(SCHEMA_BASE.length).replace(/\.yaml$/, '');
  let node: unknown = contractRegistry().schemas.get(name);
  if (node === undefined) throw new Error(`unresolvable $ref ${ref} (from ${base})`);
  const fragment = decodeURIComponent(url.hash.replace(/^#/, ''));
  for (const token of fragment.split('/').slice(1)) {
    node = (node as Schema)[unescapePointerToken(token)];
  }
  return { schema: node as Schema, base: docId };
}

/** facets() by schema node and base: records are walked by the thousand (QUERY-RANGE), their schemas are few. */
const facetCache = new WeakMap<object, Map<string, Facet[]>>();

/** The schema plus everything it applies in place ($ref, allOf, anyOf, oneOf), flattened. */
function facets(schema: unknown, base: string): Facet[] {
  if (schema === null || typeof schema !== 'object') return []; // true/false schemas say nothing about members
  const byBase = facetCache.get(schema) ?? new Map<string, Facet[]>();
  facetCache.set(schema, byBase);
  let out = byBase.get(base);
  if (!out) {
    const s = schema as Schema;
    out = [{ schema: s, base }];
    if (typeof s.$ref === 'string') {
      const target = resolveRef(s.$ref, base);
      out.push(...facets(target.schema, target.base));
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      for (const sub of (s[key] as unknown[] | undefined) ?? []) out.push(...facets(sub, base));
    }
    byBase.set(base, out);
  }
  return out;
}

/**
 * What a list of facets says of an object's members and an array's items, worked out once per list
 * (the lists are themselves made once: facets(), membersOf(), itemsOf()), not once per record: a
 * list of thousands of records walks the same few.
 */
interface Shape {
  /** The facets that describe members (have properties); none: the object's members are not described. */
  withProps: Facet[];
  /** A declared member's facets, by name. */
  members: Map<string, Facet[]>;
  /** An item's facets, by index where prefixItems differ, else under -1. */
  items: Map<number, Facet[]>;
}
const shapes = new WeakMap<Facet[], Shape>();

function shapeOf(schemas: Facet[]): Shape {
  let shape = shapes.get(schemas);
  if (!shape) {
    shape = { withProps: schemas.filter((f) => f.schema.properties && typeof f.schema.properties === 'object'), members: new Map(), items: new Map() };
    shapes.set(schemas, shape);
  }
  return shape;
}

/** The facets of member `key` of an object the facets describe; undefined: a member they do not declare. */
function membersOf(shape: Shape, key: string): Facet[] | undefined {
  const known = shape.members.get(key);
  if (known) return known;
  const declaring = shape.withProps.filter((f) => Object.prototype.hasOwnProperty.call(f.schema.properties, key));
  if (declaring.length === 0) return undefined; // not kept: a server's own member names are not the schema's
  const out = declaring.flatMap((f) => facets((f.schema.properties as Schema)[key], f.base));
  shape.members.set(key, out);
  return out;
}

/** The facets of item `i` of an array the facets describe. */
function itemsOf(shape: Shape, schemas: Facet[], i: number): Facet[] {
  const byIndex = schemas.some((f) => Array.isArray(f.schema.prefixItems) && i < (f.schema.prefixItems as unknown[]).length);
  const k = byIndex ? i : -1;
  let out = shape.items.get(k);
  if (!out) {
    out = schemas.flatMap((f) => {
      const prefix = f.schema.prefixItems as unknown[] | undefined;
      const s = prefix && i < prefix.length ? prefix[i] : f.schema.items;
      return facets(s, f.base);
    });
    shape.items.set(k, out);
  }
  return out;
}

/**
 * Walks a body with its schemas: returns the body keeping only the members the schemas describe, and
 * adds to `unknown` the pointer of every member they do not.
 */
function walk(value: unknown, schemas: Facet[], pointer: string, unknown: string[]): unknown {
  const shape = shapeOf(schemas);
  if (Array.isArray(value)) return value.map((item, i) => walk(item, itemsOf(shape, schemas, i), `${pointer}/${i}`, unknown));
  if (value === null || typeof value !== 'object') return value;
  if (shape.withProps.length === 0) return value; // the contract does not describe this object's members
  const documented: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
    const memberPointer = `${pointer}/${escapePointerToken(key)}`;
    const declared = membersOf(shape, key);
    if (!declared) unknown.push(memberPointer);
    else documented[key] = walk(member, declared, memberPointer, unknown);
  }
  return documented;
}

/** A value as JSON with every object's members in name order, at every depth. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** Walks `body` with a contract ("car[]" walks the array with the car schema as its items). */
function walkContract(contract: string, body: unknown): { documented: unknown; unknown: string[] } {
  const { name, isArray } = splitName(contract);
  const schema = contractRegistry().schemas.get(name)!;
  const root = facets(schema, schema.$id as string);
  const unknown: string[] = [];
  const documented = isArray ? (Array.isArray(body) ? body.map((item, i) => walk(item, root, `/${i}`, unknown)) : body) : walk(body, root, '', unknown);
  return { documented, unknown };
}

/**
 * JSON pointers of the object members in `body` that the contract does not describe (following
 * $ref, allOf/anyOf/oneOf and array items). For warnings only: unknown members are never failures.
 */
export function unknownFields(contract: string, body: unknown): string[] {
  return walkContract(contract, body).unknown;
}

/**
 * `body` with only the members the contract describes, at every depth: what two answers are compared
 * on. A member the documents do not show (a vendor's request id, a timestamp of the answer) may
 * differ from answer to answer without the records differing.
 */
export function documentedOnly(contract: string, body: unknown): unknown {
  return walkContract(contract, body).documented;
}

/**
 * An item's identity in two answers: documentedOnly's members as JSON, in name order at every depth
 * (two answers may list the members in another order). Equal keys, equal documented members.
 */
export function documentedKey(contract: string, body: unknown): string {
  return canonicalJson(documentedOnly(contract, body));
}

/** What a contract's schema says of one top-level member: its JSON types and its format, if any. */
export interface MemberSchema {
  types: string[];
  format?: string;
}

/**
 * The members a contract declares on its top-level object (following $ref and allOf), each with its
 * types and format: what a write's answer holds, against what its request body takes (the members a
 * client must not set are the difference).
 */
export function memberSchemas(contract: string): Map<string, MemberSchema> {
  const { name } = splitName(contract);
  const schema = contractRegistry().schemas.get(name)!;
  const shape = shapeOf(facets(schema, schema.$id as string));
  const out = new Map<string, MemberSchema>();
  for (const f of shape.withProps) {
    for (const key of Object.keys(f.schema.properties as Schema)) {
      if (out.has(key)) continue;
      const member = membersOf(shape, key) ?? [];
      const types = [...new Set(member.flatMap((m) => [m.schema.type].flat().filter((t): t is string => typeof t === 'string')))];
      const format = member.map((m) => m.schema.format).find((x): x is string => typeof x === 'string');
      out.set(key, { types, ...(format ? { format } : {}) });
    }
  }
  return out;
}

/**
 * The date members of a contract at any depth ("car[]": those of a car), by name: the date format
 * each must follow (vds-car-date or vds-date-time, src/schemas/formats.ts). The triage
 * (src/verdict/triage-dates.ts) reads the dates of answers through it.
 */
export function dateMembers(contract: string): Map<string, string> {
  const { name } = splitName(contract);
  const schema = contractRegistry().schemas.get(name)!;
  const found = new Map<string, string>();
  const seen = new Set<object>();
  const visit = (list: Facet[]): void => {
    for (const f of list) {
      if (seen.has(f.schema)) continue;
      seen.add(f.schema);
      for (const [key, sub] of Object.entries((f.schema.properties as Schema | undefined) ?? {})) {
        const subFacets = facets(sub, f.base);
        const format = subFacets.map((s) => s.schema.format).find((x): x is string => typeof x === 'string' && x in FORMAT_EXPECTATIONS);
        if (format && !found.has(key)) found.set(key, format);
        visit(subFacets);
      }
      const items = [f.schema.items, ...((f.schema.prefixItems as unknown[] | undefined) ?? [])];
      for (const item of items) visit(facets(item, f.base));
    }
  };
  visit(facets(schema, schema.$id as string));
  return found;
}
