// The registry of certified implementations (src/registry/), from synthetic certificates: a cell is
// exactly the certificate's status, matched by requirement id across suite versions, and a requirement
// an archive's suite version lacks is absent (never a pass or a failure, never counted); the interop
// view puts first what most implementations fail; one product's releases are compared in date order;
// registry.json conforms to its schema, which refuses what the shape does not allow; the index has no
// script; the folder of an earlier build is read for its verifications and another site's is refused.
// The command line's reading of `registry`. The same on real archives, through the command and in
// Chromium: tests/self/suite/registry.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parseArgs, UsageError } from '../../../src/cli/args';
import { PAGES, renderIndex, renderMatrix } from '../../../src/registry/pages';
import { buildRegistry, type EntryVerification, type VerifiedArchive } from '../../../src/registry/registry';
import { earlierVerifications, RegistryFolderError, writeSite } from '../../../src/registry/site';
import type { Certificate, CheckStatus } from '../../../src/verdict/model';
import { registryErrors } from '../support/registry-schema';
import { certificate, check, requirement } from './synthetic';

const VERIFIED: EntryVerification = {
  suite: { version: '9.9.9', contentSha256: 'a'.repeat(64) },
  sameContent: true,
  replayed: 3,
  reproduced: 3,
  recordOnly: 0,
  verifiedAt: '2026-02-01T00:00:00.000Z',
};
const BY = { name: 'vds-conformance', version: '9.9.9', contentSha256: 'a'.repeat(64) };

/** A certification's certificate: the product, the suite version, the date, and each requirement's one check's status. */
function certified(product: { name: string; version: string }, suite: string, date: string, statuses: Record<string, CheckStatus>): Certificate {
  const c = certificate(
    Object.keys(statuses).map((id) => requirement(id, { class: id.startsWith('CORE-') ? 'core' : 'profile' })),
    Object.entries(statuses).map(([id, s]) => check(id, 'GET /cars/{carId}', s)),
    [],
    true,
  );
  c.suite.version = suite;
  c.run.date = date;
  c.certification = {
    rule: 'anything not run makes its class FAIL',
    suite: { name: 'vds-conformance', version: suite, commit: 'c'.repeat(40), workingTreeModified: false, contentSha256: 'b'.repeat(64), hashed: [] },
    product: { ...product, vendor: 'ACME' },
  };
  return c;
}

function archive(c: Certificate, sha: string): VerifiedArchive {
  return { certificate: c, archive: { file: `${sha}.tar.gz`, sha256: sha.padEnd(64, '0') }, verification: VERIFIED };
}

// Suite 1.0 has no CORE-NEW; 2.0 has it. Product "Rover" certified twice, "Lander" once.
const old = certified({ name: 'Rover', version: '1.0' }, '1.0.0', '2026-01-01T00:00:00.000Z', { 'CORE-A': 'passed', 'PROF-B': 'failed', 'PROF-C': 'passed' });
const newer = certified({ name: 'Rover', version: '1.1' }, '2.0.0', '2026-03-01T00:00:00.000Z', {
  'CORE-A': 'failed',
  'PROF-B': 'passed',
  'CORE-NEW': 'failed',
  'PROF-C': 'not-run',
});
const other = certified({ name: 'Lander', version: '3' }, '2.0.0', '2026-02-01T00:00:00.000Z', {
  'CORE-A': 'failed',
  'PROF-B': 'passed',
  'CORE-NEW': 'passed',
  'PROF-C': 'not-applicable',
});
const registry = buildRegistry([archive(old, 'aa'), archive(newer, 'bb'), archive(other, 'cc')], BY, '2026-04-01T00:00:00.000Z');
const id = (sha: string) => registry.implementations.find((i) => i.archive.sha256.startsWith(sha))!.id;

test("each cell is the certificate's status, matched by id; a requirement its suite version lacks is absent and never counted", () => {
  const row = (rid: string) => registry.requirements.find((r) => r.id === rid)!;
  for (const [sha, c] of [
    ['aa', old],
    ['bb', newer],
    ['cc', other],
  ] as const) {
    for (const r of registry.requirements) {
      expect(r.results[id(sha)], `${r.id} in ${sha}`).toBe(c.requirements.find((x) => x.id === r.id)?.status ?? 'absent');
    }
  }
  expect(row('CORE-NEW').results[id('aa')]).toBe('absent');
  expect(row('CORE-NEW').failedBy).toBe(1); // the newer Rover alone: absent counts for nothing
  expect(row('CORE-A')).toMatchObject({ failedBy: 2, notRunBy: 0 });
  expect(row('PROF-C')).toMatchObject({ failedBy: 0, notRunBy: 1 });
  // The newest certificate's order (the catalogue's), each row described by it.
  expect(registry.requirements.map((r) => r.id)).toEqual(['CORE-A', 'PROF-B', 'CORE-NEW', 'PROF-C']);
  // By product, then newest first; ids stable: the product, its version and the archive's hash.
  expect(registry.implementations.map((i) => i.id)).toEqual(['lander-3-cc00000000', 'rover-1.1-bb00000000', 'rover-1.0-aa00000000']);
  expect(registry.implementations.map((i) => i.suite.version)).toEqual(['2.0.0', '2.0.0', '1.0.0']);
  expect(registry.implementations[2].requirementSet.count).toBe(3);
  expect(registry.implementations[1].requirements).toEqual({ passed: 1, failed: 2, notRun: 1, notApplicable: 0 });
});

