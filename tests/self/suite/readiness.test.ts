// Certification readiness (src/setup/readiness.ts) is the catalogue's word on what a target cannot run,
// given before anything is sent: it must be what the run then does.
//   - Every input a check asks for (check-api's CheckContext.asked: tokens, ids, writes, a browser) is
//     one its requirement's needs name (src/catalogue/needs.ts), in a whole run with every token minted
//     through the sign-in page, so that readiness never misses what a check will need. Ids the run
//     discovers (users, cars, trips, a car without a device) and optional ones may be asked beyond them.
//   - On a target lacking inputs, the checks readiness says cannot run are exactly those the run
//     reports not run, each for the input readiness names, in the same words: a vendor's (OAuth
//     credentials only, no second application, no lockable device) and a read-only one without a browser.
//   - --certify on a target that cannot pass says so before anything is sent: exit 2, which keys are
//     missing and how to get them, the reports folder untouched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { expect, test } from '@playwright/test';
import { loadCatalogue, planChecks } from '../../../src/catalogue/catalogue';
import { checkNeeds, inputInfo } from '../../../src/catalogue/needs';
import { runInProcess } from '../../../src/engine/in-process';
import { chooseBrowser, type BrowserChoice } from '../../../src/setup/browser';
import { checksThatCannotRun } from '../../../src/setup/readiness';
import { loadTarget } from '../../../src/setup/target';
import { startReference, type ReferenceTarget } from '../../../scripts/reference-process';
import { runCommand } from '../support/child-run';

/** Ids a run discovers (users, cars, trips, a car without a device) or takes when given (optional): asked beyond the needs. */
const DISCOVERED = new Set([
  'data.userId',
  'data.otherUserId',
  'data.carId',
  'data.otherCarId',
  'data.tripId',
  'data.otherTripId',
  'data.deviceCarId',
  'data.secondDeviceCarId',
  'data.secondDeviceForCarId',
  'data.lockableDevicePin',
]);

/** A target file for a reference of `name`, changed by `edit` (keys removed or set). */
function targetFileFor(file: string, edit: (t: Record<string, any>) => void): string {
  const t = YAML.parse(fs.readFileSync(file, 'utf8'));
  edit(t);
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-readiness-')), 'target.yaml');
  fs.writeFileSync(out, YAML.stringify(t));
  return out;
}

async function withReference(target: ReferenceTarget, use: (file: string) => Promise<void>): Promise<void> {
  const reference = await startReference({ target });
  try {
    await use(reference.targetFile);
  } finally {
    await reference.stop();
  }
}

