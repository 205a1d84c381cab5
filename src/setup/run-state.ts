// What the stateful checks of one run share across Playwright workers. A worker is replaced after a
// failed test, so what one check did that a later one must know (the pin attempts spent on a device)
// is kept in a small file of the run (RunContext.stateDir), not in memory.
import fs from 'node:fs';
import path from 'node:path';
import type { RunContext } from './run-context';

function fileOf(run: Pick<RunContext, 'stateDir'>, key: string): string {
  return path.join(run.stateDir, `${key}.json`);
}

export function readRunState<T>(run: Pick<RunContext, 'stateDir'>, key: string, fallback: T): T {
  const file = fileOf(run, key);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : fallback;
}

export function writeRunState(run: Pick<RunContext, 'stateDir'>, key: string, value: unknown): void {
  fs.mkdirSync(run.stateDir, { recursive: true });
  fs.writeFileSync(fileOf(run, key), JSON.stringify(value));
}
