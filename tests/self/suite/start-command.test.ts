// The target's startCommand (src/setup/start-command.ts). The README's command starts it before
// Playwright's runner, so that the server boots while the runner loads; the runner waits for that
// server instead of starting its own. A server that cannot start is one clear message, never a stack
// and never the whole startTimeoutMs when it has already exited: through the command, and through a
// plain `npx playwright test` (where the runner starts it itself).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort } from '../../../src/util/free-port';
import { EXIT } from '../../../src/verdict/exit-codes';
import { runCommand, writeTargetFile, type Run } from '../support/child-run';

const ONE_CHECK = '^AUTH-MISSING GET /users/me @';
const QUICK = { VDS_REPORTS: 'certificate', VDS_LATENCY_SAMPLING: 'off' };

function targetFile(port: number, startCommand: string, extra = ''): string {
  return writeTargetFile(`name: start-command-test\nbaseUrl: http://127.0.0.1:${port}/v3\nenv: cloud\nstartCommand: ${JSON.stringify(startCommand)}\n${extra}`);
}

const command = (target: string) => runCommand(['conformance', '--grep', ONE_CHECK], { target, env: QUICK, timeoutMs: 120_000 });
const direct = (target: string) => runCommand(['playwright', 'test', '--grep', ONE_CHECK], { target, env: QUICK, timeoutMs: 120_000 });

/** Refused with `message`: through the command, exit 3 (the run broke before its verdict); through Playwright, its own failure status. */
function expectRefused(run: Run, message: RegExp, code: number = EXIT.broken): void {
  expect(run.timedOut, run.output.slice(-2000)).toBe(false);
  expect(run.code, run.output.slice(-2000)).toBe(code);
  expect(run.output).toMatch(message);
  expect(run.output, 'no stack trace').not.toMatch(/\n\s+at .*\.(ts|js):\d+/);
}

test("the command starts the server before Playwright's runner: the startCommand is its child, and the run passes", async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-start-')), 'parent');
  // The shell's parent is the process that ran the startCommand.
  const run = await command(targetFile(port, `echo $PPID > ${pidFile} && exec node --require tsx/cjs reference-server/cli.ts --port ${port} --mode cloud`));
  expect(run.code, run.output.slice(-2000)).toBe(EXIT.passed);
  expect(Number(fs.readFileSync(pidFile, 'utf8').trim()), 'the startCommand was started by the command itself').toBe(run.pid);
});

for (const [how, start, code] of [
  ['through the command', command, EXIT.broken],
  ['through npx playwright test', direct, 1],
] as const) {
  test(`a startCommand that exits before its server answers: its exit code and last output, at once (${how})`, async () => {
    test.setTimeout(120_000);
    const port = await freePort();
    const run = await start(targetFile(port, `node -e "console.error('cannot open the database'); process.exit(3)"`));
    expectRefused(run, /startCommand of .* exited \(code 3\) before http:\/\/127\.0\.0\.1:\d+\/v3 answered[\s\S]*cannot open the database/, code);
    expect(run.seconds, 'not the whole startTimeoutMs (60 s)').toBeLessThan(50);
  });
}

test('a startCommand whose server never answers: refused after startTimeoutMs, naming the key', async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  const run = await command(targetFile(port, `node -e "setTimeout(() => {}, 60000)"`, 'startTimeoutMs: 2000\n'));
  expectRefused(run, /did not answer within 2000 ms \(startTimeoutMs\)/);
});

test('an address another server already answers at: refused before the startCommand runs', async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  const other = http.createServer((_req, res) => res.writeHead(404).end()).listen(port, '127.0.0.1');
  try {
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-start-')), 'ran');
    const run = await command(targetFile(port, `touch ${marker} && sleep 30`));
    expectRefused(run, /already answers before startCommand of .* ran: another server holds that address/);
    expect(fs.existsSync(marker), 'the startCommand did not run').toBe(false);
  } finally {
    other.close();
  }
});

test('a run that ends before its server answers does not wait for it: a selection of no check exits 2 at once', async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  const run = await runCommand(['conformance', '--grep', 'NO-SUCH-REQUIREMENT'], {
    target: targetFile(port, `node -e "setTimeout(() => {}, 60000)"`),
    env: QUICK,
    timeoutMs: 120_000,
  });
  expect(run.code, run.output.slice(-2000)).toBe(EXIT.usage);
  expect(run.output).toMatch(/matches no check/);
  expect(run.seconds, 'not the startTimeoutMs (60 s) of a server that never answers').toBeLessThan(30);
});
