// A JSON file written whole: to a temporary name beside it, then renamed over it, so that a reader in
// another process (a worker, the runner) sees the old file or the new one, never half of one; readable
// by its owner only (it may hold tokens). The kept tokens, the run's server status, the parsed YAML.
import fs from 'node:fs';

export function writeJsonWhole(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(tmp, file);
}
