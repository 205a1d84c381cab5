// Reads a target file (how the suite is pointed at a server), expands ${VAR} references from the
// environment or .env, and validates it against fixtures/targets/target.schema.yaml.
// Synchronous on purpose: playwright.config.ts needs the target before any test starts.
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import YAML from 'yaml';
import { didYouMean } from '../util/did-you-mean';
import { SUITE_ROOT } from '../util/suite-info';

import { SCOPES, type Scope } from '../catalogue/scopes';

export { SCOPES, type Scope };

/** The ids a target file may give under `data` (fixtures/targets/target.schema.yaml describes each). */
export const DATA_KEYS = [
  'userId',
  'otherUserId',
  'carId',
  'otherCarId',
  'tripId',
  'otherTripId',
  'freeDeviceId',
  'devicePin',
  'deviceForCarId',
  'deviceCarId',
  'secondDeviceForCarId',
  'secondDeviceCarId',
  'lockableDeviceId',
  'lockableDevicePin',
  'otherDeviceId',
] as const;
export type DataKey = (typeof DATA_KEYS)[number];

/** The tokens a target file may give under `tokens` (besides `withoutScope.<scope>`). */
export const BASE_TOKEN_KEYS = ['full', 'otherUser', 'noScopes', 'expired', 'revoked', 'restrictedApp'] as const;
type BaseTokenKey = (typeof BASE_TOKEN_KEYS)[number];
/**
 * The tokens the run has the server issue through its token endpoint beside those the target file gives
 * (tokens.ts): `issued.full` beside a given tokens.full, `issued.otherUser` beside tokens.otherUser. A
 * target file never gives them: they are the server's token store's, where a given long-lived token is not.
 */
export const ISSUED_TOKEN_KEYS = { 'issued.full': 'full', 'issued.otherUser': 'otherUser' } as const;
export type IssuedTokenKey = keyof typeof ISSUED_TOKEN_KEYS;
export type TokenKey = BaseTokenKey | `withoutScope.${Scope}` | IssuedTokenKey;
/** Every token a run may hold: the base ones, one without each scope, and those the server issued beside given ones. */
export const TOKEN_KEYS: readonly TokenKey[] = [
  ...BASE_TOKEN_KEYS,
  ...SCOPES.map((s) => `withoutScope.${s}` as const),
  ...(Object.keys(ISSUED_TOKEN_KEYS) as IssuedTokenKey[]),
];

export interface Target {
  name: string;
  baseUrl: string;
  env: 'cloud' | 'sandbox';
  allowWrites: boolean;
  startCommand?: string;
  startTimeoutMs: number;
  requestTimeoutMs: number;
  /** The reference's test-control API: reset before the run (default), tokens minted through it (default). */
  control?: { url: string; reset?: boolean; mintTokens?: boolean };
  tokens: Partial<Record<BaseTokenKey, string>> & {
    withoutScope?: Partial<Record<Scope, string>>;
  };
  oauth?: {
    clientId?: string;
    clientSecret?: string;
    redirectUri?: string;
    username?: string;
    password?: string;
    otherUsername?: string;
    otherPassword?: string;
    /** A second application, one without devices_management (the spec: not available to all applications). */
    restrictedClientId?: string;
    restrictedClientSecret?: string;
    restrictedRedirectUri?: string;
    signInPage?: { username?: string; password?: string; submit?: string; allow?: string };
  };
  data: Partial<Record<DataKey, string>>;
  /** Where the file came from, for messages. */
  source: string;
  /** The file's absolute path: its folder is where its relative paths (caFile) and its tokenCommands start from. */
  file?: string;
  /** Keys whose value was a ${VAR} that is not set: key path -> variable name. */
  unset: Record<string, string>;
  /** Keys whose whole value is a ${VAR} (set or not): key path -> variable name (for curl lines). */
  vars: Record<string, string>;
  /** The implementation under test, for a certificate (optional). */
  product?: { name?: string; version?: string; vendor?: string };
  /** Operator controls (src/transport/http-policy.ts): extra headers (secrets), a rate limit, a CA file. */
  headers?: Record<string, string>;
  rateLimit?: { requestsPerSecond: number; maxRetries?: number };
  /** The most requests in flight at once (the run's, shared among its workers); default DEFAULT_MAX_CONCURRENCY (src/transport/http-policy.ts). */
  maxConcurrency?: number;
  caFile?: string;
  /** Per token key, a shell command that prints that token (a secrets manager, a company SSO). */
  tokenCommands: Partial<Record<TokenKey, string>>;
}

