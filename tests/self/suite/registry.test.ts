// `vds-conformance registry ARCHIVE... --out DIR` on real certification archives, as a certification
// programme runs it: three archives made by --certify (the embedded reference; the reference with a
// fault, failing requirements of both classes, as the next release of the same product; another
// product whose revocation command fails, a requirement not run), beside a tampered one (its
// certificate's failures hidden) and one of another suite version. The registry replays each offline
// first, as verify does: the tampered one and the other version's are refused by name, with why, and
// the three publish: rows with their certificates' verdicts, a matrix whose every cell is its
// archive's result, the changes between the two releases, registry.json valid against its schema, no
// secret anywhere; the pages open from disk in Chromium without a console error (the index without
// JavaScript), screenshots attached. A second build of the folder keeps what the first verified
// without a replay, and an archive an earlier suite version verified sits beside them, the
// requirement its version lacked shown absent.
// The archives are made once, in beforeAll (three whole runs: the costliest part); the builds replay
// four archives, then none. The model's rules on synthetic certificates: tests/self/reporting/registry.test.ts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { expect, test } from '@playwright/test';
import { PAGES } from '../../../src/registry/pages';
import type { Registry } from '../../../src/registry/registry';
import { chooseBrowser, launchBrowser } from '../../../src/setup/browser';
import { EXIT } from '../../../src/verdict/exit-codes';
import type { Certificate } from '../../../src/verdict/model';
import { writeTargetFile } from '../../../scripts/reference-process';
import { readJson, runCommand, startReference } from '../reporting/real-run';
import { Scanner } from '../reporting/scan';
import { registryErrors } from '../support/registry-schema';

/** The fault of the second release: another user is readable (a core and a profile requirement fail). */
const FAULT = 'cross-user-user-readable';
const VENDOR = 'Reference Works';
/** The requirement the older suite version is made not to have (one the faulty release fails). */
const NEWER_REQUIREMENT = 'CORE-USER-FORBIDDEN';

const registryBin = (args: string[]) => runCommand(['tsx', 'bin/vds-conformance.js', 'registry', ...args], { timeoutMs: 600_000 });

function extracted(archive: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-archive-'));
  tar.extract({ file: archive, cwd: out, sync: true });
  return out;
}

/** The archive again, its certificate edited, under a name of its own. */
function withCertificate(archive: string, name: string, edit: (c: Certificate) => void): string {
  const dir = extracted(archive);
  const c = readJson<Certificate>(path.join(dir, 'conformance.json'));
  edit(c);
  fs.writeFileSync(path.join(dir, 'conformance.json'), JSON.stringify(c));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-edited-')), name);
  tar.create({ gzip: true, file, cwd: dir, sync: true, portable: true }, fs.readdirSync(dir));
  return file;
}

function certificateOf(archive: string): Certificate {
  return readJson<Certificate>(path.join(extracted(archive), 'conformance.json'));
}

