// The target file is a public interface: a bad one must get a clear message naming the key.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import YAML from 'yaml';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import { loadTargetFromEnv } from '../../../src/setup/run-target';
import { BASE_TOKEN_KEYS, DATA_KEYS, listTargetNames, loadTarget, SCOPES, TARGETS_DIR, TargetError } from '../../../src/setup/target';
import { SCOPES as REFERENCE_SCOPES } from '../../../reference-server/auth/clients';

function writeTarget(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-'));
  const file = path.join(dir, 'target.yaml');
  fs.writeFileSync(file, text);
  return file;
}

const VALID = 'name: t\nbaseUrl: http://127.0.0.1:9999/v3\nenv: cloud\n';

function errorOf(text: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadTarget(writeTarget(text), env);
  } catch (err) {
    expect(err).toBeInstanceOf(TargetError);
    return (err as Error).message;
  }
  throw new Error('expected a TargetError');
}

test('the data keys of the target schema are the typed list src/setup/target.ts DATA_KEYS', () => {
  const schema = YAML.parse(fs.readFileSync(path.join(TARGETS_DIR, 'target.schema.yaml'), 'utf8'));
  expect(Object.keys(schema.properties.data.properties).sort()).toEqual([...DATA_KEYS].sort());
});

test('the token keys and scopes of the target schema, the catalogue and the reference are the typed lists of src/setup/target.ts', () => {
  const schema = YAML.parse(fs.readFileSync(path.join(TARGETS_DIR, 'target.schema.yaml'), 'utf8'));
  const tokens = schema.properties.tokens.properties;
  expect(
    Object.keys(tokens)
      .filter((k) => k !== 'withoutScope')
      .sort(),
  ).toEqual([...BASE_TOKEN_KEYS].sort());
  expect(Object.keys(tokens.withoutScope.properties)).toEqual([...SCOPES]);
  expect(loadCatalogue().scopes).toEqual([...SCOPES]);
  // The reference is written independently of the suite: its own list must agree, not be shared.
  expect([...REFERENCE_SCOPES].sort()).toEqual([...SCOPES].sort());
  const architecture = fs.readFileSync(path.join(TARGETS_DIR, '..', '..', 'docs', 'ARCHITECTURE.md'), 'utf8');
  for (const s of SCOPES) expect(architecture, `docs/ARCHITECTURE.md names scope ${s}`).toContain(`\`${s}\``);
});

test('the shipped targets are local, local-sandbox, local-signin, sandbox and cloud', () => {
  expect(listTargetNames()).toEqual(['cloud', 'local', 'local-sandbox', 'local-signin', 'sandbox']);
});

test('every shipped target file loads (variables unset are dropped, not fatal)', () => {
  for (const name of listTargetNames()) {
    const env = { VDS_SANDBOX_URL: 'https://sandbox.example.test/v3', VDS_CLOUD_URL: 'https://cloud.example.test/v3' };
    const t = loadTarget(name, env);
    expect(t.name).toBe(name);
    expect(t.baseUrl).toMatch(/\/v3$/);
  }
});

test('a typo in a key is named, with the key it probably meant', () => {
  const message = errorOf(`${VALID}allowWrite: true\n`);
  expect(message).toContain("unknown key 'allowWrite'");
  expect(message).toContain("did you mean 'allowWrites'?");
});

test('a typo in a nested key names its parent', () => {
  const message = errorOf(`${VALID}tokens:\n  ful: abcdefgh\n`);
  expect(message).toContain("unknown key 'ful' under 'tokens'");
  expect(message).toContain("did you mean 'full'?");
});

test('a baseUrl without /v3 and a wrong env are explained', () => {
  const message = errorOf('name: t\nbaseUrl: http://127.0.0.1:9999/api\nenv: production\n');
  expect(message).toContain("'baseUrl' must be an http(s) URL ending with /v3");
  expect(message).toContain("'env' must be one of cloud, sandbox");
});

test('a missing required key is named', () => {
  expect(errorOf('name: t\nenv: cloud\n')).toContain("missing key 'baseUrl'");
});

test('malformed YAML is reported as such, with no stack', () => {
  const message = errorOf('name: [unclosed\n');
  expect(message).toContain('is not valid YAML');
  expect(message).not.toContain('    at ');
});

test('a target that does not exist lists the known names', () => {
  expect(() => loadTarget('nosuchtarget', {})).toThrow(/Target file not found.*cloud, local, local-sandbox, local-signin, sandbox/);
});

test('${VAR} and ${VAR:-default} are expanded; an unset secret is dropped and remembered', () => {
  const file = writeTarget(`${VALID}tokens:\n  full: \${MY_TOKEN}\n  otherUser: \${OTHER_TOKEN}\noauth:\n  clientId: \${CLIENT:-fallback-client}\n`);
  const t = loadTarget(file, { MY_TOKEN: 'token-from-env' });
  expect(t.tokens.full).toBe('token-from-env');
  expect(t.tokens.otherUser).toBeUndefined();
  expect(t.unset['tokens.otherUser']).toBe('OTHER_TOKEN');
  expect(t.oauth?.clientId).toBe('fallback-client');
});

test('an unset variable inside a longer value is an error naming the key and the variable', () => {
  const message = errorOf('name: t\nbaseUrl: http://${HOST}/v3\nenv: cloud\n');
  expect(message).toContain("key 'baseUrl' uses ${HOST}, which is not set");
});

test('defaults: read-only, 10 s per request', () => {
  const t = loadTarget(writeTarget(VALID), {});
  expect(t.allowWrites).toBe(false);
  expect(t.requestTimeoutMs).toBe(10_000);
});

test("the run's target is read once per process: the same target again, read anew only when a variable it expands or the file named changes", () => {
  const file = writeTarget(`${VALID}tokens:\n  full: \${VDS_TEST_TOKEN}\n`);
  const env = { VDS_TARGET: file, VDS_TEST_TOKEN: 'one' };
  const first = loadTargetFromEnv(env);
  // Changed on disk after it was read: the process keeps the target it started with.
  fs.writeFileSync(file, `${VALID.replace('name: t', 'name: changed')}tokens:\n  full: \${VDS_TEST_TOKEN}\n`);
  expect(loadTargetFromEnv(env)).toBe(first);
  expect(loadTargetFromEnv({ ...env, VDS_UNRELATED: 'x' })).toBe(first);
  // Another value of its variable: read again (and so the change on disk too).
  const second = loadTargetFromEnv({ ...env, VDS_TEST_TOKEN: 'two' });
  expect([second.tokens.full, second.name]).toEqual(['two', 'changed']);
  // Another file: read.
  const other = writeTarget(VALID.replace('name: t', 'name: other'));
  expect(loadTargetFromEnv({ VDS_TARGET: other }).name).toBe('other');
  // --monitor: read-only, from the same reading.
  expect(loadTargetFromEnv({ VDS_TARGET: other, VDS_MONITOR: '1' }).allowWrites).toBe(false);
});