export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

export const TARGETS_DIR = path.join(SUITE_ROOT, 'fixtures', 'targets');
const SCHEMA_FILE = path.join(TARGETS_DIR, 'target.schema.yaml');

/** `local` names fixtures/targets/local.yaml; anything with a slash or a .yaml/.yml ending is a path. */
export function resolveTargetFile(selector: string): string {
  const looksLikePath = /[\\/]/.test(selector) || /\.ya?ml$/i.test(selector);
  if (looksLikePath) return path.resolve(selector);
  if (!/^[A-Za-z0-9_.-]+$/.test(selector)) {
    throw new TargetError(`VDS_TARGET="${selector}" is neither a target name nor a path to a YAML file.`);
  }
  return path.join(TARGETS_DIR, `${selector}.yaml`);
}

export function listTargetNames(): string[] {
  return fs
    .readdirSync(TARGETS_DIR)
    .filter((f) => f.endsWith('.yaml') && !f.endsWith('.schema.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''))
    .sort();
}

/**
 * The target file `selector` names, its variables expanded, checked against its schema unless it is
 * `checkedFile` (the runner checked it: compiling the schema is the larger part of a worker's reading).
 */
export function loadTarget(selector: string, env: NodeJS.ProcessEnv = process.env, checkedFile?: string): Target {
  return readTargetFile(selector, env, checkedFile).target;
}

/** A target file read: the target, and the names of the variables its ${VAR}s read (what it depends on in the environment). */
export interface TargetRead {
  target: Target;
  file: string;
  validated: boolean;
  variables: string[];
}

/** loadTarget, with what the target read from the file system and the environment (run-target.ts keeps it for the process). */
export function readTargetFile(selector: string, env: NodeJS.ProcessEnv = process.env, checkedFile?: string): TargetRead {
  const file = resolveTargetFile(selector);
  const relative = path.relative(process.cwd(), file);
  const shown = relative && !relative.startsWith('..') ? relative : file;
  if (!fs.existsSync(file)) {
    throw new TargetError(`Target file not found: ${shown}. Set VDS_TARGET to one of ${listTargetNames().join(', ')} or to the path of a YAML file.`);
  }
  let raw: unknown;
  try {
    raw = YAML.parse(fs.readFileSync(file, 'utf8'), { prettyErrors: true });
  } catch (err) {
    throw new TargetError(`Target file ${shown} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TargetError(`Target file ${shown} must hold a YAML mapping (name, baseUrl, env, ...).`);
  }
  const unset: Record<string, string> = {};
  const vars: Record<string, string> = {};
  const names = new Set<string>();
  const expanded = expandVariables(raw, env, [], { unset, vars, names }, shown) as Record<string, unknown>;
  const validated = file !== checkedFile;
  if (validated) validateShape(expanded, shown);
  const t = expanded as Record<string, any>;
  const target: Target = {
    name: t.name,
    baseUrl: t.baseUrl,
    env: t.env,
    allowWrites: t.allowWrites ?? false,
    startCommand: t.startCommand,
    startTimeoutMs: t.startTimeoutMs ?? 60_000,
    requestTimeoutMs: t.requestTimeoutMs ?? 10_000,
    control: t.control,
    tokens: t.tokens ?? {},
    oauth: t.oauth,
    data: Object.fromEntries(Object.entries(t.data ?? {}).map(([k, v]) => [k, String(v)])),
    source: shown,
    file,
    unset,
    vars,
    ...(t.product ? { product: t.product } : {}),
    ...(t.headers ? { headers: t.headers } : {}),
    ...(t.rateLimit ? { rateLimit: t.rateLimit } : {}),
    ...(t.maxConcurrency !== undefined ? { maxConcurrency: t.maxConcurrency } : {}),
    ...(t.caFile ? { caFile: path.resolve(path.dirname(file), t.caFile) } : {}),
    tokenCommands: flattenTokenCommands(t.tokenCommands),
  };
  return { target, file, validated, variables: [...names] };
}

/** tokenCommands as the file writes them ({full, withoutScope: {cars_read}}) -> per token key. */
function flattenTokenCommands(raw: Record<string, unknown> | undefined): Partial<Record<TokenKey, string>> {
  const out: Partial<Record<TokenKey, string>> = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (k === 'withoutScope' && v && typeof v === 'object') {
      for (const [scope, command] of Object.entries(v)) out[`withoutScope.${scope}` as TokenKey] = String(command);
    } else if (typeof v === 'string') out[k as TokenKey] = v;
  }
  return out;
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces ${VAR} and ${VAR:-default}. A value that is only an unset ${VAR} is dropped (the key is
 * then "missing" and the checks needing it report it as not run, naming the variable); an unset
 * variable inside a longer string is an error, since the rest of the value would be wrong.
 */
function expandVariables(
  node: unknown,
  env: NodeJS.ProcessEnv,
  at: string[],
  seen: { unset: Record<string, string>; vars: Record<string, string>; names: Set<string> },
  shown: string,
): unknown {
  if (typeof node === 'string') {
    for (const m of node.matchAll(VAR)) seen.names.add(m[1]);
    const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}$/.exec(node.trim());
    if (whole) seen.vars[at.join('.')] = whole[1];
    if (whole && !node.includes(':-') && (env[whole[1]] === undefined || env[whole[1]] === '')) {
      seen.unset[at.join('.')] = whole[1];
      return undefined;
    }
    return node.replace(VAR, (_m, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      throw new TargetError(
        `Target file ${shown}: key '${at.join('.')}' uses \${${name}}, which is not set. Set it in the environment or in .env (see .env.example).`,
      );
    });
  }
  if (Array.isArray(node)) return node.map((v, i) => expandVariables(v, env, [...at, String(i)], seen, shown));
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      const value = expandVariables(v, env, [...at, k], seen, shown);
      if (value !== undefined) out[k] = value;
    }
    return out;
  }
  return node;
}

let validate: ReturnType<Ajv2020['compile']> | undefined;

function validateShape(value: Record<string, unknown>, shown: string): void {
  if (!validate) {
    // validateSchema off: the schema is ours, checked against JSON Schema 2020-12 by npm test
    // (tests/self/contracts/meta-schema.test.ts); compiling the meta-schema would cost each run about 0.1 s.
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false, validateSchema: false });
    validate = ajv.compile(YAML.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')));
  }
  if (validate(value)) return;
  const lines = (validate.errors ?? []).map(describeTargetError);
  throw new TargetError(
    `Target file ${shown} is not valid:\n${[...new Set(lines)].map((l) => `  - ${l}`).join('\n')}\n` +
      `The keys are described in fixtures/targets/target.schema.yaml and docs/targets.md.`,
  );
}

function describeTargetError(e: ErrorObject): string {
  const key = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
  switch (e.keyword) {
    case 'additionalProperty':
    case 'additionalProperties': {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys((e.parentSchema as { properties?: object })?.properties ?? {});
      const guess = didYouMean(extra, known);
      const where = key === '(top level)' ? '' : ` under '${key}'`;
      return `unknown key '${extra}'${where}${guess ? ` (did you mean '${guess}'?)` : ''}; known keys: ${known.join(', ')}`;
    }
    case 'required':
      return `missing key '${(e.params as { missingProperty: string }).missingProperty}'${key === '(top level)' ? '' : ` under '${key}'`}`;
    case 'pattern':
      return key === 'baseUrl'
        ? `'baseUrl' must be an http(s) URL ending with /v3, got ${JSON.stringify(e.data)}`
        : `'${key}' has the wrong form (${JSON.stringify(e.data)})`;
    case 'enum':
      return `'${key}' must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}, got ${JSON.stringify(e.data)}`;
    default:
      return `'${key}' ${e.message}, got ${JSON.stringify(e.data)}`;
  }
}