test("one product's releases in date order: what newly fails, stops running or passes; a requirement new to the suite was absent", () => {
  expect(registry.changes).toHaveLength(1);
  const [c] = registry.changes;
  expect(c).toMatchObject({ product: 'Rover (ACME)', from: id('aa'), to: id('bb'), worse: true });
  expect(c.newlyFailing.map((s) => [s.id, s.was])).toEqual([
    ['CORE-A', 'passed'],
    ['CORE-NEW', 'absent'],
  ]);
  expect(c.newlyNotRun.map((s) => [s.id, s.was])).toEqual([['PROF-C', 'passed']]);
  expect(c.newlyPassing.map((s) => [s.id, s.was])).toEqual([['PROF-B', 'failed']]);
});

test('registry.json conforms to its schema, which refuses what the shape does not allow', () => {
  expect(registryErrors(JSON.parse(JSON.stringify(registry)))).toEqual([]);
  const broken = JSON.parse(JSON.stringify(registry));
  broken.requirements[0].results[id('aa')] = 'pass';
  delete broken.implementations[0].verification;
  broken.format = 'vds-conformance-registry/2';
  expect(registryErrors(broken).join('\n')).toMatch(
    /\/format: must be equal to constant[\s\S]*\/implementations\/0: must have required property 'verification'[\s\S]*\/requirements\/0\/results\/.*: must be equal to one of the allowed values/,
  );
});

test('the index is plain HTML; the matrix links each cell to its result, an absent one to nothing, and filters with its one script', () => {
  const index = renderIndex(registry);
  expect(index).not.toContain('<script');
  expect(index.match(/<tr id="/g)).toHaveLength(3);
  const matrix = renderMatrix(registry);
  expect(matrix.match(/<script>/g)).toHaveLength(1);
  expect(matrix).toContain(
    `data-impl="${id('bb')}" data-status="failed" title="CORE-NEW in Rover 1.1: failed"><a href="implementations/${id('bb')}/results.html#req-CORE-NEW">`,
  );
  expect(matrix).toContain(`data-impl="${id('aa')}" data-status="absent" title="CORE-NEW in Rover 1.0: absent from its suite version (1.0.0)">·</td>`);
  // The interop view first: failed by two, then by one (by id), then not run only.
  const interop = /<tbody data-section="interop">([\s\S]*?)<\/tbody>/.exec(matrix)![1];
  expect([...interop.matchAll(/data-id="([^"]+)"/g)].map((m) => m[1])).toEqual(['CORE-A', 'CORE-NEW', 'PROF-B', 'PROF-C']);
});

test("an earlier build's folder gives its verifications by archive hash; another site's folder is refused, never written over", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-registry-'));
  try {
    expect(earlierVerifications(path.join(dir, 'new')).size).toBe(0);
    fs.writeFileSync(path.join(dir, 'CNAME'), 'registry.example.org\n');
    writeSite(dir, registry, new Map([archive(old, 'aa'), archive(newer, 'bb'), archive(other, 'cc')].map((a) => [a.archive.sha256, a.certificate])));
    expect(fs.readFileSync(path.join(dir, 'CNAME'), 'utf8')).toBe('registry.example.org\n'); // the publisher's own file stays
    expect(fs.existsSync(path.join(dir, 'implementations', id('aa'), 'results.html'))).toBe(true);
    const carried = earlierVerifications(dir);
    expect([...carried.keys()].sort()).toEqual(registry.implementations.map((i) => i.archive.sha256).sort());
    fs.writeFileSync(path.join(dir, PAGES.data), '{"format": "something else"}');
    expect(() => earlierVerifications(dir)).toThrow(/not a registry of format vds-conformance-registry\/1/);
    fs.rmSync(path.join(dir, PAGES.data));
    expect(() => earlierVerifications(dir)).toThrow(RegistryFolderError);
    expect(() => earlierVerifications(dir)).toThrow(
      /holds index\.html, matrix\.html, changes\.html, registry\.schema\.json, implementations but no registry\.json/,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('registry ARCHIVE... --out DIR: archives and folders, --out required, anything else refused', () => {
  const inv = parseArgs(['registry', 'a.tar.gz', 'archives', '--out=site']).registry!;
  expect(inv.archives.map((a) => path.basename(a))).toEqual(['a.tar.gz', 'archives']);
  expect(path.basename(inv.out)).toBe('site');
  expect(parseArgs(['registry', '--out', 'site', 'a.tar.gz']).registry!.archives).toHaveLength(1);
  expect(parseArgs(['registry', '--help']).help).toBe(true);
  const refused = (args: string[], why: RegExp) => expect(() => parseArgs(args), args.join(' ')).toThrow(why);
  expect(() => parseArgs(['registry', 'a.tar.gz'])).toThrow(UsageError);
  refused(['registry', 'a.tar.gz'], /^registry needs --out DIR/);
  refused(['registry', '--out', 'site'], /^registry needs at least one certification archive/);
  refused(['registry', 'a.tar.gz', '--ot', 'site'], /^registry: unknown option --ot \(did you mean --out\?\)/);
  refused(['registry', 'a.tar.gz', '--out', 'a', '--out', 'b'], /--out is given twice/);
  refused(['registry', 'a.tar.gz', '--target', 'local', '--out', 'site'], /unknown option --target/);
  refused(['regsitry'], /did you mean registry\?/);
});
