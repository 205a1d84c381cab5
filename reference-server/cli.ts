// Command line of the reference server: `npm run reference -- --port 8080 --mode cloud [--fault NAME] [--variant NAME[,NAME...]]`
// (started by start.cjs, from a bundle of these sources; or run as it is, compiled by tsx).
// Env vars VDS_REFERENCE_MODE / VDS_REFERENCE_FAULT / VDS_REFERENCE_VARIANT / VDS_REFERENCE_LATENCY_MS act
// like the flags; flags win.

import fs from 'node:fs';
import https from 'node:https';
import { buildReferenceApp } from './app';
import type { Mode } from './context';
import { parseFaultSpec } from './fault-specs';
import { faultNames, isFaultName } from './faults';
import { formatFaultTable, formatVariantTable } from './registry-tables';
import { parseRouteLatency, type RouteLatency } from './route-latency';
import { Faults, isNone } from './switches';
import { isVariantName, variantNames } from './variants';

interface CliOptions {
  port: number;
  host: string;
  mode: Mode;
  fault: string | null;
  variant: string | null;
  latencyMs: number;
  routeLatencyMs: RouteLatency;
  listFaults: boolean;
  listVariants: boolean;
  /** PEM files: the server answers over TLS (HTTPS) with this certificate and key, as a deployment does. */
  tlsCert?: string;
  tlsKey?: string;
  /** With TLS: HTTP/2, HTTP/1.1 offered beside it by ALPN. */
  http2: boolean;
}

/** A bad flag or value: the command prints its message as one line and exits 2. */
export class UsageError extends Error {}

const FLAGS = [
  '--port',
  '--host',
  '--tls-cert',
  '--tls-key',
  '--http2',
  '--mode',
  '--fault',
  '--variant',
  '--latency-ms',
  '--route-latency',
  '--list-faults',
  '--list-variants',
  '--help',
];
const USAGE =
  'usage: npm run reference -- [--port N] [--host ADDRESS] [--tls-cert PEM --tls-key PEM [--http2]] [--mode cloud|sandbox] [--fault NAME] [--variant NAME[,NAME...]] [--latency-ms N] [--route-latency ROUTE=MS[,...]] [--list-faults] [--list-variants]';

function parseMode(value: string, source: string): Mode {
  if (value === 'cloud' || value === 'sandbox') return value;
  throw new UsageError(`Invalid ${source} '${value}' (valid: cloud, sandbox)`);
}

function parseFault(value: string, source: string): string | null {
  if (isNone(value)) return null;
  if (!isFaultName(parseFaultSpec(value).name))
    throw new UsageError(`Unknown ${source} '${value}' (valid: none, ${faultNames().join(', ')}; see --list-faults)`);
  try {
    // eslint-disable-next-line no-new -- built only to learn whether the fault list parses
    new Faults(value); // a per-route fault needs its route, a plain one takes none
  } catch (err) {
    throw new UsageError(`Invalid ${source} '${value}': ${(err as Error).message}`);
  }
  return value;
}

/** One variant, or several separated by commas (each a documented choice: any set conforms). */
function parseVariant(value: string, source: string): string | null {
  if (isNone(value)) return null;
  const unknown = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => !isVariantName(n));
  if (unknown.length)
    throw new UsageError(
      `Unknown ${source} '${unknown.join(',')}' (valid: none, ${variantNames().join(', ')}, or several separated by commas; see --list-variants)`,
    );
  return value;
}

function parseLatency(value: string, source: string): number {
  if (!/^\d{1,6}$/.test(value)) throw new UsageError(`Invalid ${source} '${value}' (valid: an integer number of ms, 0 or more)`);
  return Number(value);
}

