// Stoplight Prism (npm @stoplight/prism-cli, a devDependency) on docs/openapi.yaml, as a vendor runs it:
// a validating proxy in front of a server (`proxy`, with or without --errors) or a mock server (`mock`).
// Prism serves the document's paths at "/", whatever its servers say; its log is kept for the test.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from '../../../src/util/free-port';
import { stopGroup } from '../../../src/util/process-group';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const PRISM = require.resolve('@stoplight/prism-cli/dist/index.js');

export interface Prism {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** What Prism printed so far (its log: each violation a "Violation: request ..." or "Violation: response ..." line). */
  log(): string;
  close(): Promise<void>;
}

/** Starts `prism <args...>` (e.g. ['proxy', 'docs/openapi.yaml', upstream, '--errors']) and waits until it answers. */
export async function startPrism(args: string[], timeoutMs = 60_000): Promise<Prism> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, ...args, '--port', String(port), '--host', '127.0.0.1'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(`${origin}/`);
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stopGroup(child);
        throw new Error(`prism ${args.join(' ')} did not start: ${output.slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { origin, log: () => output, close: () => stopGroup(child) };
}
