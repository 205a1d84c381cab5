// One typed options module (src/options/options.ts): no other module of the suite reads a VDS_
// variable, every variable the suite uses is in its list, and docs/options.md lists each; tokens reach the
// workers through a file of the run's state folder (mode 0600), never through the environment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { OPTION_VARIABLES, runOptions } from '../../../src/options/options';
import { announceRunState, awaitRunContext, publishPreparationStop, publishRunContext, runContextIfAny, type RunContext } from '../../../src/setup/run-context';
import { OPTIONS_TABLE } from '../../../scripts/options-doc';
import { blockInDocument, renderedBlock } from '../../../scripts/generated-block';

const ROOT = path.resolve(__dirname, '../../..');
const files = (dir: string): string[] =>
  fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
const SUITE = [...files('src'), ...files('fixtures'), 'playwright.config.ts'];
/** A read of a VDS_ variable: `process.env.VDS_X`, `env.VDS_X`, `env['VDS_X']`, not an assignment to it. */
const READ = /\b(?:process\.env|env)(?:\.(VDS_\w+)\b|\[['"](VDS_\w+)['"]\])(?!\s*(?:=(?!=)|\?\?=))/g;

test("only src/options reads VDS_ variables; the command line (src/cli) only builds the runner's environment from its flags", () => {
  const offenders = SUITE.filter((f) => !f.startsWith('src/options/')).flatMap((f) =>
    fs
      .readFileSync(path.join(ROOT, f), 'utf8')
      .split('\n')
      .flatMap((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return [];
        const reads = [...line.matchAll(READ)].filter((m) => !(f.startsWith('src/cli/') && !m[0].startsWith('process.env')));
        return reads.length ? [`${f}:${i + 1}: ${line.trim()}`] : [];
      }),
  );
  expect(offenders).toEqual([]);
});

test('every VDS_ variable the suite names is one of the options, and docs/options.md lists every option', () => {
  const known = new Set(OPTION_VARIABLES.map((o) => o.name));
  // Names the target files and curl lines use for their values (${VDS_CLOUD_TOKEN}, $VDS_TOKEN_FULL, init's
  // ${VDS_FREE_DEVICE_ID}) are not options.
  const secretNames =
    /^VDS_(TOKEN_|CLOUD_|LOCAL_|SANDBOX_|CLIENT_|USERNAME|PASSWORD|OTHER_|RESTRICTED_|REDIRECT_URI|BASE_URL|GATEWAY_KEY|FREE_DEVICE_|DEVICE_FOR_CAR_|LOCKABLE_DEVICE_)/;
  const named = new Set(SUITE.flatMap((f) => [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/\bVDS_[A-Z_]+[A-Z]\b/g)].map((m) => m[0])));
  expect([...named].filter((n) => !known.has(n) && !secretNames.test(n)).sort()).toEqual([]);
  // The guide's table is the list, rendered (npx tsx scripts/options-doc.ts).
  expect(blockInDocument(OPTIONS_TABLE), 'docs/options.md: run `npx tsx scripts/options-doc.ts`').toBe(renderedBlock(OPTIONS_TABLE));
});

test('the run context reaches the workers as a file readable by its owner only; the environment carries its folder, never a token', () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-options-'));
  const before = process.env.VDS_RUN_STATE;
  try {
    const context = { stateDir, tokens: { full: 'secret-token-value-1234' }, secrets: ['secret-token-value-1234'] } as unknown as RunContext;
    publishRunContext(context);
    expect(process.env.VDS_RUN_STATE).toBe(stateDir);
    expect(Object.values(process.env).some((v) => v?.includes('secret-token-value-1234'))).toBe(false);
    const file = path.join(stateDir, 'run-context.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(runContextIfAny()?.tokens.full).toBe('secret-token-value-1234');
    expect(runOptions().runState).toBe(stateDir);
  } finally {
    if (before === undefined) delete process.env.VDS_RUN_STATE;
    else process.env.VDS_RUN_STATE = before;
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

test('a worker started before the preparation ended waits for its context, its failure, or an interruption: never forever', async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-options-'));
  const before = process.env.VDS_RUN_STATE;
  try {
    announceRunState(stateDir);
    const context = { stateDir, tokens: { full: 'secret-token-value-1234' }, secrets: [] } as unknown as RunContext;
    // The context published while the worker waits: it gets it.
    const waiting = awaitRunContext();
    await new Promise((r) => setTimeout(r, 50));
    publishRunContext(context);
    expect(await waiting).toMatchObject({ tokens: { full: 'secret-token-value-1234' } });
    // The preparation failed instead: the reason, which the route groups are skipped with.
    fs.rmSync(stateDir, { recursive: true, force: true });
    const failing = awaitRunContext();
    await new Promise((r) => setTimeout(r, 50));
    publishPreparationStop(stateDir, { failed: 'discovery got 429 Too Many Requests on GET /users/me/cars' });
    expect(await failing).toEqual({ stopped: "the run's preparation failed: discovery got 429 Too Many Requests on GET /users/me/cars" });
    expect(fs.statSync(path.join(stateDir, 'preparation-stopped.json')).mode & 0o777).toBe(0o600);
    // Interrupted while it waits: the wait ends with the interruption's reason.
    fs.rmSync(stateDir, { recursive: true, force: true });
    let signal: NodeJS.Signals | undefined;
    const interrupted = awaitRunContext(() => signal);
    setTimeout(() => (signal = 'SIGINT'), 50);
    expect(await interrupted).toEqual({ stopped: 'the run was interrupted (SIGINT) before its preparation ended' });
    // Interrupted where the runner saw it (a worker still loading when the signal came did not).
    fs.rmSync(stateDir, { recursive: true, force: true });
    const told = awaitRunContext();
    setTimeout(() => publishPreparationStop(stateDir, { interrupted: 'SIGINT' }), 50);
    expect(await told).toEqual({ stopped: 'the run was interrupted (SIGINT) before its preparation ended' });
  } finally {
    if (before === undefined) delete process.env.VDS_RUN_STATE;
    else process.env.VDS_RUN_STATE = before;
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
