// The end-to-end sample of the proof: the README's command (`npm run conformance`, the compiled suite:
// scripts/command-line.ts) as a user runs it, its exit status and its certificate.
// Which conforming servers it runs (the others run in-process: conforming.test.ts), and how one run
// of the command is started and read.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { killGroup } from '../../../src/util/process-group';
import type { Certificate } from '../../../src/verdict/model';
import { REPORT_FILES } from '../../../src/options/paths';
import { freshRunEnv } from '../../../scripts/reference-process';
import { CONFORMANCE_COMMAND } from '../../../scripts/command-line';
import { newReportsDir, ROOT } from '../support/child-run';

/** The conforming servers the command itself runs: the clean reference (the README's command as it is), its sandbox, and one server taking every variant. */
export const COMMAND_CONFORMING = ['clean-local', 'clean-local-sandbox', 'variants-combined'];

export interface CommandRun {
  code: number | null;
  certificate?: Certificate;
  /** The last lines of what it printed. */
  tail: string;
  reportsDir: string;
}

/**
 * Runs the command with these arguments and variables, in a reports folder of its own. `quick`:
 * only the certificate, and exchanges only for failures (what the mutation gate reads); otherwise
 * every report, as a user gets them.
 */
export function runCommand(args: string[], env: NodeJS.ProcessEnv = {}, options: { quick?: boolean; timeoutMs?: number } = {}): Promise<CommandRun> {
  const reportsDir = newReportsDir();
  const childEnv: NodeJS.ProcessEnv = {
    ...freshRunEnv(process.env),
    ...(process.env.VDS_BROWSER ? { VDS_BROWSER: process.env.VDS_BROWSER } : {}),
    VDS_REPORTS_DIR: reportsDir,
    CI: '',
    ...(options.quick ? { VDS_ATTACH: 'failures', VDS_REPORTS: 'certificate', VDS_LATENCY_SAMPLING: 'off' } : {}),
    ...env,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CONFORMANCE_COMMAND, ...args], {
      cwd: ROOT,
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const read = (d: Buffer) => {
      output = (output + d).slice(-8000);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    const timer = setTimeout(() => killGroup(child), options.timeoutMs ?? 300_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const file = path.join(reportsDir, REPORT_FILES.certificateJson);
      const certificate = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate) : undefined;
      resolve({ code, certificate, tail: output.split('\n').slice(-25).join('\n'), reportsDir });
    });
  });
}
