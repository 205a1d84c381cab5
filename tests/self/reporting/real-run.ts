// For the tests that run the real suite: the embedded reference started here (so it outlives a run
// and its /_control API can be asked afterwards), a target file pointing at it, and the suite run as
// a user would (a child process) with its own reports folder.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Reference {
  port: number;
  targetFile: string;
  control: string;
  stop(): Promise<void>;
}

/** Starts reference-server/cli.ts (optionally with one fault) and writes a target file for it. */
export async function startReference(options: { fault?: string } = {}): Promise<Reference> {
  const port = await freePort();
  const child = spawn(TSX, ['reference-server/cli.ts', '--port', String(port), '--mode', 'cloud', ...(options.fault ? ['--fault', options.fault] : [])], {
    cwd: ROOT, stdio: 'ignore', detached: true, env: withoutVdsVars(process.env),
  });
  const stop = () => stopProcess(child);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(`${base}/v3/users/me`, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }
  // The local target, pointed at this server and without a startCommand (the server is already up).
  const yaml = fs.readFileSync(path.join(ROOT, 'fixtures', 'targets', 'local.yaml'), 'utf8')
    .split('\n').filter((l) => !l.startsWith('startCommand:')).join('\n')
    .replace(/\$\{VDS_REFERENCE_PORT:-\d+\}/g, String(port));
  const targetFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'local.yaml');
  fs.writeFileSync(targetFile, yaml);
  return { port, targetFile, control: `${base}/_control`, stop };
}

async function waitForAnswer(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`the reference server did not answer at ${url} within ${timeoutMs} ms`);
}

function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.pid === undefined) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid, 'SIGTERM'); // the whole group this test started: tsx and its node
    } catch {
      resolve();
    }
  });
}

/** The self-tests' own VDS_* settings must not leak into the run under test. */
function withoutVdsVars(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('VDS_')));
}

export interface Run {
  code: number | null;
  output: string;
  reportsDir: string;
  seconds: number;
}

export function newReportsDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
}

/**
 * Runs a command of the project (`playwright test`, the wrapper, merge-reports, allure) with the
 * given target and reports folder; output captured.
 */
export function runCommand(command: string[], options: { target?: string; reportsDir?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  const reportsDir = options.reportsDir ?? newReportsDir();
  const env: NodeJS.ProcessEnv = {
    ...withoutVdsVars(process.env),
    VDS_REPORTS_DIR: reportsDir,
    ...(options.target ? { VDS_TARGET: options.target } : {}),
    ...options.env,
  };
  const started = Date.now();
  const [bin, ...args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', bin), args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => { output += d; });
    child.stderr!.on('data', (d) => { output += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command.join(' ')} did not finish within ${options.timeoutMs} ms:\n${output.slice(-3000)}`));
    }, options.timeoutMs ?? 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, reportsDir, seconds: (Date.now() - started) / 1000 });
    });
  });
}

export function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}
