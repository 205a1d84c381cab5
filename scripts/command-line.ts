// The command as its users run it, for the maintainers' tools and the self-tests that start it as a
// child process: `npm run conformance` is node with scripts/fresh.cjs preloaded (the compiled suite
// made again first when its sources changed) running the compiled command, started here straight from
// node (npm would add a process and a second to each run); `vds-conformance` is the installed
// package's entry point.
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** Node's arguments for `npm run conformance`, before the command's own. */
export const CONFORMANCE_COMMAND = ['--require', path.join(ROOT, 'scripts', 'fresh.cjs'), path.join(ROOT, 'dist', 'scripts', 'conformance.js')];

/** Node's arguments for the installed command (bin/vds-conformance.js), before the command's own. */
export const INSTALLED_COMMAND = [path.join(ROOT, 'bin', 'vds-conformance.js')];
