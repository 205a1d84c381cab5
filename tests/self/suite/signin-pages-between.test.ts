// Pages between the sign-in and the redirect, as real authorization servers put them: the suite goes
// through a consent page as a person would (it allows the application, never denies it), in the
// languages such pages come in; a page whose controls it cannot read (icons only) leaves every check
// that signs in not run, at once, naming oauth.signInPage.allow, and that key then gets it through.
// The reference with variant signin-consent-page, a front server rewriting its consent page; the run's
// tokens from the control API (the checks of the sign-in page and the token endpoint sign in through
// the page themselves; a run minting every token through it is the precision proof's, on every variant).
// In-process runs of the auth group.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { expect, test } from '@playwright/test';
import { chooseBrowser } from '../../../src/setup/browser';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { startReference } from '../reporting/real-run';
import { startFrontServer } from '../support/front-server';

test.skip(!chooseBrowser().executablePath, 'no Chromium: the browser checks would not run anyway');
test.setTimeout(240_000);

const BROWSER_CHECKS = ['SIGNIN-CODE-STATE', 'SIGNIN-REDIRECT-EXACT', 'SIGNIN-SCOPE-SUBSET'];

async function runThrough(rewrite: Array<[RegExp, string]>, signInPage: Record<string, string> = {}): Promise<InProcessRun> {
  const reference = await startReference({ variant: 'signin-consent-page' });
  const front = await startFrontServer(`http://127.0.0.1:${reference.port}`, {}, { '/v3/auth/auth': rewrite });
  try {
    const target = YAML.parse(fs.readFileSync(reference.targetFile, 'utf8'));
    target.baseUrl = `${front.origin}/v3`;
    target.oauth = { ...target.oauth, ...(Object.keys(signInPage).length ? { signInPage } : {}) };
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'target.yaml');
    fs.writeFileSync(file, YAML.stringify(target));
    return await runInProcess({ target: loadTarget(file), selection: { grep: /@auth/ } });
  } finally {
    await front.close();
    await reference.stop();
  }
}

const byId = (run: InProcessRun, id: string) => run.certificate.requirements.find((r) => r.id === id)!;

test('a consent page in French: the suite allows the application (never "Refuser") and every sign-in check runs and passes', async () => {
  const run = await runThrough([
    [/>Allow</, '>Autoriser<'],
    [/>Deny</, '>Refuser<'],
    [/Allow (.*) to access your data\?/, 'Autoriser $1 à accéder à vos données ?'],
  ]);
  expect(run.certificate.counts.checks.failed, run.console).toBe(0);
  for (const id of BROWSER_CHECKS) expect(byId(run, id).status, id).toBe('passed');
});

test('a consent page whose buttons are icons: not run at once, naming oauth.signInPage.allow; given, it gets through', async () => {
  const icons: Array<[RegExp, string]> = [
    [/>Deny</, '>&#10007;<'],
    [/<button type="submit" name="decision" value="allow">Allow</, '<button type="submit" name="decision" value="allow" class="approve">&#10003;<'],
  ];
  const stuck = await runThrough(icons);
  expect(stuck.certificate.counts.checks.failed, stuck.console).toBe(0);
  for (const id of BROWSER_CHECKS) {
    const r = byId(stuck, id);
    expect(r.status, id).toBe('not-run');
    expect(r.notRun.map((n) => n.reason).join(' | '), id).toMatch(
      /after signing in, a page .* offered no control the suite recognises .*oauth\.signInPage\.allow/,
    );
  }
  // At once: no check waits out a sign-in's timeout (15 s) or its time limit (80 s) for the page.
  const slow = stuck.records.filter((r) => (r.durationMs ?? 0) > 12_000).map((r) => `${r.key}: ${r.durationMs} ms`);
  expect(slow).toEqual([]);

  const given = await runThrough(icons, { allow: 'button.approve' });
  expect(given.certificate.counts.checks.failed, given.console).toBe(0);
  for (const id of BROWSER_CHECKS) expect(byId(given, id).status, id).toBe('passed');
});
