// The embedded reference asked for the examples of docs/openapi.yaml: every example the export shows is
// the reference's real answer to a request written here in symbols (tokens by their target-file key,
// ids by their role, codes and refresh tokens minted as the request goes), so that the document names
// no secret. The reference runs in this process with its clock fixed: its data is generated relative
// to its clock, and a clock that moved with the day would change the export, and fail its up-to-date
// test, every day.
import { buildReferenceApp } from '../reference-server/app';
import { APPLICATIONS } from '../reference-server/auth/clients';
import { SEED_IDS, seedFor } from '../reference-server/data/seed';
import { nearMisses, type NearMissForm } from '../src/check-api/near-miss';

/** The instant the reference is asked at: mid-month, so that the default range (the month so far) holds data. */
export const EXAMPLES_AT = '2026-03-17T10:20:30Z';

/** What a request authenticates with, in symbols. */
export type Credential =
  /** A bearer token, by the target file's key: full, otherUser, noScopes, withoutScope.<scope>, expired, revoked, restrictedApp. */
  | { token: string; nearMiss?: NearMissForm }
  /** A raw Authorization header; `@token` in it is the full token, `@refresh`, `@code`, `@client-secret` those credentials. */
  | { header: string }
  /** HTTP Basic with an application's credentials (the token endpoint); wrong-secret: the full one's id with another secret. */
  | { client: Application }
  | 'none';

type Application = 'full' | 'restricted' | 'wrong-secret';

/** A request to the reference, below its /v3 root, in symbols. */
export interface ExampleRequest {
  method: 'GET' | 'POST';
  /** The path below /v3, ids filled in (EXAMPLE_IDS). */
  path: string;
  query?: Record<string, string>;
  credential: Credential;
  json?: unknown;
  /**
   * A form body; the values `@code` and `@refresh` are a fresh authorization code and refresh token of
   * the full application (the same one wherever they recur in one example), `@code-with-redirect` a code
   * minted with the application's redirect URI.
   */
  form?: Record<string, string>;
  /** A body sent as it is. */
  raw?: { contentType: string; text: string };
  /** Sent first, in order, on the same state (their answers are not shown). */
  before?: ExampleRequest[];
  /**
   * A conforming variant of the reference to ask (reference-server/variants.ts): where the documents
   * allow two answers and the default reference gives the other one (statistics without data: 0 or 404).
   */
  variant?: string;
}

/** The reference's answer: the body parsed when it is JSON, its text otherwise. */
export interface RealAnswer {
  status: number;
  contentType: string;
  body: unknown;
}

const [FULL, RESTRICTED] = APPLICATIONS;
const USERS = { full: 'alice@reference.test', otherUser: 'bob@reference.test' } as const;

/** The latest trip of a car in the reference's data at EXAMPLES_AT. */
function latestTrip(carId: number): string {
  const trips = [...seedFor(Date.parse(EXAMPLES_AT)).trips.values()].filter((t) => t.carId === carId);
  return trips.reduce((a, b) => (b.beginDate > a.beginDate ? b : a)).id;
}

function device(id: string): { id: string; pin: string } {
  const found = seedFor(Date.parse(EXAMPLES_AT)).devices.find((d) => d.id === id);
  if (!found) throw new Error(`the reference seeds no device ${id}`);
  return { id: found.id, pin: found.pin };
}

/**
 * The reference's seeded ids, by role (as the suite's local target names them: docs/ARCHITECTURE.md,
 * fixtures/targets/local.yaml): the primary user's, the second user's, and the devices the write
 * examples use.
 */
export const EXAMPLE_IDS = {
  userId: String(SEED_IDS.alice),
  carId: String(SEED_IDS.aliceRichCar),
  tripId: latestTrip(SEED_IDS.aliceRichCar),
  otherUserId: String(SEED_IDS.bob),
  otherCarId: String(SEED_IDS.bobCar),
  otherTripId: latestTrip(SEED_IDS.bobCar),
  /** The second user's device, on their car. */
  otherDeviceId: 'VDSREF0003',
  /** A car of the primary user without a device, and a second one. */
  freeCarId: String(SEED_IDS.aliceBareCar),
  spareCarId: String(SEED_IDS.aliceSpareCar),
  /** A car of the second user without a device. */
  otherFreeCarId: String(SEED_IDS.bobBareCar),
  /** Free devices: for association by car, by pin, and the one pin attempts are spent on. */
  deviceForCar: device('VDSREF0101'),
  deviceForPin: device('VDSREF0102'),
  lockableDevice: device('VDSREF0103'),
  /** A car the primary user creates: the first id the reference gives. */
  createdCarId: String(SEED_IDS.firstCreatedCarId),
  /** The primary application's registered redirect URI. */
  redirectUri: FULL.redirectUris[0],
  clientId: FULL.clientId,
  restrictedClientId: RESTRICTED.clientId,
};

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const CLIENT_HEADERS: Record<Application, string> = {
  full: basic(FULL.clientId, FULL.secret),
  restricted: basic(RESTRICTED.clientId, RESTRICTED.secret),
  'wrong-secret': basic(FULL.clientId, 'not-the-secret'),
};

/** What a random secret of an example is shown as: the secret itself would change on every run. */
const standIn = (secret: string) => `(a random value of ${secret.length} characters)`;