test.describe('a registry of three certified implementations', () => {
  test.describe.configure({ mode: 'serial' });
  const made: Record<'clean' | 'faulty' | 'notRun', string> = { clean: '', faulty: '', notRun: '' };
  let archivesDir: string;
  let tampered: string;
  let older: string;
  let site: string;
  let first: Awaited<ReturnType<typeof registryBin>>;
  let secrets: string[];

  test.beforeAll(async () => {
    test.setTimeout(900_000);
    archivesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-archives-'));
    secrets = [];
    // One after another: the releases' dates order the changes between them.
    for (const [key, fault, product, keys, code] of [
      ['clean', undefined, { name: 'VDS Reference', version: '1.0.0' }, {}, EXIT.passed],
      ['faulty', FAULT, { name: 'VDS Reference', version: '1.1.0' }, {}, EXIT.failed],
      // A vendor whose revocation tool fails at run time: the run cannot know before, so it certifies, AUTH-REVOKED not run.
      [
        'notRun',
        undefined,
        { name: 'Fleet API', version: '2.0' },
        { tokenCommands: { revoked: 'echo "revocation endpoint unreachable" >&2; exit 7' } },
        EXIT.failed,
      ],
    ] as const) {
      const reference = await startReference(fault ? { fault } : {});
      try {
        const target = writeTargetFile(`http://127.0.0.1:${reference.port}`, 'local', { keys: { product: { ...product, vendor: VENDOR }, ...keys } });
        // The archive and the certificate only: Playwright's HTML report, JUnit and Allure are not read here.
        const run = await runCommand(['tsx', 'scripts/conformance.ts', '--certify'], { target, timeoutMs: 600_000, env: { VDS_REPORTS: 'certificate' } });
        expect(run.code, run.output.slice(-3000)).toBe(code);
        const archive = fs.readdirSync(run.reportsDir).find((n) => /^certification-.*\.tar\.gz$/.test(n))!;
        // Two releases certified the same day have the same name: the programme's folder tells them apart.
        made[key] = path.join(archivesDir, `${product.version}-${archive}`);
        fs.copyFileSync(path.join(run.reportsDir, archive), made[key]);
        secrets.push(...((await (await fetch(`${reference.control}/issued`)).json()) as { secrets: string[] }).secrets);
      } finally {
        await reference.stop();
      }
    }
    // The failing release, its failures hidden: the certificate says PASS, its exchanges do not.
    tampered = withCertificate(made.faulty, 'certification-vds-reference-tampered.tar.gz', (c) => {
      for (const r of c.requirements.filter((x) => x.failures.length)) {
        r.checks.passed += r.checks.failed;
        r.checks.failed = 0;
        r.failures = [];
        r.status = 'passed';
        for (const g of Object.keys(r.groups) as Array<keyof typeof r.groups>) r.groups[g] = 'passed';
      }
      c.verdict = { core: 'PASS', profile: 'PASS' };
      c.headline = { verdict: 'PASS', reason: 'every requirement of the spec and the profile ran and passed' };
    });
    // The first release as an earlier suite version would have certified it: a day before, without one requirement.
    older = withCertificate(made.clean, 'certification-vds-reference-older.tar.gz', (c) => {
      c.suite.version = '0.0.9';
      c.certification!.suite.version = '0.0.9';
      c.certification!.product = { name: 'VDS Reference', version: '0.9.0', vendor: VENDOR };
      c.run.date = new Date(Date.parse(c.run.date) - 86_400_000).toISOString();
      c.requirements = c.requirements.filter((r) => r.id !== NEWER_REQUIREMENT);
      c.counts.classes.core.requirements -= 1;
      c.counts.classes.core.passed -= 1;
    });
    site = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-registry-')), 'site');
    first = await registryBin([archivesDir, tampered, older, '--out', site]);
  });

  test("each archive is verified first: the three publish, the tampered one and the other version's are refused by name, with why", () => {
    const out = first.output;
    expect(first.code, out.slice(-4000)).toBe(EXIT.failed);
    for (const archive of Object.values(made)) expect(out).toMatch(new RegExp(`✔ \\S*${path.basename(archive).replace(/\./g, '\\.')}: .*checks reproduced`));
    expect(out).toMatch(
      /✘ \S*certification-vds-reference-tampered\.tar\.gz refused, nothing of it published: its exchanges do not give its certificate \(PASS: /,
    );
    expect(out).toMatch(/ (CORE-USER-FORBIDDEN|ERR-USER-FORBIDDEN) GET \/users\/\{userId\}: certificate passed, replay failed/);
    expect(out).toMatch(
      /✘ \S*certification-vds-reference-older\.tar\.gz refused, nothing of it published: .*made by vds-conformance 0\.0\.9; the installed suite is /,
    );
    expect(out).toContain('Exit status 1: 2 archives refused (named above, with why); the others are published');
    expect(out).not.toMatch(/\n\s+at /);
    // Nothing of a refused archive is published.
    const registry = readJson<Registry>(path.join(site, PAGES.data));
    expect(registry.implementations.map((i) => i.archive.file).sort()).toEqual(
      Object.values(made)
        .map((f) => path.basename(f))
        .sort(),
    );
    expect(fs.readdirSync(path.join(site, 'implementations'))).toHaveLength(3);
  });

  test("three rows with their certificates' verdicts, and a matrix whose every cell is its archive's result", () => {
    const registry = readJson<Registry>(path.join(site, PAGES.data));
    expect(registry.implementations).toHaveLength(3);
    for (const archive of Object.values(made)) {
      const c = certificateOf(archive);
      const i = registry.implementations.find((x) => x.archive.file === path.basename(archive))!;
      expect(i.verdict).toEqual(c.verdict);
      expect(i.headline).toBe(`${c.headline!.verdict}: ${c.headline!.reason}`);
      expect(i.product).toEqual(c.certification!.product);
      expect(i.checks).toMatchObject({
        total: c.counts.checks.total,
        passed: c.counts.checks.passed,
        failed: c.counts.checks.failed,
        notRun: c.counts.checks.notRun,
      });
      expect(i.verification.reproduced + i.verification.recordOnly).toBe(c.counts.checks.total);
      expect(new Set(registry.requirements.map((r) => r.id))).toEqual(new Set(c.requirements.map((r) => r.id)));
      for (const r of c.requirements) expect(registry.requirements.find((x) => x.id === r.id)!.results[i.id], `${r.id} of ${i.id}`).toBe(r.status);
      // Its results page and certificate are in the site, the certificate's data as the archive holds it.
      expect(readJson<Certificate>(path.join(site, i.pages.certificateJson))).toEqual(c);
      expect(fs.existsSync(path.join(site, i.pages.certificate))).toBe(true);
    }
    const by = (version: string) => registry.implementations.find((i) => i.product.version === version)!;
    expect(by('1.0.0').verdict).toEqual({ core: 'PASS', profile: 'PASS' });
    expect(by('1.1.0').verdict).toEqual({ core: 'FAIL', profile: 'FAIL' });
    expect(by('2.0').requirements.notRun).toBe(1);
    expect(registry.requirements.find((r) => r.id === 'AUTH-REVOKED')!.results[by('2.0').id]).toBe('not-run');
    // The regression view: the second release against the first.
    const failing = certificateOf(made.faulty)
      .requirements.filter((r) => r.status === 'failed')
      .map((r) => r.id);
    expect(failing).toEqual(expect.arrayContaining([NEWER_REQUIREMENT]));
    expect(registry.changes).toEqual([
      expect.objectContaining({ product: `VDS Reference (${VENDOR})`, from: by('1.0.0').id, to: by('1.1.0').id, worse: true }),
    ]);
    expect(registry.changes[0].newlyFailing.map((s) => s.id).sort()).toEqual([...failing].sort());
  });

  test('registry.json validates against its schema; the site is small and holds no secret', () => {
    const registry = readJson<Registry>(path.join(site, PAGES.data));
    expect(registryErrors(registry)).toEqual([]);
    expect(readJson<unknown>(path.join(site, PAGES.schema))).toEqual(readJson<unknown>(path.join(__dirname, '../../../src/registry/registry.schema.json')));
    const bytes = (dir: string): number =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .reduce((n, e) => n + (e.isDirectory() ? bytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size), 0);
    expect(bytes(site)).toBeLessThan(2_000_000); // three implementations: about 250 KB each, no archive in it
    const clients: Array<[string, string]> = [
      ['vds-conformance', 'reference-client-secret'],
      ['vds-limited', 'limited-client-secret'],
    ];
    const basic = clients.map(([id, secret]) => Buffer.from(`${id}:${secret}`).toString('base64'));
    expect(secrets.length).toBeGreaterThan(15);
    const scanner = new Scanner([...secrets, ...clients.map(([, s]) => s), ...basic, 'alice-password', 'bob-password'], ['CORE-CAR-RECORD']);
    scanner.scanTree(site);
    expect(scanner.result.hits.map((h) => `${h.where}: ${h.context}`)).toEqual([]);
    expect(scanner.result.markers['CORE-CAR-RECORD'].length).toBeGreaterThan(0);
  });

  test('the pages open from disk in Chromium with no console error: the index without JavaScript, the matrix filtered, each cell to its result', async ({}, testInfo) => {
    const choice = chooseBrowser();
    test.skip(!choice.executablePath, `no Chromium: ${choice.missing}`);
    const registry = readJson<Registry>(path.join(site, PAGES.data));
    const browser = await launchBrowser(choice);
    const problems: string[] = [];
    try {
      const open = async (javaScriptEnabled: boolean) => {
        const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1400, height: 900 } });
        const page = await context.newPage();
        page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`${page.url()}: ${m.text()}`));
        page.on('pageerror', (e) => problems.push(`${page.url()}: ${e.message}`));
        page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
        return page;
      };
      const url = (file: string) => `file://${path.join(site, file)}`;
      const index = await open(false);
      await index.goto(url(PAGES.index));
      expect(await index.locator('table.index tbody tr').count()).toBe(3);
      for (const i of registry.implementations) {
        const row = index.locator(`tr[id="${i.id}"]`);
        expect(await row.locator('td.verdict').allTextContents()).toEqual([i.verdict.core, i.verdict.profile]);
      }
      await testInfo.attach('index.png', { body: await index.screenshot({ fullPage: true }), contentType: 'image/png' });
      // The matrix without JavaScript: every row, and no filter that would do nothing.
      await index.goto(url(PAGES.matrix));
      await expect(index.locator('#filters')).toBeHidden();
      expect(await index.locator('tr.req:visible').count()).toBe(await index.locator('tr.req').count());

      const matrix = await open(true);
      await matrix.goto(url(PAGES.matrix));
      await expect(matrix.locator('#filters')).toBeVisible();
      // Every cell of the page, as registry.json (and so the archives) states it.
      const cells = await matrix
        .locator('tr.req td.cell')
        .evaluateAll((tds) =>
          tds.map((td) => [(td.closest('tr') as HTMLElement).dataset.id, (td as HTMLElement).dataset.impl, (td as HTMLElement).dataset.status]),
        );
      expect(cells.length).toBeGreaterThan(3 * registry.requirements.length - 1);
      for (const [id, impl, status] of cells) expect(status, `${id} of ${impl}`).toBe(registry.requirements.find((r) => r.id === id)!.results[impl!]);
      await testInfo.attach('matrix.png', { body: await matrix.screenshot(), contentType: 'image/png' });
      await matrix.selectOption('select[name="show"]', 'failed');
      const shown = await matrix
        .locator('tbody:not([data-section="interop"]) tr.req:visible')
        .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id));
      expect(new Set(shown)).toEqual(new Set(registry.requirements.filter((r) => r.failedBy > 0).map((r) => r.id)));
      await testInfo.attach('matrix-failed.png', { body: await matrix.screenshot(), contentType: 'image/png' });
      // A failed cell leads to that check's expected vs actual.
      const faulty = registry.implementations.find((i) => i.product.version === '1.1.0')!;
      await matrix.locator(`tr.req[data-id="${NEWER_REQUIREMENT}"] td[data-impl="${faulty.id}"] a`).first().click();
      await expect(matrix.locator(`#req-${NEWER_REQUIREMENT} + tr`)).toContainText('Expected');
      await expect(matrix).toHaveURL(new RegExp(`${faulty.pages.results.replace(/\./g, '\\.')}#req-${NEWER_REQUIREMENT}$`));
      await matrix.goto(url(PAGES.changes));
      await expect(matrix.locator('h3.failed')).toContainText('Newly failing');
      await matrix.goto(url(faulty.pages.certificate));
      await expect(matrix.locator('#headline')).toContainText('FAIL');
    } finally {
      await browser.close();
    }
    expect(problems).toEqual([]);
  });

  test('a second build keeps what the first verified, without a replay; an archive an earlier suite version verified sits beside, its missing requirement absent', async () => {
    test.setTimeout(300_000);
    // As a build by that version would have left it in the folder: the older archive, verified by 0.0.9.
    const data = path.join(site, PAGES.data);
    const before = readJson<Registry>(data);
    const sha256 = crypto.createHash('sha256').update(fs.readFileSync(older)).digest('hex');
    before.implementations.push({
      ...before.implementations[0],
      archive: { file: path.basename(older), sha256 },
      verification: { ...before.implementations[0].verification, suite: { version: '0.0.9', contentSha256: 'e'.repeat(64) } },
    });
    fs.writeFileSync(data, JSON.stringify(before));
    const second = await registryBin([archivesDir, older, '--out', site]);
    expect(second.code, second.output.slice(-4000)).toBe(EXIT.passed);
    expect(second.output).not.toContain('replaying');
    expect(second.output.match(/kept without a replay/g)).toHaveLength(4);
    const registry = readJson<Registry>(data);
    expect(registryErrors(registry)).toEqual([]);
    const old = registry.implementations.find((i) => i.product.version === '0.9.0')!;
    expect(old.suite.version).toBe('0.0.9');
    expect(old.verification.suite.version).toBe('0.0.9');
    const c = certificateOf(older);
    for (const r of registry.requirements) expect(r.results[old.id], r.id).toBe(c.requirements.find((x) => x.id === r.id)?.status ?? 'absent');
    const newer = registry.requirements.find((r) => r.id === NEWER_REQUIREMENT)!;
    expect(newer.results[old.id]).toBe('absent');
    expect(newer.failedBy).toBe(1); // the faulty release; absent counts for nothing
    // Its releases in order: 0.9.0 (without the requirement), 1.0.0, 1.1.0.
    const versions = (id: string) => registry.implementations.find((i) => i.id === id)!.product.version;
    expect(registry.changes.map((x) => [versions(x.from), versions(x.to)])).toEqual([
      ['0.9.0', '1.0.0'],
      ['1.0.0', '1.1.0'],
    ]);
    expect(registry.changes[0].newlyPassing.map((s) => [s.id, s.was])).toEqual([[NEWER_REQUIREMENT, 'absent']]);
    expect(fs.readFileSync(path.join(site, PAGES.matrix), 'utf8')).toContain(
      `data-impl="${old.id}" data-status="absent" title="${NEWER_REQUIREMENT} in VDS Reference 0.9.0: absent from its suite version (0.0.9)">`,
    );
  });
});
