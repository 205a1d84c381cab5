// The run's target: the recorded one when a certification archive is replayed (src/setup/replay.ts),
// else the target file VDS_TARGET names (default local), read-only under --monitor.
import path from 'node:path';
import dotenv from 'dotenv';
import { runOptions } from '../options/options';
import { replayDir, replayTarget } from './replay';
import { loadTarget, type Target } from './target';

/** Loads the target named by VDS_TARGET (default `local`). VDS_MONITOR=1 (--monitor) makes it read-only. */
export function loadTargetFromEnv(env: NodeJS.ProcessEnv = process.env): Target {
  // A replay of a certification archive: the recorded target, its secrets as placeholders (src/setup/replay.ts).
  const replaying = replayDir(env);
  if (replaying) return replayTarget(replaying);
  dotenv.config({ quiet: true, path: path.join(process.cwd(), '.env') });
  const options = runOptions(env);
  const target = loadTarget(options.target, env, options.targetChecked);
  // Nightly monitoring may point at production: it never writes, whatever the target file allows.
  return options.monitor ? { ...target, allowWrites: false } : target;
}
