// What a certification records about the suite that certified: its version, its git commit and
// whether the working tree was modified, and a SHA-256 over the files that decide its verdicts
// (contracts/ and tests/conformance/: not the project's own tests, which a clone has and an installed
// package has not), so that a reviewer can tell which suite produced a certificate, and verify
// (src/certification/verify.ts) compare it with the installed suite's.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Certification } from '../verdict/model';
import { ROOT } from '../options/paths';

export const CERTIFICATION_RULE = 'certification: anything not run (but what the target\'s environment rules out) makes its class FAIL';
const HASHED = ['contracts', 'tests/conformance'];

export function certificationInfo(suite: { name: string; version: string }, product?: Certification['product']): Certification {
  return {
    rule: CERTIFICATION_RULE,
    suite: { ...suite, ...gitState(), contentSha256: suiteContentHash(), hashed: HASHED.map((d) => `${d}/`) },
    ...(product ? { product } : {}),
  };
}

/** The SHA-256 of what decides the verdicts of this installed suite. */
export function suiteContentHash(): string {
  return contentHash(HASHED.map((d) => path.join(ROOT, d)));
}

function gitState(): { commit: string; workingTreeModified: boolean | 'unknown' } {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { commit: git(['rev-parse', 'HEAD']), workingTreeModified: git(['status', '--porcelain', '--', 'contracts', 'tests', 'harness', 'reporters', 'fixtures', 'package.json']) !== '' };
  } catch {
    return { commit: 'unknown (not a git checkout)', workingTreeModified: 'unknown' };
  }
}

/** SHA-256 over every file's path and content, in path order. */
export function contentHash(dirs: string[]): string {
  const hash = crypto.createHash('sha256');
  const files = dirs.flatMap((d) => listFiles(d)).sort();
  for (const f of files) {
    hash.update(path.relative(ROOT, f).split(path.sep).join('/'));
    hash.update('\0');
    hash.update(fs.readFileSync(f));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(full) : e.isFile() ? [full] : [];
  });
}
