// What a certification records about the suite that certified: its version, its git commit and
// whether the working tree was modified, and a SHA-256 over exactly the files that decide its verdicts
// (VERDICT_SOURCES: the catalogue and schemas, the check procedures, the check API, the engine, the
// run's setup and transport, the verdict rules; never generated data, rendering or the project's own
// tests), so that a reviewer can tell which suite produced a certificate, and verify (src/cli/verify.ts)
// compare it with the installed suite's. The git state looks at the same list.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Certification } from '../verdict/model';
import { ROOT } from '../options/paths';

const CERTIFICATION_RULE = "anything not run (but what the target's environment rules out) makes its class FAIL";
/**
 * What decides a verdict, one list (the content hash and the git state): folders and files relative to
 * the suite's root. Rendering, monitoring, the command line and the project's own tests (the kill matrix
 * among them: generated) are left out: they say a verdict, they do not decide it.
 */
export const VERDICT_SOURCES = [
  'contracts',
  'src/util',
  'src/catalogue',
  'src/schemas',
  'src/transport',
  'src/setup',
  'src/check-api',
  'src/checks',
  'src/engine',
  'src/verdict',
  'src/playwright',
  'fixtures/suite-fixtures.ts',
  'fixtures/global-setup.ts',
  'tests/conformance',
  'playwright.config.ts',
] as const;

export function certificationInfo(suite: { name: string; version: string }, product?: Certification['product']): Certification {
  return {
    rule: CERTIFICATION_RULE,
    suite: { ...suite, ...gitState(), contentSha256: suiteContentHash(), hashed: [...VERDICT_SOURCES] },
    ...(product ? { product } : {}),
  };
}

/** The SHA-256 of what decides the verdicts of this installed suite. */
export function suiteContentHash(root = ROOT): string {
  return contentHash(
    VERDICT_SOURCES.map((d) => path.join(root, d)),
    root,
  );
}

function gitState(): { commit: string; workingTreeModified: boolean | 'unknown' } {
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { commit: git(['rev-parse', 'HEAD']), workingTreeModified: git(['status', '--porcelain', '--', ...VERDICT_SOURCES]) !== '' };
  } catch {
    return { commit: 'unknown (not a git checkout)', workingTreeModified: 'unknown' };
  }
}

/** SHA-256 over every file's path (relative to root) and content, in path order; a path may be a folder or a file. */
function contentHash(paths: string[], root = ROOT): string {
  const hash = crypto.createHash('sha256');
  const files = paths.flatMap((d) => listFiles(d)).sort();
  for (const f of files) {
    hash.update(path.relative(root, f).split(path.sep).join('/'));
    hash.update('\0');
    hash.update(fs.readFileSync(f));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  if (fs.statSync(dir).isFile()) return [dir];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(full) : e.isFile() ? [full] : [];
  });
}
