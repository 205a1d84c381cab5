// src/util/parsed-cache.ts keeps parsed YAML between runs: the same contents give the earlier result
// without parsing, any change parses again, and a refusal is never kept (the next run refuses again).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cachedParse } from '../../../src/util/parsed-cache';

test('the same contents are parsed once; a changed file is parsed again; a refusal is not kept', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-parsed-'));
  const file = path.join(dir, 'doc.yaml');
  // A content no other test or run has: the cache is keyed by it.
  const unique = `${process.pid}-${Date.now()}-${Math.random()}`;
  let parses = 0;
  const parse = (texts: string[]) => {
    parses += 1;
    if (texts[0].includes('refuse')) throw new Error('refused');
    return { text: texts[0] };
  };

  fs.writeFileSync(file, `a: ${unique}`);
  expect(cachedParse([file], parse, 'test')).toEqual({ text: `a: ${unique}` });
  expect(cachedParse([file], parse, 'test')).toEqual({ text: `a: ${unique}` });
  expect(parses).toBe(1);

  fs.writeFileSync(file, `b: ${unique}`);
  expect(cachedParse([file], parse, 'test')).toEqual({ text: `b: ${unique}` });
  expect(parses).toBe(2);

  fs.writeFileSync(file, `refuse: ${unique}`);
  expect(() => cachedParse([file], parse, 'test')).toThrow('refused');
  expect(() => cachedParse([file], parse, 'test')).toThrow('refused');
  expect(parses).toBe(4);
});
