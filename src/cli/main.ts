// The command, whichever way it is invoked (`vds-conformance` installed, `npm run conformance --` in a
// clone): its subcommands and a run, one exit status each. A refusal (src/cli/args.ts UsageError,
// a bad reporter option) is one line and exit 2, decided before anything runs or is written: the
// reports folder is untouched.
import { parseArgs, usage, UsageError } from './args';
import { run } from './run';
import { EXIT } from '../verdict/exit-codes';
import { OptionError } from '../playwright/report-options';

/** `invokedAs`: how the user called it, for the help and the messages (`vds-conformance`, `npm run conformance --`). */
export async function main(argv: string[], invokedAs: string): Promise<number> {
  try {
    const inv = parseArgs(argv);
    if (inv.help) {
      console.log(usage(invokedAs));
      return EXIT.passed;
    }
    // Each loaded when asked for (require, as the compiled command's modules all are): a run starts its runner sooner without them.
    if (inv.init !== undefined) {
      // eslint-disable-next-line typescript/no-require-imports -- loaded only for init
      const { init } = require('./init') as typeof import('./init');
      return init(inv.init, invokedAs);
    }
    if (inv.report) {
      // eslint-disable-next-line typescript/no-require-imports -- loaded only for report
      const { report } = require('./report') as typeof import('./report');
      return await report(invokedAs);
    }
    if (inv.registry) {
      // eslint-disable-next-line typescript/no-require-imports -- loaded only for registry
      const { registry } = require('./registry') as typeof import('./registry');
      return await registry(inv.registry, invokedAs);
    }
    return await run(inv, invokedAs);
  } catch (err) {
    if (!(err instanceof UsageError || err instanceof OptionError)) throw err;
    console.error(`${invokedAs.split(' ')[0] === 'npm' ? 'conformance' : invokedAs}: ${err.message}`);
    return EXIT.usage;
  }
}
