// A target with only a `full` token: the checks that need other tokens are reported as not run,
// naming the target-file keys that would make them run, never as passed (issue "auth", done when).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { Harness } from '../reference/helpers';
import { runSuite, writeTargetFile } from './run-suite';

interface JsonTest { status: string; annotations: Array<{ type: string; description?: string }> }
interface JsonSuite { specs?: Array<{ title: string; tests: JsonTest[] }>; suites?: JsonSuite[] }

function outcomes(file: string): Map<string, JsonTest> {
  const found = new Map<string, JsonTest>();
  const walk = (s: JsonSuite) => {
    for (const spec of s.specs ?? []) found.set(spec.title, spec.tests[0]);
    for (const child of s.suites ?? []) walk(child);
  };
  for (const s of (JSON.parse(fs.readFileSync(file, 'utf8')) as { suites: JsonSuite[] }).suites) walk(s);
  return found;
}

test('only tokens.full: scope, cross-user, expired and revoked checks are not run, naming the missing keys', async () => {
  const h = await Harness.start({ now: Date.now() });
  try {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (h.app.server.address() as AddressInfo).port;
    const target = writeTargetFile(`name: only-full\nbaseUrl: http://127.0.0.1:${port}/v3\nenv: cloud\ntokens:\n  full: ${await h.token()}\n`);
    const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-json-')), 'results.json');
    const run = await runSuite({
      target,
      args: ['--reporter=json', '--grep', '(SCOPE-MISSING|SCOPE-NOT-NEEDED|SCOPE-NONE|ERR-CAR-FORBIDDEN|AUTH-EXPIRED|AUTH-REVOKED|RESP-STATUS) GET /cars/\\{carId\\}/status'],
      env: { PLAYWRIGHT_JSON_OUTPUT_FILE: json },
    });
    expect(run.code, run.output).toBe(0);
    const tests = outcomes(json);
    const notRun = (title: string) => {
      const t = tests.get(title);
      expect(t, `${title} in ${[...tests.keys()].join(', ')}`).toBeTruthy();
      expect(t!.status).toBe('skipped');
      return t!.annotations.find((a) => a.type === 'not-run')?.description ?? '';
    };
    expect(notRun('SCOPE-MISSING GET /cars/{carId}/status [status_read]')).toContain('tokens.withoutScope.status_read');
    expect(notRun('SCOPE-NOT-NEEDED GET /cars/{carId}/status')).toContain('tokens.withoutScope');
    expect(notRun('SCOPE-NONE GET /cars/{carId}/status')).toContain('tokens.noScopes');
    const crossUser = notRun('ERR-CAR-FORBIDDEN GET /cars/{carId}/status');
    expect(crossUser).toContain('data.otherCarId');
    expect(crossUser).toContain('tokens.otherUser');
    expect(notRun('AUTH-EXPIRED GET /cars/{carId}/status')).toContain('tokens.expired');
    expect(notRun('AUTH-REVOKED GET /cars/{carId}/status')).toContain('tokens.revoked');
    // ... while what the full token allows does run.
    expect(tests.get('RESP-STATUS GET /cars/{carId}/status')?.status).toBe('expected');
  } finally {
    await h.close();
  }
});
