// A vendor's journey with the installed command, as issue reports tell it, on a conforming
// implementation that is not ours: the reference taking several documented choices at once (a device
// keeps its user link after dissociation, tokens live 8 s and are forgotten once expired, lists newest
// first, extra members, reworded tips, a consent page at sign-in, ...), reached by the machine's name
// over HTTPS with a private authority, with OAuth credentials only (no control API) and the
// operator's revocation as tokenCommands.revoked (the reference's control API stands in for an
// authorization server's revocation endpoint). In a folder of the installed package:
//   1. init writes the files and lists what the target cannot run yet, and how;
//   2. filled in, init lists only the expired and revoked tokens;
//   3. a first run (narrowed to the expired token's checks) keeps a token for a later run;
//   4. --certify without tokenCommands.revoked says before it starts that it cannot certify, which
//      key is missing and how to get it: exit 2, nothing sent, the reports folder as it was;
//   5. with tokenCommands.revoked, once the kept token has expired (init says when nothing is missing):
//      --certify gives core PASS and profile PASS, nothing not run, exit 0, the archive written;
//   6. a reviewer's verify of the archive prints one exit status, restating the certificate's verdict;
//   7. report builds the Allure report, the run's verdict as its quality gate.
import type { SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { expect } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { machineName, makeAuthority } from '../../../scripts/deployment';
import { startReference } from '../../../scripts/reference-process';
import { readQualityGate } from '../reporting/allure-results';

type Npx = (cwd: string, args: string[], timeoutMs?: number) => SpawnSyncReturns<string>;

/** The documented choices the vendor's implementation makes differently from the reference's defaults. */
const CHOICES = [
  'dissociate-keeps-user-link',
  'short-lived-tokens',
  'expired-tokens-forgotten',
  'newest-first',
  'cars-newest-first',
  'extra-fields',
  'tips-reworded',
  'signin-consent-page',
  'stats-no-data-404',
  'associate-unknown-car-400',
].join(',');

const out = (r: SpawnSyncReturns<string>) => `${r.stdout}${r.stderr}`;

/** Every file of a folder with its size and time: what "as it was" compares. */
function listing(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map((f) => `${f}:${fs.statSync(path.join(dir, String(f))).mtimeMs}`) : [];
}

export async function vendorJourney(npx: Npx, installed: string): Promise<void> {
  const name = (await machineName()) ?? 'localhost';
  const authority = makeAuthority('vendor');
  const tls = { ...authority.issue([name, 'localhost', '127.0.0.1', '::1']), ca: authority.ca };
  const reference = await startReference({ target: 'local-signin', variant: CHOICES, reach: { listen: '::', host: name, tls } });
  try {
    const dir = path.join(installed, 'vendor');
    fs.mkdirSync(dir);
    const reports = path.join(dir, 'reports');

    // 1. init: the files, and what their target cannot run yet.
    const init = npx(dir, ['init']);
    expect(init.status, out(init)).toBe(0);
    expect(init.stdout).toContain(
      'wrote my-target.yaml and .env; fill them in, then: npx vds-conformance --target ./my-target.yaml (and --certify to certify)',
    );
    expect(init.stdout).toMatch(/Certification readiness of my-target\.yaml: \d+ requirements cannot run on this target/);
    expect(init.stdout).toContain('○ tokens.revoked: ');

    // 2. Filled in as a vendor would: .env's values, writes allowed, the company's authority.
    fs.copyFileSync(tls.ca, path.join(dir, 'company-ca.pem'));
    const env = {
      VDS_BASE_URL: `https://${name}:${reference.port}/v3`,
      VDS_CLIENT_ID: 'vds-conformance',
      VDS_CLIENT_SECRET: 'reference-client-secret',
      VDS_REDIRECT_URI: 'https://app.vds-vendor.invalid/oauth/callback',
      VDS_USERNAME: 'alice@reference.test',
      VDS_PASSWORD: 'alice-password',
      VDS_OTHER_USERNAME: 'bob@reference.test',
      VDS_OTHER_PASSWORD: 'bob-password',
      VDS_RESTRICTED_CLIENT_ID: 'vds-limited',
      VDS_RESTRICTED_CLIENT_SECRET: 'limited-client-secret',
      VDS_FREE_DEVICE_ID: 'VDSREF0102',
      VDS_FREE_DEVICE_PIN: '24680',
      VDS_DEVICE_FOR_CAR_ID: 'VDSREF0101',
      VDS_LOCKABLE_DEVICE_ID: 'VDSREF0103',
      VDS_LOCKABLE_DEVICE_PIN: '975310',
    };
    fs.writeFileSync(
      path.join(dir, '.env'),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    );
    const targetFile = path.join(dir, 'my-target.yaml');
    const edit = (change: (t: Record<string, any>) => void) => {
      const t = YAML.parse(fs.readFileSync(targetFile, 'utf8'));
      change(t);
      fs.writeFileSync(targetFile, YAML.stringify(t));
    };
    edit((t) => {
      t.allowWrites = true;
      t.caFile = './company-ca.pem';
      t.product = { name: 'Acme VDS', version: '3.1.0', vendor: 'Acme' };
    });
    const filled = npx(dir, ['init']);
    expect(filled.status, out(filled)).toBe(0);
    expect(filled.stdout).toContain('kept my-target.yaml: it exists already');
    expect(filled.stdout).toContain('Certification readiness of my-target.yaml: 2 requirements cannot run on this target (46 checks)');
    expect(filled.stdout).toMatch(/○ tokens\.expired: tokens\.expired is not in my-target\.yaml, nor tokenCommands\.expired, .*a run keeps a token it mints/);

    // 3. A first run, narrowed (a vendor's would be whole): it keeps a token for a later run's expired one.
    const first = npx(dir, ['--target', './my-target.yaml', '--grep', '@AUTH-EXPIRED'], 300_000);
    expect(first.status, out(first).slice(-3000)).toBe(0);
    expect(first.stdout).toContain('INCOMPLETE: 1 requirement not run: AUTH-EXPIRED; ');
    const kept = path.join(dir, '.vds-conformance');
    expect(fs.statSync(kept).mode & 0o777).toBe(0o700);
    for (const f of fs.readdirSync(kept)) expect(fs.statSync(path.join(kept, f)).mode & 0o777, f).toBe(0o600);

    // 4. --certify without tokenCommands.revoked: said before anything is sent; nothing written.
    const before = listing(reports);
    const refused = npx(dir, ['--target', './my-target.yaml', '--certify']);
    expect(refused.status, out(refused)).toBe(2);
    expect(refused.stdout).toContain(
      '○ tokens.revoked: tokens.revoked is not in my-target.yaml, nor tokenCommands.revoked, and the target has no control API to make one',
    );
    expect(refused.stdout).toContain('how: tokenCommands.revoked, a command that revokes the token the suite hands it in $VDS_TOKEN_TO_REVOKE');
    expect(refused.stdout).toContain('keeps from running: AUTH-REVOKED (23 checks)');
    expect(refused.stdout).toContain('--certify: this certification cannot pass on this target, so nothing was sent and nothing written (exit 2)');
    expect(listing(reports)).toEqual(before);

    // 5. The operator's revocation, handed the token to revoke; then, once init says nothing is missing, --certify.
    fs.writeFileSync(
      path.join(dir, 'revoke.mjs'),
      `const res = await fetch(${JSON.stringify(`${reference.control}/tokens/revoke`)}, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: process.env.VDS_TOKEN_TO_REVOKE }),
});
if (res.status !== 204) { console.error('the revocation failed: ' + res.status); process.exit(1); }
`,
    );
    edit((t) => {
      t.tokenCommands = { revoked: 'NODE_EXTRA_CA_CERTS=./company-ca.pem node ./revoke.mjs' };
    });
    // A vendor runs once well before certifying; here the certification follows at once. The kept token's
    // minute of margin for a server's clock (kept-expired.ts) is spent as if that time had passed: its
    // recorded expiry moved back 55 s, so that it is taken 5 s after it ran out on this machine's clock.
    for (const f of fs.readdirSync(kept)) {
      const file = path.join(kept, f);
      const note = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: Array<{ expiresAtMs: number }> };
      for (const t of note.tokens) t.expiresAtMs -= 55_000;
      fs.writeFileSync(file, JSON.stringify(note), { mode: 0o600 });
    }
    const deadline = Date.now() + 180_000;
    let ready = npx(dir, ['init']);
    while (!ready.stdout.includes('nothing the target file shows keeps a requirement from running') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2_000));
      ready = npx(dir, ['init']);
    }
    expect(ready.stdout, 'the kept token expired: init says nothing is missing').toContain(
      'Certification readiness of my-target.yaml: nothing the target file shows keeps a requirement from running',
    );
    const certify = npx(dir, ['--target', './my-target.yaml', '--certify'], 600_000);
    expect(certify.status, out(certify).slice(-4000)).toBe(0);
    const c = JSON.parse(fs.readFileSync(path.join(reports, 'conformance.json'), 'utf8')) as Certificate;
    expect(c.verdict).toEqual({ core: 'PASS', profile: 'PASS' });
    expect(c.counts.checks.notRun).toBe(0);
    expect(c.counts.checks.failed).toBe(0);
    expect(c.headline?.verdict).toBe('PASS');
    expect(certify.stdout).toContain(`  PASS: ${c.headline!.reason}`);
    const archive = fs.readdirSync(reports).find((f) => /^certification-acme-vds-\d{4}-\d{2}-\d{2}\.tar\.gz$/.test(f));
    expect(archive, fs.readdirSync(reports).join(', ')).toBeTruthy();

    // 6. A reviewer's verify: one exit status, the certificate's verdict restated, reproduced.
    const verify = npx(dir, ['verify', path.join('reports', archive!)], 300_000);
    expect(verify.status, out(verify).slice(-3000)).toBe(0);
    expect(
      out(verify)
        .split('\n')
        .filter((l) => /Exit status/.test(l)),
    ).toEqual([
      `  Exit status 0: reproduced: the archive's exchanges give the certificate's verdict (PASS: ${c.headline!.reason}), every replayable check as it states`,
    ]);

    // 7. The Allure report: the run's verdict as its quality gate.
    const report = npx(dir, ['report']);
    expect(report.status, out(report)).toBe(0);
    expect(readQualityGate(reports)).toEqual([expect.objectContaining({ rule: 'conformance/verdict', success: true })]);
  } finally {
    await reference.stop();
  }
}
