// A sign-in the suite cannot go through (here two steps: an e-mail field and "Next", then a second page
// without a password field, as a sign-in by e-mailed link has): every browser check that signs in is not
// run, naming oauth.signInPage, none failed and none waiting out a timeout; the first page's form is
// still judged (SIGNIN-PAGE, where no sign-in before it met the second page); the rest of the run is unaffected.
// In-process (src/engine/in-process.ts: the command's preparation, checks and judgement).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { expect, test } from '@playwright/test';
import { chooseBrowser, SIGN_INS_AT_ONCE } from '../../../src/setup/browser';
import type { Certificate } from '../../../src/verdict/model';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import { startReference } from '../reporting/real-run';
import { startFrontServer } from '../support/front-server';

const TWO_STEP_PAGE = `<!DOCTYPE html><html><body><main><h1>Welcome</h1>
<form method="post" action="/v3/auth/next"><input name="email" type="email" placeholder="you@example.com"><button>Next</button></form>
</main></body></html>`;

/** A sign-in's own time limit (oauth.ts signIn's default). */
const SIGN_IN_TIMEOUT_MS = 15_000;
const BROWSER_CHECKS = ['SIGNIN-PAGE', 'SIGNIN-CODE-STATE', 'SIGNIN-REDIRECT-EXACT', 'SIGNIN-SCOPE-SUBSET'];
const TOKEN_CHECKS_THROUGH_THE_PAGE = ['TOKEN-CODE-GRANT', 'TOKEN-CODE-SINGLE-USE', 'TOKEN-BAD-CLIENT', 'TOKEN-REFRESH'];

test.skip(!chooseBrowser().executablePath, 'no Chromium: the browser checks would not run anyway');
test.setTimeout(300_000);

/** The reference's target file pointed at the front server, with more keys. */
function targetVia(file: string, front: string, control: Record<string, unknown>): string {
  const target = YAML.parse(fs.readFileSync(file, 'utf8'));
  target.baseUrl = `${front}/v3`;
  target.control = { ...target.control, ...control };
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'target.yaml');
  fs.writeFileSync(out, YAML.stringify(target));
  return out;
}

function byId(c: Certificate, id: string) {
  return c.requirements.find((r) => r.id === id)!;
}

for (const mode of ['tokens from the sign-in page', 'tokens from the control API'] as const) {
  test(`a sign-in whose second page has no password field (${mode}): the browser checks are not run, at once, naming oauth.signInPage`, async () => {
    const reference = await startReference();
    const front = await startFrontServer(`http://127.0.0.1:${reference.port}`, { '/v3/auth/auth': TWO_STEP_PAGE });
    try {
      const throughPage = mode === 'tokens from the sign-in page';
      const target = targetVia(reference.targetFile, front.origin, throughPage ? { mintTokens: false } : {});
      const run = await runInProcess({ target: loadTarget(target), selection: { grep: /@auth/ } });
      const c = run.certificate;
      expect(c.counts.checks.failed, run.console).toBe(0);
      expect(c.counts.checks.notRunBySuite).toBe(0);
      const skipped = throughPage ? [...BROWSER_CHECKS, ...TOKEN_CHECKS_THROUGH_THE_PAGE] : BROWSER_CHECKS.filter((id) => id !== 'SIGNIN-PAGE');
      for (const id of skipped) {
        const r = byId(c, id);
        expect(r.status, id).toBe('not-run');
        expect(r.notRun.map((n) => n.reason).join(' | '), id).toMatch(
          /the sign-in form was not found on the sign-in's second page \(after the account was given on the first\) within 5 s \(a password field, a submit control\).*oauth\.signInPage\.\{username,password,submit\}/,
        );
      }
      if (!throughPage) expect(byId(c, 'SIGNIN-PAGE').status, 'its first page shows a form to sign in with').toBe('passed');
      if (!throughPage) for (const id of TOKEN_CHECKS_THROUGH_THE_PAGE) expect(byId(c, id).status, id).toBe('passed');
      // At once: only the sign-ins already under way when the page's problem was met (at most
      // SIGN_INS_AT_ONCE, the browser's lanes) sent the account and searched the second page for its
      // form (FORM_WAIT_MS each); every later browser check knew the problem and sent nothing. Counted
      // at the server, however busy the machine; and none reached a sign-in's time-out (15 s).
      const steps = run.records.map((r) => ({ name: r.key, ms: r.durationMs ?? 0 })).filter((s) => /^(SIGNIN|TOKEN)-/.test(s.name));
      expect(steps.length).toBeGreaterThan(8);
      const accountsSent = front.requests.filter((r) => r === 'POST /v3/auth/next').length;
      expect(accountsSent, 'second pages searched for their form').toBeGreaterThan(0);
      expect(accountsSent, 'second pages searched for their form').toBeLessThanOrEqual(SIGN_INS_AT_ONCE);
      const timedOut = steps.filter((s) => s.ms >= SIGN_IN_TIMEOUT_MS).map((s) => `${s.name}: ${s.ms} ms`);
      expect(timedOut).toEqual([]);
    } finally {
      await front.close();
      await reference.stop();
    }
  });
}
