// The schemas a run compiles without checking them (src/schemas/validate.ts, src/setup/target.ts set
// ajv's validateSchema off: the meta-schema's compilation cost every run about 0.1 s per process) are
// checked here instead, each against JSON Schema 2020-12, so that a malformed one still fails npm test.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import Ajv2020 from 'ajv/dist/2020';
import YAML from 'yaml';
import { SCHEMA_DIR } from '../../../src/schemas/validate';
import { TARGETS_DIR } from '../../../src/setup/target';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const SCHEMA_FILES = [
  ...fs
    .readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => path.join(SCHEMA_DIR, f)),
  path.join(TARGETS_DIR, 'target.schema.yaml'),
  path.join(ROOT, 'contracts', 'requirements.schema.yaml'),
];

/** The meta-schema's complaints about a schema document, as readable lines (none: it is a valid JSON Schema 2020-12). */
function metaSchemaProblems(schema: unknown): string[] {
  const ajv = new Ajv2020({ allErrors: true });
  if (ajv.validateSchema(schema as object)) return [];
  return (ajv.errors ?? []).map((e) => `${e.instancePath || '(top)'} ${e.message}`);
}

for (const file of SCHEMA_FILES) {
  test(`${path.relative(ROOT, file)} is a valid JSON Schema 2020-12`, () => {
    expect(metaSchemaProblems(YAML.parse(fs.readFileSync(file, 'utf8')))).toEqual([]);
  });
}

test('a schema the meta-schema refuses is reported (the check can fail)', () => {
  expect(metaSchemaProblems({ type: 'strnig' })).not.toEqual([]);
  expect(metaSchemaProblems({ properties: { id: { minLength: -1 } } })).not.toEqual([]);
});