test.describe('certification readiness', () => {
  test.describe.configure({ timeout: 300_000 });

  test("every input a check asks for is one its requirement's needs name (a whole run, tokens through the sign-in page)", async () => {
    const browserChoice = chooseBrowser();
    test.skip(!browserChoice.executablePath, 'no browser: the sign-in checks would ask nothing');
    const catalogue = loadCatalogue();
    const plan = new Map(planChecks(catalogue).map((p) => [p.key, p]));
    await withReference('local-signin', async (file) => {
      const run = await runInProcess({ target: loadTarget(file), catalogue, browserChoice });
      expect(run.certificate.counts.checks.notRun, 'every check ran').toBe(0);
      const unnamed = run.records.flatMap((r) => {
        const needs = new Set(checkNeeds(plan.get(r.key)!, catalogue));
        const named = (a: string) =>
          needs.has(a) ||
          DISCOVERED.has(a) ||
          (a === 'browser' && (needs.has('code') || needs.has('tokens.restrictedApp'))) ||
          (a.startsWith('tokens.withoutScope.') && needs.has('tokens.withoutScope'));
        return (r.asked ?? []).filter((a) => !named(a)).map((a) => `${r.key} asked ${a}`);
      });
      expect(unnamed).toEqual([]);
      expect(run.records.filter((r) => r.asked?.includes('data.freeDeviceId')).length, 'the trace sees the inputs asked').toBeGreaterThan(5);
    });
    // Every need named (but the ids a run discovers) is an input contracts/inputs.yaml says how to get.
    const inputs = inputInfo();
    for (const p of plan.values()) {
      for (const n of checkNeeds(p, catalogue).filter((x) => !DISCOVERED.has(x)))
        expect(inputs[n.startsWith('tokens.withoutScope.') ? 'tokens.withoutScope' : n], n).toBeTruthy();
    }
  });

  /** Runs the whole suite on `file` and holds its checks not run to what readiness said of the target. */
  async function expectPredicted(file: string, browserChoice: BrowserChoice, inputs: string[]): Promise<void> {
    const catalogue = loadCatalogue();
    const target = loadTarget(file);
    const predicted = new Map(checksThatCannotRun(target, catalogue, browserChoice).map((c) => [c.check.key, c.missing]));
    expect([...new Set([...predicted.values()].flat().map(([input]) => input))].sort()).toEqual([...inputs].sort());
    const run = await runInProcess({ target, catalogue, browserChoice });
    // Advisory requirements never count: readiness leaves them out.
    const advisory = new Set(catalogue.requirements.filter((r) => r.advisory).map((r) => r.id));
    const notRun = new Map(run.records.filter((r) => r.status === 'not-run' && !advisory.has(r.requirement)).map((r) => [r.key, r]));
    expect(
      [...notRun.keys()].filter((k) => !predicted.has(k)).map((k) => `${k}: ${notRun.get(k)!.reason}`),
      'not run, and readiness did not say so',
    ).toEqual([]);
    expect(
      [...predicted.keys()].filter((k) => !notRun.has(k)),
      'readiness said it could not run, and it ran',
    ).toEqual([]);
    // The same words: the reason a check gives is the one readiness gave for the input it lacked.
    for (const [key, record] of notRun) {
      const missing = predicted.get(key)!;
      expect(record.missing, key).toBeTruthy();
      const [input, why] = missing.find(([i]) => i === record.missing || record.missing!.startsWith(`${i}.`)) ?? [];
      expect(input, `${key} lacked ${record.missing}, readiness said ${missing.map(([i]) => i).join(', ')}`).toBeTruthy();
      expect(record.reason, key).toBe(why);
    }
  }

  test("a vendor's target (OAuth credentials only, no second application, no lockable device): readiness names what the run does not run", async () => {
    const browserChoice = chooseBrowser();
    test.skip(!browserChoice.executablePath, 'no browser: no token could be minted through the sign-in page');
    await withReference('local-signin', (reference) =>
      expectPredicted(
        targetFileFor(reference, (t) => {
          delete t.control;
          delete t.oauth.restrictedClientId;
          delete t.oauth.restrictedClientSecret;
          delete t.data.lockableDeviceId;
          delete t.data.lockableDevicePin;
        }),
        browserChoice,
        ['tokens.expired', 'tokens.revoked', 'tokens.restrictedApp', 'oauth.restricted', 'data.lockableDeviceId'],
      ),
    );
  });

  test('a read-only target without a browser: readiness names what the run does not run', async () => {
    await withReference('local', (reference) =>
      expectPredicted(
        targetFileFor(reference, (t) => {
          t.allowWrites = false;
        }),
        { missing: 'VDS_BROWSER=none (unset it where a Chromium is installed)' },
        ['writes', 'browser', 'tokens.restrictedApp'],
      ),
    );
  });

  test('--certify on a target that cannot pass: exit 2 before anything is sent, naming each missing key and how to get it', async () => {
    const reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
    fs.writeFileSync(path.join(reportsDir, 'conformance.json'), '{"kept": true}\n');
    // No server at all behind it: nothing may be sent.
    const file = targetFileFor(path.join(__dirname, '../../../fixtures/targets/local-signin.yaml'), (t) => {
      delete t.startCommand;
      delete t.control;
      t.baseUrl = 'http://127.0.0.1:9/v3';
    });
    const run = await runCommand(['conformance', '--target', file, '--certify'], { reportsDir, timeoutMs: 120_000 });
    expect(run.code, run.output).toBe(2);
    expect(run.output).toContain(
      `Certification readiness of ${file}: 2 requirements cannot run on this target (46 checks), and a certification needs every one:`,
    );
    expect(run.output).toContain(
      `○ tokens.revoked: tokens.revoked is not in ${file}, nor tokenCommands.revoked, and the target has no control API to make one`,
    );
    expect(run.output).toMatch(
      /○ tokens\.expired: tokens\.expired is not in .*; a run keeps a token it mints \(.*\.vds-conformance\) and a later run takes it once its expires_in has passed/,
    );
    expect(run.output).toContain(`how: ${inputInfo()['tokens.revoked'].how}`);
    expect(run.output).toContain('keeps from running: AUTH-REVOKED (23 checks)');
    expect(run.output).toContain('--certify: this certification cannot pass on this target, so nothing was sent and nothing written (exit 2)');
    expect(run.output).not.toMatch(/Running \d+ checks|Target /);
    expect(fs.readdirSync(reportsDir)).toEqual(['conformance.json']);
    expect(fs.readFileSync(path.join(reportsDir, 'conformance.json'), 'utf8')).toBe('{"kept": true}\n');
  });
});
