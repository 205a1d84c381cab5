// Runs the conformance suite as a user would (a child process), for the tests of its behaviour on
// bad input: a given target file, its own reports folder, bounded time, output captured.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

export interface SuiteRun {
  code: number | null;
  output: string;
  seconds: number;
  reportsDir: string;
  timedOut: boolean;
}

export function writeTargetFile(yaml: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-'));
  const file = path.join(dir, 'target.yaml');
  fs.writeFileSync(file, yaml);
  return file;
}

export function runSuite(options: { target: string; args?: string[]; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<SuiteRun> {
  const reportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-reports-'));
  const started = Date.now();
  const env: NodeJS.ProcessEnv = { ...process.env, VDS_TARGET: options.target, VDS_REPORTS_DIR: reportsDir, ...options.env };
  delete env.VDS_REFERENCE_PORT;
  return new Promise((resolve) => {
    // Its own process group, so a run that overstays is stopped with everything it started.
    const child = spawn('npx', ['playwright', 'test', ...(options.args ?? [])], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    }, options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output.replace(/^npm warn.*\n/gm, ''), seconds: (Date.now() - started) / 1000, reportsDir, timedOut });
    });
  });
}
