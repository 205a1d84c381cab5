// The embedded reference started as a child process that outlives a suite run (so a run can be
// repeated against it, or its /_control API asked afterwards), with a target file pointing at it:
// fixtures/targets/local.yaml on the chosen port, without the startCommand. Used by the mutation
// runner (a server that keeps its state between runs) and by the self-tests that run the real suite.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import YAML from 'yaml';
import { ENCODED_SECRETS, ENCODED_VSCHAR_SECRETS, SCOPES } from '../reference-server/auth/clients';
import { ENCODED_PASSWORDS } from '../reference-server/data/seed';
import { freePort } from '../src/util/free-port';
import { stopGroup } from '../src/util/process-group';

const ROOT = path.resolve(__dirname, '..');

export interface Reference {
  port: number;
  targetFile: string;
  control: string;
  /** Switches the server to another fault (or none, null), after a reset: POST /_control/fault. */
  setFault(fault: string | null): Promise<void>;
  /** An access token minted through the control API that outlives resets and fault switches (keep). */
  keptToken(clientId: string, username: string): Promise<string>;
  /** The fault guards its requests reached since the last fault switch (GET /_control/fault-guards). */
  reachedGuards(): Promise<Set<string>>;
  /** While on, each answer names the guards its request reached (header x-vds-fault-guards). */
  traceGuards(on: boolean): Promise<void>;
  /** The HTTP versions its requests came in so far, counted (GET /_control/protocols): {"1.1": n, "2.0": n}. */
  protocols(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** The target files a started reference can be reached through (fixtures/targets/<name>.yaml, on its port). */
export type ReferenceTarget = 'local' | 'local-signin' | 'local-sandbox';

export interface ReferenceOptions {
  /** The target file to write for it (default local; local-sandbox starts the sandbox mode). */
  target?: ReferenceTarget;
  fault?: string;
  variant?: string;
  /** false: the target file says control.reset: false (runs keep what earlier runs left). */
  reset?: boolean;
  /** The target file's `data` in place of its own (a variant whose data has other ids). */
  data?: Record<string, string | number>;
  /**
   * The target file gives long-lived tokens, as a CI gate's does beside its OAuth credentials: every token
   * of tokens (the primary and the other user's, none and each scope left out, an expired and a revoked one),
   * minted through the control API to be kept (configured, outside the store of the tokens a grant issues).
   */
  givenTokens?: boolean;
  /** Every answer this many milliseconds late, like a distant server. */
  latencyMs?: number;
  /** Some routes later still: 'GET /cars/:carId/status=200' (the reference's --route-latency). */
  routeLatency?: string;
  /**
   * Where it listens and how it is reached, as a deployment is (default 127.0.0.1, plain HTTP): the
   * address it listens on, the host the target file names (a host name, an IPv6 literal in brackets),
   * and TLS with the certificate and key it serves and the authority's PEM file (the target's caFile);
   * `http2`: over that TLS, HTTP/2 and HTTP/1.1 offered by ALPN.
   */
  reach?: { listen: string; host: string; tls?: { cert: string; key: string; ca: string }; http2?: boolean };
}

/**
 * The environment of a run of its own: without the suite's VDS_* settings (the flags alone say how
 * it runs), and without the variables of a Playwright worker this process may be (a self-test): the
 * config reads TEST_WORKER_INDEX to tell the runner from its workers.
 */
export function freshRunEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => (!k.startsWith('VDS_') || k === BUILD_CHECKED) && !PLAYWRIGHT_WORKER_VARS.has(k)));
}

/** Kept: the compiled suite was checked fresh by the self-tests' runner (scripts/build.cjs), no need to digest it again per run. */
const BUILD_CHECKED = 'VDS_BUILD_CHECKED';

const PLAYWRIGHT_WORKER_VARS = new Set(['TEST_WORKER_INDEX', 'TEST_PARALLEL_INDEX']);

/**
 * Starts the reference (reference-server/start.cjs: cli.ts from its bundle; cloud mode; sandbox mode for the local-sandbox target), optionally
 * with a fault or a variant, and writes a target file for it.
 */
