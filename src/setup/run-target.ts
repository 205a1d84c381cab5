// The run's target: the recorded one when a certification archive is replayed (src/setup/replay.ts),
// else the target file VDS_TARGET names (default local), read-only under --monitor.
// A process reads the file once and hands every later asker the same target (the runner's config,
// global setup, the reporters, the redactor of the reports; a worker's config and its fixtures): read
// again only when what it was read from changed (another file, another folder, another value of a
// variable it expands).
import path from 'node:path';
import dotenv from 'dotenv';
import { runOptions } from '../options/options';
import { replayDir, replayTarget } from './replay';
import { readTargetFile, resolveTargetFile, type Target, type TargetRead } from './target';

/** The target file this process read, where from, and the values of the variables it expanded then. */
let read: { from: TargetRead; cwd: string; values: Array<string | undefined> } | undefined;

/** The folders whose .env this process has loaded (dotenv never overrides a variable already set). */
const dotenvLoaded = new Set<string>();

/** Loads the target named by VDS_TARGET (default `local`). VDS_MONITOR=1 (--monitor) makes it read-only. */
export function loadTargetFromEnv(env: NodeJS.ProcessEnv = process.env): Target {
  // A replay of a certification archive: the recorded target, its secrets as placeholders (src/setup/replay.ts).
  const replaying = replayDir(env);
  if (replaying) return replayTarget(replaying);
  const cwd = process.cwd();
  if (!dotenvLoaded.has(cwd)) {
    dotenv.config({ quiet: true, path: path.join(cwd, '.env') });
    dotenvLoaded.add(cwd);
  }
  const options = runOptions(env);
  const target = targetFile(options.target, env, options.targetChecked, cwd);
  // Nightly monitoring may point at production: it never writes, whatever the target file allows.
  return options.monitor ? { ...target, allowWrites: false } : target;
}

/** The target file as read before, when nothing it was read from changed (and it was validated if asked to be); else read now. */
function targetFile(selector: string, env: NodeJS.ProcessEnv, checkedFile: string | undefined, cwd: string): Target {
  const file = resolveTargetFile(selector);
  const before = read;
  const same =
    before?.cwd === cwd &&
    before.from.file === file &&
    (before.from.validated || file === checkedFile) &&
    before.from.variables.every((name, i) => env[name] === before.values[i]);
  if (same) return before.from.target;
  const from = readTargetFile(selector, env, checkedFile);
  read = { from, cwd, values: from.variables.map((name) => env[name]) };
  return from.target;
}