/** The options an env var can give too, in the order the env vars are read; `source` names the flag or the env var. */
const ENV_BACKED: readonly { flag: string; env: string; apply: (options: CliOptions, value: string, source: string) => void }[] = [
  {
    flag: '--mode',
    env: 'VDS_REFERENCE_MODE',
    apply: (o, value, source) => {
      o.mode = parseMode(value, source);
    },
  },
  {
    flag: '--fault',
    env: 'VDS_REFERENCE_FAULT',
    apply: (o, value, source) => {
      o.fault = parseFault(value, source);
    },
  },
  {
    flag: '--variant',
    env: 'VDS_REFERENCE_VARIANT',
    apply: (o, value, source) => {
      o.variant = parseVariant(value, source);
    },
  },
  {
    flag: '--latency-ms',
    env: 'VDS_REFERENCE_LATENCY_MS',
    apply: (o, value, source) => {
      o.latencyMs = parseLatency(value, source);
    },
  },
  {
    flag: '--route-latency',
    env: 'VDS_REFERENCE_ROUTE_LATENCY',
    apply: (o, value, source) => {
      try {
        o.routeLatencyMs = parseRouteLatency(value, source);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    },
  },
];

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions | 'help' {
  const options: CliOptions = {
    port: 8080,
    host: '127.0.0.1',
    mode: 'cloud',
    fault: null,
    variant: null,
    latencyMs: 0,
    routeLatencyMs: {},
    listFaults: false,
    listVariants: false,
    http2: false,
  };
  const given = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (!FLAGS.includes(flag)) throw new UsageError(`Unknown option '${arg}' (valid: ${FLAGS.join(', ')})`);
    if (flag === '--list-faults') {
      options.listFaults = true;
      continue;
    }
    if (flag === '--list-variants') {
      options.listVariants = true;
      continue;
    }
    if (flag === '--http2') {
      options.http2 = true;
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
        if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
          throw new UsageError(`Invalid --port '${value}' (valid: an integer 0..65535, 0 = any free port)`);
        options.port = Number(value);
        break;
      }
      case '--host':
        if (value === '') throw new UsageError("Invalid --host '' (valid: an address or host name, e.g. 127.0.0.1)");
        options.host = value;
        break;
      case '--tls-cert':
      case '--tls-key':
        if (!fs.existsSync(value)) throw new UsageError(`Invalid ${flag} '${value}' (valid: a PEM file)`);
        options[flag === '--tls-cert' ? 'tlsCert' : 'tlsKey'] = value;
        break;
      default:
        ENV_BACKED.find((o) => o.flag === flag)!.apply(options, value, flag);
        given.add(flag);
    }
  }
  // The env vars apply only where no flag was given (flags win, and a bad env var is then ignored).
  for (const { flag, env: name, apply } of ENV_BACKED) {
    const value = env[name];
    if (!given.has(flag) && value) apply(options, value, name);
  }
  if (Boolean(options.tlsCert) !== Boolean(options.tlsKey)) throw new UsageError('--tls-cert and --tls-key go together (the certificate and its private key)');
  if (options.http2 && !options.tlsCert) throw new UsageError('--http2 needs --tls-cert and --tls-key (HTTP/2 is offered by ALPN in the TLS handshake)');
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
  if (options.listFaults || options.listVariants) {
    const tables = [...(options.listFaults ? [formatFaultTable()] : []), ...(options.listVariants ? [formatVariantTable()] : [])];
    process.stdout.write(`${tables.join('\n\n')}\n`);
    return;
  }

  const http2 =
    options.http2 && options.tlsCert && options.tlsKey
      ? { cert: fs.readFileSync(options.tlsCert, 'utf8'), key: fs.readFileSync(options.tlsKey, 'utf8') }
      : undefined;
  const app = await buildReferenceApp({
    mode: options.mode,
    fault: options.fault ?? undefined,
    variant: options.variant ?? undefined,
    latencyMs: options.latencyMs,
    routeLatencyMs: options.routeLatencyMs,
    ...(http2 ? { http2 } : {}),
  });
  // Before the start-up line: whoever reads it may stop the server at once (a test, a suite's teardown).
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
  let server: { address(): ReturnType<typeof app.server.address> } = app.server;
  try {
    if (http2) {
      // HTTP/2 over TLS (and HTTP/1.1 by ALPN): Fastify's own server.
      await app.listen({ port: options.port, host: options.host });
    } else if (options.tlsCert && options.tlsKey) {
      // Over TLS: an HTTPS server of its own hands each request to the app, as its HTTP server would.
      await app.ready();
      const tlsServer = https.createServer({ cert: fs.readFileSync(options.tlsCert), key: fs.readFileSync(options.tlsKey) }, (req, res) =>
        app.server.emit('request', req, res),
      );
      await new Promise<void>((resolve, reject) => tlsServer.once('error', reject).listen(options.port, options.host, resolve));
      server = tlsServer;
    } else {
      await app.listen({ port: options.port, host: options.host });
    }
  } catch (error) {
    process.stderr.write(`vds-reference: cannot listen on ${options.host}:${options.port}: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const slowRoutes = Object.entries(options.routeLatencyMs).map(([route, ms]) => `${route} +${ms} ms`);
  const latency = (options.latencyMs > 0 ? `, latency ${options.latencyMs} ms` : '') + (slowRoutes.length ? `, slower: ${slowRoutes.join(', ')}` : '');
  process.stdout.write(
    `VDS reference (mode ${options.mode}, fault ${options.fault ?? 'none'}, variant ${options.variant ?? 'none'}${latency}) listening on ${options.tlsCert ? 'https' : 'http'}://${host}:${port}/v3${http2 ? ' (HTTP/2 and HTTP/1.1)' : ''}\n`,
  );
}

/**
 * Runs the command line; a failure is one line and exit status 1. start.cjs calls it (from the bundle or
 * through tsx), and so does running this file.
 * @public
 */
export function runCli(): void {
  main().catch((error: unknown) => {
    process.stderr.write(`vds-reference: ${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  });
}

if (require.main === module) runCli();
