// `npm run conformance -- [flags]`: the conformance run for users, who type flags rather than env
// vars (src/cli/args.ts), in a prepared reports folder, exiting with the status the certificate's gate
// decided (src/cli/run.ts, src/verdict/exit-codes.ts). `npm run merge -- DIR` (--merge DIR) merges the blob
// reports of sharded runs instead.
import { parseArgs, USAGE, UsageError } from '../src/cli/args';
import { run } from '../src/cli/run';
import { EXIT } from '../src/verdict/exit-codes';
import { OptionError } from '../src/playwright/report-options';

async function main(): Promise<void> {
  try {
    const inv = parseArgs(process.argv.slice(2));
    if (inv.help) {
      console.log(USAGE);
      return;
    }
    process.exitCode = await run(inv);
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof OptionError)) throw err;
    console.error(`conformance: ${err.message}`);
    process.exitCode = EXIT.usage;
  }
}

void main();
