// For the tests that run the real suite: the embedded reference started here (so it outlives a run
// and its /_control API can be asked afterwards) and a target file pointing at it. The suite itself
// runs through support/child-run.ts, as a user would run it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, withoutVdsVars, writeTargetFile } from '../support/child-run';

export { newReportsDir, readJson, ROOT, runCommand } from '../support/child-run';
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
  const targetFile = writeTargetFile(yaml);
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