export async function startReference(options: ReferenceOptions = {}): Promise<Reference> {
  const port = await freePort();
  const mode = options.target === 'local-sandbox' ? 'sandbox' : 'cloud';
  const flags = [
    ...(options.fault ? ['--fault', options.fault] : []),
    ...(options.variant ? ['--variant', options.variant] : []),
    ...(options.latencyMs ? ['--latency-ms', String(options.latencyMs)] : []),
    ...(options.routeLatency ? ['--route-latency', options.routeLatency] : []),
  ];
  const reach = options.reach;
  if (reach)
    flags.push('--host', reach.listen, ...(reach.tls ? ['--tls-cert', reach.tls.cert, '--tls-key', reach.tls.key] : []), ...(reach.http2 ? ['--http2'] : []));
  const child = spawn(process.execPath, ['reference-server/start.cjs', '--port', String(port), '--mode', mode, ...flags], {
    cwd: ROOT,
    stdio: 'ignore',
    detached: true,
    env: freshRunEnv(process.env),
  });
  const stop = () => stopGroup(child);
  const base = `${reach?.tls ? 'https' : 'http'}://${reach?.host ?? '127.0.0.1'}:${port}`;
  // Over TLS, its own requests trust the authority that issued its certificate (and nothing else).
  const dispatcher = reach?.tls ? new Agent({ connect: { ca: fs.readFileSync(reach.tls.ca, 'utf8') } }) : undefined;
  const fetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => undiciFetch(url, { ...init, dispatcher });
  try {
    await waitForAnswer(`${base}/v3/users/me`, 60_000, fetch);
  } catch (err) {
    await stop();
    throw err;
  }
  const control = `${base}/_control`;
  const setFault = async (fault: string | null) => {
    const res = await fetch(`${control}/fault`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ fault }) });
    if (res.status !== 204) throw new Error(`the reference did not switch to fault ${fault}: ${res.status} ${await res.text()}`);
  };
  const keptToken = async (clientId: string, username: string) => {
    const res = await fetch(`${control}/tokens/mint`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId, username, keep: true }),
    });
    const token = res.status === 200 ? ((await res.json()) as { access_token?: unknown }).access_token : undefined;
    if (typeof token !== 'string') throw new Error(`the reference did not mint a kept token for ${clientId}: ${res.status}`);
    return token;
  };
  const reachedGuards = async () => {
    const res = await fetch(`${control}/fault-guards`);
    const body = res.status === 200 ? ((await res.json()) as { reached?: unknown }).reached : undefined;
    if (!Array.isArray(body)) throw new Error(`the reference did not list its fault guards: ${res.status}`);
    return new Set(body.map(String));
  };
  const traceGuards = async (on: boolean) => {
    const res = await fetch(`${control}/fault-guards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ trace: on }),
    });
    if (res.status !== 204) throw new Error(`the reference did not switch its guard trace: ${res.status}`);
  };
  const protocols = async () => (await (await fetch(`${control}/protocols`)).json()) as Record<string, number>;
  let tokens: Record<string, unknown> | undefined;
  try {
    tokens = options.givenTokens ? await givenTokens(control, fetch) : undefined;
  } catch (err) {
    await stop();
    throw err;
  }
  const targetFile = writeTargetFile(base, options.target ?? 'local', {
    ...(options.reset === false ? { reset: false } : {}),
    ...(options.data ? { data: options.data } : {}),
    ...(reach?.tls ? { caFile: reach.tls.ca } : {}),
    ...(variantCredentials(options.variant) ? { oauth: variantCredentials(options.variant) } : {}),
    ...(tokens ? { keys: { tokens } } : {}),
  });
  return { port, targetFile, control, setFault, keptToken, reachedGuards, traceGuards, protocols, stop };
}

type Fetch = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: string },
) => Promise<{ status: number; json(): Promise<unknown> }>;

/**
 * A CI gate's long-lived tokens (ReferenceOptions.givenTokens), as its target file's `tokens` section:
 * each minted to be kept (it outlives resets and fault switches), the expired and the revoked one then
 * expired and revoked through the control API.
 */
async function givenTokens(control: string, fetch: Fetch): Promise<Record<string, unknown>> {
  const post = (route: string, body: unknown) =>
    fetch(`${control}/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const mint = async (username: string, scopes: readonly string[]) => {
    const res = await post('tokens/mint', { clientId: 'vds-conformance', username, scopes, keep: true });
    const token = res.status === 200 ? ((await res.json()) as { access_token?: unknown }).access_token : undefined;
    if (typeof token !== 'string') throw new Error(`the reference did not mint a kept token for ${username}: ${res.status}`);
    return token;
  };
  const alice = 'alice@reference.test';
  const [full, otherUser, noScopes, expired, revoked, ...withoutScope] = await Promise.all([
    mint(alice, SCOPES),
    mint('bob@reference.test', SCOPES),
    mint(alice, []),
    mint(alice, SCOPES),
    mint(alice, SCOPES),
    ...SCOPES.map((left) =>
      mint(
        alice,
        SCOPES.filter((s) => s !== left),
      ),
    ),
  ]);
  for (const [route, token] of [
    ['tokens/expire', expired],
    ['tokens/revoke', revoked],
  ]) {
    const res = await post(route, { token });
    if (res.status !== 204) throw new Error(`the reference did not ${route.slice('tokens/'.length)} a kept token: ${res.status}`);
  }
  return { full, otherUser, noScopes, expired, revoked, withoutScope: Object.fromEntries(SCOPES.map((s, i) => [s, withoutScope[i]])) };
}

/**
 * The credentials a target file gives for a reference with these variants: variant encoded-credentials
 * changes the applications' secrets and the users' passwords (what a vendor's target file would hold).
 */
export function variantCredentials(variant: string | undefined): Record<string, string> | undefined {
  const variants = variant?.split(',') ?? [];
  if (!variants.includes('encoded-credentials')) return undefined;
  // oidc-provider keeps client secrets to printable ASCII (RFC 6749 Appendix A.2).
  const secrets = variants.includes('authorization-server-oidc') ? ENCODED_VSCHAR_SECRETS : ENCODED_SECRETS;
  return {
    clientSecret: secrets['vds-conformance'],
    restrictedClientSecret: secrets['vds-limited'],
    password: ENCODED_PASSWORDS['alice@reference.test'],
    otherPassword: ENCODED_PASSWORDS['bob@reference.test'],
  };
}

/** The same credentials as the local target files read them from the environment (VDS_LOCAL_*), for a run of the command. */
export function variantCredentialEnv(variant: string | undefined): Record<string, string> {
  const given = variantCredentials(variant);
  if (!given) return {};
  return {
    VDS_LOCAL_CLIENT_SECRET: given.clientSecret,
    VDS_LOCAL_LIMITED_CLIENT_SECRET: given.restrictedClientSecret,
    VDS_LOCAL_PASSWORD: given.password,
    VDS_LOCAL_OTHER_PASSWORD: given.otherPassword,
  };
}

/**
 * A target file (fixtures/targets/<name>.yaml) pointed at a server already up at `origin` (no
 * startCommand): its baseUrl and control URL on that origin; `reset: false` keeps the runs' state,
 * `caFile` names the authority of the server's certificate, `oauth` replaces some of its oauth keys,
 * `control` puts its control API elsewhere (a proxy in front of the API only), `keys` sets top-level keys,
 * `data` replaces some of its data keys (a server whose data has other ids).
 */
export function writeTargetFile(
  origin: string,
  name: ReferenceTarget,
  extra: {
    reset?: false;
    caFile?: string;
    oauth?: Record<string, string>;
    control?: string;
    keys?: Record<string, unknown>;
    data?: Record<string, string | number>;
  } = {},
): string {
  const onOrigin = (s: string) => s.replace(/^https?:\/\/[^/]*\$\{VDS_REFERENCE_PORT:-\d+\}/, origin);
  const target = YAML.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'targets', `${name}.yaml`), 'utf8'));
  delete target.startCommand;
  target.baseUrl = onOrigin(target.baseUrl);
  if (target.control)
    target.control = { ...target.control, url: extra.control ?? onOrigin(target.control.url), ...(extra.reset === false ? { reset: false } : {}) };
  Object.assign(target, extra.keys);
  if (extra.caFile) target.caFile = extra.caFile;
  if (extra.oauth) target.oauth = { ...target.oauth, ...extra.oauth };
  if (extra.data) target.data = { ...target.data, ...extra.data };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'target.yaml');
  fs.writeFileSync(file, YAML.stringify(target));
  return file;
}

async function waitForAnswer(url: string, timeoutMs: number, fetch: (url: string) => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`the reference server did not answer at ${url} within ${timeoutMs} ms`);
}
