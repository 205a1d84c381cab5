// The certificate's identity: a SHA-256 over exactly what decides verdicts (VERDICT_SOURCES), one list
// that the git state reads too. An assertion changed changes it; the kill matrix (generated data of the
// project's own tests) refreshed does not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { suiteContentHash, VERDICT_SOURCES } from '../../../src/certification/identity';
import { KILLS_FILE } from '../../../scripts/kill-matrix';

const ROOT = path.resolve(__dirname, '../../..');

function copyOfTheSuite(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-identity-'));
  for (const p of [...VERDICT_SOURCES, path.relative(ROOT, KILLS_FILE)]) fs.cpSync(path.join(ROOT, p), path.join(dir, p), { recursive: true });
  return dir;
}

test('what decides verdicts is hashed: the check procedures, the check API (assertions), the engine, the catalogue, the schemas, the verdict rules', () => {
  for (const p of ['contracts', 'src/checks', 'src/check-api', 'src/engine', 'src/catalogue', 'src/schemas', 'src/verdict', 'src/transport', 'src/setup']) {
    expect(VERDICT_SOURCES as readonly string[], p).toContain(p);
  }
  for (const p of ['src/rendering', 'src/monitoring', 'src/cli', 'tests/self']) expect(VERDICT_SOURCES as readonly string[], p).not.toContain(p);
  expect(
    VERDICT_SOURCES.some((p) => path.relative(path.join(ROOT, p), KILLS_FILE).startsWith('..') === false),
    'the kill matrix is not hashed',
  ).toBe(false);
});

test('a comment appended to an assertion changes the hash; one appended to the kill matrix does not', () => {
  const dir = copyOfTheSuite();
  try {
    const before = suiteContentHash(dir);
    expect(before).toBe(suiteContentHash(ROOT));
    fs.appendFileSync(path.join(dir, path.relative(ROOT, KILLS_FILE)), '# refreshed\n');
    expect(suiteContentHash(dir)).toBe(before);
    fs.appendFileSync(path.join(dir, 'src/check-api/assertions.ts'), '// changed\n');
    expect(suiteContentHash(dir)).not.toBe(before);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
