// Runs the conformance suite (`playwright test`) as a user would, for the tests of its behaviour on
// bad input: a given target, its own reports folder, bounded time, output captured.
import { type Run, runCommand } from '../support/child-run';

export { writeTargetFile } from '../support/child-run';

export function runSuite(options: { target: string; args?: string[]; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return runCommand(['playwright', 'test', ...(options.args ?? [])], { target: options.target, env: options.env, timeoutMs: options.timeoutMs ?? 120_000 });
}
