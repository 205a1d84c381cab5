// Bad input at the entry point gets one clear message, quickly, and no stack trace.
import { expect, test } from '@playwright/test';
import { startReference } from '../../../scripts/reference-process';
import { runSuite, writeTargetFile } from './run-suite';

test('a target file with typos: exit 2, each bad key named with its likely correction', async () => {
  const target = writeTargetFile('name: typo\nbaseUrl: http://127.0.0.1:59998/v3\nenv: cloud\nallowWrite: true\ntokens:\n  ful: abcdefgh\n');
  const run = await runSuite({ target, timeoutMs: 60_000 });
  expect(run.code).toBe(2);
  expect(run.output).toContain("unknown key 'allowWrite' (did you mean 'allowWrites'?)");
  expect(run.output).toContain("unknown key 'ful' under 'tokens' (did you mean 'full'?)");
  expect(run.output).not.toMatch(/^\s+at /m);
});

test('an unknown target name lists the known ones', async () => {
  const run = await runSuite({ target: 'nosuchtarget', timeoutMs: 60_000 });
  expect(run.code).toBe(2);
  expect(run.output).toContain('Target file not found');
  expect(run.output).toContain('cloud, local, local-sandbox, local-signin, sandbox');
});

test('an unreachable target fails fast with one clear message, not one failure per check', async () => {
  const target = writeTargetFile('name: nowhere\nbaseUrl: http://127.0.0.1:59997/v3\nenv: cloud\n');
  const run = await runSuite({ target, timeoutMs: 60_000 });
  expect(run.timedOut).toBe(false);
  expect(run.code).not.toBe(0);
  expect(run.seconds).toBeLessThan(45);
  expect(run.output.match(/does not answer/g)).toHaveLength(1);
  expect(run.output).toContain('connection refused');
  expect(run.output).not.toMatch(/^\s+at /m);
  expect(run.output).not.toMatch(/\d+ failed/);
});

test("a token the target refuses (expired, another server's): the run warning says so and how to fix it", async () => {
  const reference = await startReference();
  try {
    const target = writeTargetFile(`name: stale\nbaseUrl: http://127.0.0.1:${reference.port}/v3\nenv: cloud\ntokens:\n  full: stale-token-of-last-month\n`);
    const run = await runSuite({ target, timeoutMs: 60_000, env: { VDS_GREP: '^RESP-STATUS GET /users/me @' } });
    expect(run.output).toMatch(
      /discovery: GET \/users\/me answered 401 "Invalid token": the target refuses the full token; if it has expired .* give a fresh one \(tokens\.full in /,
    );
    expect(run.output).not.toContain('stale-token-of-last-month');
  } finally {
    await reference.stop();
  }
});
