// The command line: --list-faults, --list-variants, bad flags (exit 2, one line, no stack), start-up
// line, env vars, SIGTERM.

import { expect, test } from '@playwright/test';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs, UsageError } from '../../../reference-server/cli';
import { FAULTS } from '../../../reference-server/faults';
import { VARIANTS } from '../../../reference-server/variants';

const ROOT = join(__dirname, '..', '..', '..');
/** What `npm run reference` runs (without npm's process): the compiled server (start.cjs). */
const CLI = join(ROOT, 'reference-server', 'start.cjs');

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
}

/** Starts the server and resolves with its start-up line. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start-up line: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve({ child, line });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

test('--list-faults prints the registry as a table and exits 0', () => {
  const res = run(['--list-faults']);
  expect(res.status).toBe(0);
  const lines = res.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^NAME\s+FAMILY\s+DESCRIPTION$/);
  expect(lines).toHaveLength(FAULTS.length + 1);
  for (const f of FAULTS) expect(res.stdout).toMatch(new RegExp(`^${f.name}\\s+${f.family}\\s+`, 'm'));
});

test('--list-variants prints the variant registry as a table and exits 0', () => {
  const res = run(['--list-variants']);
  expect(res.status).toBe(0);
  const lines = res.stdout.trim().split('\n');
  expect(lines[0]).toMatch(/^NAME\s+DESCRIPTION\s+\[allowed by: /);
  expect(lines).toHaveLength(VARIANTS.length + 1);
  for (const v of VARIANTS) expect(res.stdout).toMatch(new RegExp(`^${v.name}\\s+\\S.*\\[allowed by: `, 'm'));
});

test('bad flags and values: one line naming the problem and the valid values, exit 2', () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['--mode', 'cluod'], {}, /Invalid --mode 'cluod' \(valid: cloud, sandbox\)/],
    [['--fault', 'nope'], {}, /Unknown --fault 'nope' \(valid: none, car-date-zulu, /],
    [['--port', 'abc'], {}, /Invalid --port 'abc'/],
    [['--port', '70000'], {}, /Invalid --port '70000'/],
    [
      ['--prot', '1'],
      {},
      /Unknown option '--prot' \(valid: --port, --host, --tls-cert, --tls-key, --http2, --mode, --fault, --variant, --latency-ms, --route-latency, --list-faults, --list-variants/,
    ],
    [['--variant', 'nope'], {}, /Unknown --variant 'nope' \(valid: none, quiet-month, .*; see --list-variants\)/],
    [['--variant'], {}, /Option --variant needs a value/],
    [['--http2'], {}, /--http2 needs --tls-cert and --tls-key/],
    [[], { VDS_REFERENCE_VARIANT: 'nope' }, /Unknown VDS_REFERENCE_VARIANT 'nope' \(valid: none, quiet-month, /],
    [['--latency-ms', 'abc'], {}, /Invalid --latency-ms 'abc' \(valid: an integer number of ms, 0 or more\)/],
    [['--latency-ms', '-5'], {}, /Invalid --latency-ms '-5'/],
    [[], { VDS_REFERENCE_LATENCY_MS: '1.5' }, /Invalid VDS_REFERENCE_LATENCY_MS '1.5'/],
    [['--route-latency', 'GET /nowhere=5'], {}, /Invalid --route-latency: unknown route 'GET \/nowhere' \(valid: GET \/users\/me, /],
    [['--route-latency', 'GET /users/me'], {}, /Invalid --route-latency 'GET \/users\/me' \(valid: ROUTE=MS/],
    [[], { VDS_REFERENCE_ROUTE_LATENCY: 'GET /users/me=-1' }, /Invalid VDS_REFERENCE_ROUTE_LATENCY 'GET \/users\/me=-1'/],
    [['--port'], {}, /Option --port needs a value/],
    [[], { VDS_REFERENCE_MODE: 'prod' }, /Invalid VDS_REFERENCE_MODE 'prod' \(valid: cloud, sandbox\)/],
    [[], { VDS_REFERENCE_FAULT: 'nope' }, /Unknown VDS_REFERENCE_FAULT 'nope'/],
    [['--fault', 'route-answers-500'], {}, /Invalid --fault 'route-answers-500': .*start it as 'route-answers-500@<route>' with a route of GET \/users\/me/],
    [['--fault', 'car-date-zulu@GET /users/me'], {}, /Invalid --fault 'car-date-zulu@GET \/users\/me': .*not per route/],
    [['--tls-cert', '/nowhere/cert.pem'], {}, /Invalid --tls-cert '\/nowhere\/cert.pem' \(valid: a PEM file\)/],
    [['--tls-cert', 'package.json'], {}, /--tls-cert and --tls-key go together/],
  ];
  // Each case's message from the parser itself; two of them through the command, which prints that
  // message as its one line and exits 2 (a process each: the parser is what differs between cases).
  for (const [args, env, message] of cases) {
    expect(() => parseArgs(args, env), args.join(' ')).toThrow(UsageError);
    expect(() => parseArgs(args, env), args.join(' ')).toThrow(message);
  }
  for (const [args, env, message] of [cases[0], cases[7]]) {
    const res = run(args, env);
    expect(res.status, args.join(' ')).toBe(2);
    expect(res.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  }
});

test('starts on a free port, prints one line, serves /v3, stops cleanly on SIGTERM and SIGINT', async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const { child, line } = await start(['--port', '0', '--mode', 'cloud']);
    const match = /^VDS reference \(mode cloud, fault none, variant none\) listening on http:\/\/127\.0\.0\.1:(\d+)\/v3$/.exec(line);
    expect(match, line).not.toBeNull();
    const res = await fetch(`http://127.0.0.1:${match![1]}/v3/users/me`);
    expect(res.status).toBe(401);
    expect(await stop(child, signal)).toBe(0);
  }
});

test('env vars act like the flags; flags win', async () => {
  const { child, line } = await start(['--port=0'], { VDS_REFERENCE_MODE: 'sandbox', VDS_REFERENCE_FAULT: 'car-date-zulu' });
  expect(line).toMatch(/^VDS reference \(mode sandbox, fault car-date-zulu, variant none\) listening on http:\/\/127\.0\.0\.1:\d+\/v3$/);
  const port = /:(\d+)\/v3$/.exec(line)![1];
  const car = await (await fetch(`http://127.0.0.1:${port}/v3/cars/5001`)).json();
  expect(car.creationDate).toMatch(/Z$/);
  expect(await stop(child, 'SIGTERM')).toBe(0);

  const second = await start(['--port', '0', '--mode', 'cloud', '--fault', 'none'], { VDS_REFERENCE_MODE: 'bogus', VDS_REFERENCE_FAULT: 'bogus' });
  expect(second.line).toMatch(/^VDS reference \(mode cloud, fault none, variant none\) listening on /);
  expect(await stop(second.child, 'SIGTERM')).toBe(0);
});

test('--variant and VDS_REFERENCE_VARIANT start a variant (flag wins); --latency-ms and VDS_REFERENCE_LATENCY_MS delay answers', async () => {
  const { child, line } = await start(['--port', '0', '--variant', 'extra-fields', '--fault', 'car-date-zulu'], { VDS_REFERENCE_VARIANT: 'bogus' });
  expect(line).toMatch(/^VDS reference \(mode cloud, fault car-date-zulu, variant extra-fields\) listening on http:\/\/127\.0\.0\.1:\d+\/v3$/);
  const port = /:(\d+)\/v3$/.exec(line)![1];
  const error = await (await fetch(`http://127.0.0.1:${port}/v3/users/me`)).json();
  expect(error[0].vendorExtension).toMatchObject({ source: 'reference' });
  expect(await stop(child, 'SIGTERM')).toBe(0);

  const fromEnv = await start(['--port=0', '--latency-ms=0'], { VDS_REFERENCE_VARIANT: 'errors-text-plain', VDS_REFERENCE_LATENCY_MS: '400' });
  expect(fromEnv.line).toMatch(/^VDS reference \(mode cloud, fault none, variant errors-text-plain\) listening on /);
  const envPort = /:(\d+)\/v3$/.exec(fromEnv.line)![1];
  expect((await fetch(`http://127.0.0.1:${envPort}/v3/users/me`)).headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(await stop(fromEnv.child, 'SIGTERM')).toBe(0);

  const slow = await start(['--port', '0', '--variant', 'none'], { VDS_REFERENCE_VARIANT: 'extra-fields', VDS_REFERENCE_LATENCY_MS: '300' });
  expect(slow.line).toMatch(/^VDS reference \(mode cloud, fault none, variant none, latency 300 ms\) listening on /);
  const slowPort = /:(\d+)\/v3$/.exec(slow.line)![1];
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${slowPort}/_control/issued`);
  expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  expect(res.status).toBe(200);
  expect(await stop(slow.child, 'SIGTERM')).toBe(0);
});

test('--route-latency delays one route only, and says so in the start-up line', async () => {
  const oneRoute = await start(['--port', '0', '--route-latency', 'GET /users/:userId=300']);
  expect(oneRoute.line).toMatch(/^VDS reference \(mode cloud, fault none, variant none, slower: GET \/users\/:userId \+300 ms\) listening on /);
  const onePort = /:(\d+)\/v3$/.exec(oneRoute.line)![1];
  const t0 = performance.now();
  expect((await fetch(`http://127.0.0.1:${onePort}/v3/users/101`)).status).toBe(401);
  expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  expect(await stop(oneRoute.child, 'SIGTERM')).toBe(0);
});