/** Asks the reference each request, on a fresh state each (a reset between them), and answers in the same order. */
export async function askReference(requests: readonly ExampleRequest[]): Promise<RealAnswer[]> {
  const servers = new Map<string, Promise<Server>>();
  const serverFor = (variant = '') => {
    let server = servers.get(variant);
    if (!server) servers.set(variant, (server = startServer(variant)));
    return server;
  };
  try {
    const answers: RealAnswer[] = [];
    for (const req of requests) answers.push(await (await serverFor(req.variant)).ask(req));
    const issued = new Set<string>();
    for (const server of servers.values()) for (const secret of await (await server).issued()) issued.add(secret);
    return answers.map((a) => ({ ...a, body: withoutSecrets(a.body, issued) }));
  } finally {
    await Promise.all([...servers.values()].map(async (s) => (await s).close()));
  }
}

interface Server {
  ask(req: ExampleRequest): Promise<RealAnswer>;
  issued(): Promise<string[]>;
  close(): Promise<void>;
}

/** The reference in this process at EXAMPLES_AT (with a variant), and the tokens of every key the requests name. */
async function startServer(variant: string): Promise<Server> {
  const app = await buildReferenceApp({ mode: 'cloud', variant: variant || undefined, now: () => new Date(EXAMPLES_AT) });
  const control = async (path: string, payload: unknown) => {
    const res = await app.inject({ method: 'POST', url: `/_control/${path}`, payload: payload as Record<string, unknown> });
    if (res.statusCode >= 300) throw new Error(`the reference's control API refused ${path}: ${res.statusCode} ${res.body}`);
    return res.body ? (JSON.parse(res.body) as Record<string, string>) : {};
  };
  const mint = async (clientId: string, username: string, scopes?: string[]) =>
    (await control('tokens/mint', { clientId, username, scopes, keep: true })).access_token;
  const all = FULL.scopes as readonly string[];
  const tokens = new Map<string, string>([
    ['full', await mint(FULL.clientId, USERS.full)],
    ['otherUser', await mint(FULL.clientId, USERS.otherUser)],
    ['noScopes', await mint(FULL.clientId, USERS.full, [])],
    ['restrictedApp', await mint(RESTRICTED.clientId, USERS.full, [...all])],
  ]);
  for (const s of all)
    tokens.set(
      `withoutScope.${s}`,
      await mint(
        FULL.clientId,
        USERS.full,
        all.filter((x) => x !== s),
      ),
    );
  for (const [key, action] of [
    ['expired', 'expire'],
    ['revoked', 'revoke'],
  ]) {
    const token = await mint(FULL.clientId, USERS.full);
    await control(`tokens/${action}`, { token });
    tokens.set(key, token);
  }

  /** `@code`, `@code-with-redirect`, `@refresh`: minted once per example, as the request needs them. */
  const symbol = async (value: string, minted: Map<string, string>): Promise<string> => {
    if (!value.startsWith('@')) return value;
    let v = minted.get(value);
    if (v === undefined) {
      if (value === '@refresh') v = (await control('tokens/mint', { clientId: FULL.clientId, username: USERS.full })).refresh_token;
      else if (value === '@code' || value === '@code-with-redirect') {
        const redirectUri = value === '@code-with-redirect' ? EXAMPLE_IDS.redirectUri : undefined;
        v = (await control('codes/mint', { clientId: FULL.clientId, username: USERS.full, redirectUri })).code;
      } else throw new Error(`unknown example value ${value}`);
      minted.set(value, v);
    }
    return v;
  };

  const send = async (req: ExampleRequest, minted: Map<string, string>): Promise<RealAnswer> => {
    const headers: Record<string, string> = {};
    const c = req.credential;
    if (c !== 'none' && 'token' in c) {
      const token = tokens.get(c.token);
      if (!token) throw new Error(`no example token ${c.token}`);
      headers.authorization = `Bearer ${c.nearMiss ? nearMisses(token, [c.nearMiss])[0].value : token}`;
    } else if (c !== 'none' && 'header' in c) {
      // A credential of another kind as the bearer token: the refresh token, a fresh code, the client secret.
      let header = c.header.replace('@token', tokens.get('full')!).replace('@client-secret', FULL.secret);
      for (const kind of ['@refresh', '@code'] as const) if (header.includes(kind)) header = header.replace(kind, await symbol(kind, minted));
      headers.authorization = header;
    } else if (c !== 'none') headers.authorization = CLIENT_HEADERS[c.client];
    let payload: string | undefined;
    if (req.json !== undefined) {
      payload = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    } else if (req.form) {
      const values = await Promise.all(Object.entries(req.form).map(async ([k, v]) => [k, await symbol(v, minted)] as const));
      payload = new URLSearchParams(Object.fromEntries(values)).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (req.raw) {
      payload = req.raw.text;
      headers['content-type'] = req.raw.contentType;
    }
    const query = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
    const res = await app.inject({ method: req.method, url: `/v3${req.path}${query}`, headers, ...(payload !== undefined ? { payload } : {}) });
    const contentType = String(res.headers['content-type'] ?? '');
    const json = /[/+]json\b/.test(contentType) && res.body;
    return { status: res.statusCode, contentType, body: json ? JSON.parse(res.body) : res.body };
  };

  return {
    async ask(req) {
      await control('reset', {});
      const minted = new Map<string, string>();
      for (const first of req.before ?? []) await send(first, minted);
      return send(req, minted);
    },
    async issued() {
      return (JSON.parse((await app.inject({ method: 'GET', url: '/_control/issued' })).body) as { secrets: string[] }).secrets;
    },
    close: () => app.close(),
  };
}

function withoutSecrets(value: unknown, secrets: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return secrets.has(value) ? standIn(value) : value;
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, secrets));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v, secrets)]));
  return value;
}
