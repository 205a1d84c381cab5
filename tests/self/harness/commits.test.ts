// `git log --oneline` is how a maintainer reads the project's history: a commit's subject says what
// changed in one line of at most 72 characters, and its body says why (docs/CONTRIBUTING.md). A hook
// would not hold CI's clones to it (they run no hooks): this test does, for every commit after
// 3f9ccf8, the last commit before the rule (the history up to it keeps its long subjects). In a copy
// without that history (the installed package, a tarball, a shallow clone) it says it skipped.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';

const ROOT = path.resolve(__dirname, '../../..');
/** The last commit before the rule: neither its subject nor any before it is judged. */
const BEFORE_THE_RULE = '3f9ccf8';
const MAX_SUBJECT = 72;

/** `git` in `cwd`; undefined when it fails (no git, no repository, an unknown commit). */
function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/**
 * The commits after BEFORE_THE_RULE whose subject is longer than MAX_SUBJECT ("<hash> (<n> characters)
 * <subject>"), or why none can be judged in `cwd`.
 */
function longSubjects(cwd: string): string[] | { skipped: string } {
  if (git(cwd, ['cat-file', '-e', `${BEFORE_THE_RULE}^{commit}`]) === undefined) {
    return { skipped: `no git history reaching ${BEFORE_THE_RULE} here (the installed package, a tarball, a shallow clone): no commit to judge` };
  }
  return (git(cwd, ['log', '--format=%h%x09%s', `${BEFORE_THE_RULE}..HEAD`]) ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'))
    .filter(([, subject]) => [...subject].length > MAX_SUBJECT)
    .map(([hash, subject]) => `${hash} (${[...subject].length} characters) ${subject}`);
}

test(`every commit after ${BEFORE_THE_RULE} has a subject of at most ${MAX_SUBJECT} characters`, () => {
  const long = longSubjects(ROOT);
  test.skip(!Array.isArray(long), 'skipped' in long ? long.skipped : '');
  expect(long, `subjects over ${MAX_SUBJECT} characters: reword them (git rebase -i, "reword"), the why in the body`).toEqual([]);
});

test('a copy without the history says why no commit is judged', () => {
  expect(longSubjects(os.tmpdir())).toEqual({ skipped: expect.stringContaining('no git history reaching') });
});
