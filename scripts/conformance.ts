// `npm run conformance -- [subcommand] [flags]` in a clone: the command the installed package runs as
// `vds-conformance` (bin/vds-conformance.js), exiting with the status it decided (src/cli/main.ts).
// `npm run merge -- DIR` (--merge DIR) and `npm run report` (report) are the same command.
import { main } from '../src/cli/main';

void main(process.argv.slice(2), 'npm run conformance --').then((code) => {
  process.exitCode = code;
});
