// Command line of the reference server: `npm run reference -- --port 8080 --mode cloud [--fault NAME]`.
// Env vars VDS_REFERENCE_MODE / VDS_REFERENCE_FAULT act like the flags; flags win.

import { buildReferenceApp } from './app';
import type { Mode } from './context';
import { faultNames, Faults, formatFaultTable, isFaultName, parseFaultSpec } from './faults';

interface CliOptions {
  port: number;
  host: string;
  mode: Mode;
  fault: string | null;
  listFaults: boolean;
}

class UsageError extends Error {}

const FLAGS = ['--port', '--host', '--mode', '--fault', '--list-faults', '--help'];
const USAGE = 'usage: npm run reference -- [--port N] [--host ADDRESS] [--mode cloud|sandbox] [--fault NAME] [--list-faults]';

function parseMode(value: string, source: string): Mode {
  if (value === 'cloud' || value === 'sandbox') return value;
  throw new UsageError(`Invalid ${source} '${value}' (valid: cloud, sandbox)`);
}

function parseFault(value: string, source: string): string | null {
  if (value === '' || value === 'none') return null;
  if (!isFaultName(parseFaultSpec(value).name)) throw new UsageError(`Unknown ${source} '${value}' (valid: none, ${faultNames().join(', ')}; see --list-faults)`);
  try {
    new Faults(value); // a per-route fault needs its route, a plain one takes none
  } catch (err) {
    throw new UsageError(`Invalid ${source} '${value}': ${(err as Error).message}`);
  }
  return value;
}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions | 'help' {
  const options: CliOptions = { port: 8080, host: '127.0.0.1', mode: 'cloud', fault: null, listFaults: false };
  let modeFlag = false;
  let faultFlag = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (!FLAGS.includes(flag)) throw new UsageError(`Unknown option '${arg}' (valid: ${FLAGS.join(', ')})`);
    if (flag === '--list-faults') {
      options.listFaults = true;
      continue;
    }
    if (flag === '--help') return 'help';
    let value: string | undefined;
    if (eq > 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined) throw new UsageError(`Option ${flag} needs a value`);
    switch (flag) {
      case '--port': {
        if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`Invalid --port '${value}' (valid: an integer 0..65535, 0 = any free port)`);
        options.port = Number(value);
        break;
      }
      case '--host':
        if (value === '') throw new UsageError("Invalid --host '' (valid: an address or host name, e.g. 127.0.0.1)");
        options.host = value;
        break;
      case '--mode':
        options.mode = parseMode(value, '--mode');
        modeFlag = true;
        break;
      case '--fault':
        options.fault = parseFault(value, '--fault');
        faultFlag = true;
        break;
    }
  }
  // The env vars apply only where no flag was given (flags win, and a bad env var is then ignored).
  if (!modeFlag && env.VDS_REFERENCE_MODE) options.mode = parseMode(env.VDS_REFERENCE_MODE, 'VDS_REFERENCE_MODE');
  if (!faultFlag && env.VDS_REFERENCE_FAULT) options.fault = parseFault(env.VDS_REFERENCE_FAULT, 'VDS_REFERENCE_FAULT');
  return options;
}

async function main(): Promise<void> {
  let options: CliOptions | 'help';
  try {
    options = parseArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`vds-reference: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (options.listFaults) {
    process.stdout.write(`${formatFaultTable()}\n`);
    return;
  }

  const app = await buildReferenceApp({ mode: options.mode, fault: options.fault ?? undefined });
  try {
    await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    process.stderr.write(`vds-reference: cannot listen on ${options.host}:${options.port}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  process.stdout.write(`VDS reference (mode ${options.mode}, fault ${options.fault ?? 'none'}) listening on http://${host}:${port}/v3\n`);

  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`vds-reference: ${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  });
}
