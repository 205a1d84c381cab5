// registry.json against the JSON Schema the suite ships for it (src/registry/registry.schema.json):
// what a machine reading the registry relies on, checked as such a reader would (ajv, JSON Schema
// 2020-12, its formats). Shared by the registry's unit test and its test on real archives.
import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SCHEMA_FILE } from '../../../src/registry/site';

let validate: ReturnType<Ajv2020['compile']> | undefined;

/** Each place `value` breaks the schema, as "pointer: message"; none when it conforms. */
export function registryErrors(value: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as object);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}`);
}
