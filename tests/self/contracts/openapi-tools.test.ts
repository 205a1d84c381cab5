// docs/openapi.yaml as the tools a vendor already uses read it:
//   - Redocly's linter (npm @redocly/cli): no error, and no warning the document does not explain itself
//     (x-vds-lint); on a broken copy it does warn (an unused component, an operation without a 4XX
//     answer, an example its schema refuses), so its silence means something;
//   - Stoplight Prism (npm @stoplight/prism-cli) as a validating proxy in front of the embedded
//     reference, the whole suite run through it (in-process, a run each way):
//       without --errors (every request and answer validated, none refused): no answer of the reference
//       is flagged, nor any request it accepted (Prism's sl-violations header on each answer, and its log);
//       with --errors (an invalid request refused, an invalid answer replaced): the checks that fail are
//       exactly those that send an invalid request on purpose (DELIBERATELY_INVALID, each with what it
//       sends), each having sent a request Prism flags, and every other check passes as it did without;
//     and Prism does flag an answer of the reference that breaks the document (a fault switched on).
// The proxy serves the document's paths at "/" (Prism reads no path from servers): a gateway in front
// mounts it at /v3, as a deployment does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import YAML from 'yaml';
import { OPENAPI_FILE } from '../../../scripts/openapi';
import { startReference, writeTargetFile, type Reference } from '../../../scripts/reference-process';
import { runInProcess, type InProcessRun } from '../../../src/engine/in-process';
import { chooseBrowser } from '../../../src/setup/browser';
import { loadTarget } from '../../../src/setup/target';
import type { CheckRecord } from '../../../src/verdict/check-record';
import { listenOnLoopback, type LoopbackServer } from '../support/loopback-server';
import { startPrism, type Prism } from '../support/prism';

const REDOCLY = require.resolve('@redocly/cli/bin/cli.js');
const doc = YAML.parse(fs.readFileSync(OPENAPI_FILE, 'utf8'));

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string; source: { ref: string } }>;
}

/** One run of `redocly lint` over the files (its built-in recommended rules), its JSON report. */
function lint(...files: string[]): { problems: LintProblem[] } {
  const res = spawnSync(process.execPath, [REDOCLY, 'lint', ...files, '--format=json'], { encoding: 'utf8', timeout: 120_000 });
  if (!res.stdout.trim().startsWith('{')) throw new Error(`redocly lint gave no report: ${res.stderr.slice(-2000)}`);
  // One JSON report per file, one after the other.
  const reports = res.stdout
    .trim()
    .split(/(?<=^\})(?=\{$)/m)
    .map((text) => JSON.parse(text) as { problems: LintProblem[] });
  return { problems: reports.flatMap((r) => r.problems) };
}

test('Redocly lint: no error, no warning the document does not explain (x-vds-lint); and it does warn on a broken copy', () => {
  // A broken copy beside it, in the same run of the linter: an unused component, an operation without a 4XX answer, an example its schema refuses.
  const broken = structuredClone(doc);
  broken.components.schemas.nobodyUsesMe = { type: 'string' };
  const me = broken.paths['/users/me'].get.responses;
  for (const status of Object.keys(me)) if (status.startsWith('4')) delete me[status];
  broken.paths['/cars/{carId}'].get.responses['200'].content['application/json'].examples.reference.value.id = 'not an integer';
  const brokenFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-openapi-')), 'openapi.yaml');
  fs.writeFileSync(brokenFile, YAML.stringify(broken, { aliasDuplicateObjects: false }));
  const report = lint(OPENAPI_FILE, brokenFile);
  const of = (file: string) => report.problems.filter((p) => path.resolve(p.location[0].source.ref) === path.resolve(file));

  expect(of(OPENAPI_FILE).filter((p) => p.severity === 'error')).toEqual([]);
  const explained = Object.keys(doc['x-vds-lint'] ?? {});
  const unexplained = of(OPENAPI_FILE)
    .filter((p) => !explained.includes(p.ruleId))
    .map((p) => `${p.ruleId} at ${p.location[0].pointer}: ${p.message}`);
  expect(unexplained).toEqual([]);
  for (const rule of explained) expect(doc['x-vds-lint'][rule], `x-vds-lint ${rule} says why`).toMatch(/\S{20}/);

  const rules = new Set(of(brokenFile).map((p) => p.ruleId));
  expect([...rules]).toEqual(expect.arrayContaining(['no-unused-components', 'operation-4xx-response', 'no-invalid-media-type-examples']));
});

/**
 * The requirements whose checks send, on purpose, a request the document does not allow: with
 * --errors, Prism refuses it before the reference sees it, so their checks fail (and only theirs).
 */
const DELIBERATELY_INVALID: Record<string, string> = {
  'AUTH-MISSING': 'no Authorization header on a route that needs a bearer token',
  'AUTH-MALFORMED': 'an Authorization header that is not "Bearer <token>" (no scheme, another scheme, no token)',
  'AUTH-BEFORE-EXISTENCE': 'no Authorization header, to an id that does not exist',
  'CORE-AUTH-REQUIRED': 'no Authorization header',
  'CORE-AUTH-BEARER': 'Authorization: "Bearer" without a token',
  'CORE-ERROR-BODY': 'the errors it provokes itself: no credential, a malformed id, a bad query value',
  'ERR-MALFORMED-ID': 'an id that is not an integer where the record’s id is one (abc, 1.5, ...)',
  'QUERY-LIMIT-NEGATIVE': 'limit=-1 (the document: an integer of 0 or more)',
  'QUERY-DATE-UNPARSEABLE': 'begin or end that is not an RFC 3339 date-time',
  'ORDER-ACCESS-BEFORE-PARAMS': "limit=-1 to another user's car",
  'ORDER-EXISTENCE-BEFORE-PARAMS': 'limit=-1 to an id that does not exist',
  'CAR-CREATE-INVALID': 'car creation bodies that each break one rule of the body',
  'DEV-BAD-CAR': 'carId=abc (an integer expected)',
  'TOKEN-MISSING-PARAM': 'token requests without grant_type, or without their grant’s code or refresh token',
  'TOKEN-NO-CLIENT': 'a token request without client credentials (HTTP Basic)',
  'CORE-AUTH-WRONG-PLACE': 'the token anywhere but the Authorization header: a request with no Authorization header',
  'AUTH-WRONG-PLACE': 'the token anywhere but the Authorization header: a request with no Authorization header',
  'TOKEN-CLIENT-IN-QUERY': 'client credentials in the query, without HTTP Basic',
  'TOKEN-CLIENT-ID-ONLY': 'client_id in the form without HTTP Basic (a confidential client without its secret)',
  'TOKEN-OTHER-GRANT-PARAM': "token requests carrying the other grant's credential instead of their own",
  'CORE-NO-SHARED-CACHE': 'right after a success, the same URL without Authorization',
  'NO-SHARED-CACHE': 'right after a success, the same URL without Authorization',
  'AUTH-CONDITIONAL-MISSING': 'right after a success, the same URL without Authorization, with If-None-Match',
  'CORE-AUTH-SANDBOX-HOST-NAMED': "no Authorization header, X-Forwarded-Host naming the sandbox's host",
};

/**
 * Without --errors Prism still answers a request it cannot read itself: a body that is not JSON (its own
 * parser, 400 invalid_json). CAR-CREATE-INVALID sends one on purpose; CORE-ERROR-BODY judges that answer.
 */
const PRISM_ANSWERS_ITSELF = ['CAR-CREATE-INVALID', 'CORE-ERROR-BODY POST /users/{userId}/cars'];

/**
 * Prism matches the Bearer scheme's name case-sensitively (its bearer handler's /^Bearer\s/), where
 * RFC 9110 § 11.1 makes it case-insensitive: AUTH-BEARER-CASE sends "bearer" and "BEARER" on purpose,
 * which the document allows and Prism flags (and refuses with --errors). Not an invalid request: a
 * limit of the tool, as a gateway of that kind would be the server's failure.
 */
const PRISM_SCHEME_CASE: Record<string, string> = { 'AUTH-BEARER-CASE': 'the Bearer scheme written "bearer" and "BEARER" (RFC 9110 § 11.1)' };

/** A request whose Authorization names the Bearer scheme in another case than Prism matches. */
const otherSchemeCase = (authorization: string | string[] | undefined) =>
  typeof authorization === 'string' && /^bearer\s/i.test(authorization) && !/^Bearer\s/.test(authorization);

/** Requests in flight at most through Prism (the target's maxConcurrency): its one thread's queue stays short. */
const PRISM_CONCURRENCY = 8;

interface Seen {
  method: string;
  url: string;
  status: number;
  /** Sent straight to the reference, around the proxy (the sign-in page's own form). */
  direct: boolean;
  /** Its Authorization names the Bearer scheme in another case than Prism matches (PRISM_SCHEME_CASE). */
  schemeCase?: boolean;
  violations?: string;
}

const flagged = (violations: string | undefined, where: 'request' | 'response') => !!violations && new RegExp(`"location":\\["${where}"`).test(violations);
const flaggedRequest = (r: CheckRecord) => r.exchanges.some((e) => flagged(e.responseHeaders?.['sl-violations'], 'request'));

/**
 * A gateway mounting the proxy at /v3, as a deployment does: /v3/<route> goes to <proxy>/<route>. The
 * sign-in page's own form (POST /v3/auth/auth and /v3/auth/consent: no route of the documents) goes
 * around it to the reference, as a gateway passes a page's own traffic. Every answer is kept, with
 * Prism's violations.
 */
async function gateway(proxy: string, reference: string, seen: Seen[]): Promise<LoopbackServer> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const direct = req.method === 'POST' && /^\/v3\/auth\/(auth|consent)(\?|$)/.test(url);
    const target = direct ? `${reference}${url}` : `${proxy}${url.replace(/^\/v3(?=\/|\?|$)/, '') || '/'}`;
    const forward = http.request(target, { method: req.method, headers: req.headers }, (up) => {
      seen.push({
        method: req.method ?? 'GET',
        url,
        status: up.statusCode ?? 0,
        direct,
        violations: up.headers['sl-violations'] as string | undefined,
        ...(otherSchemeCase(req.headers.authorization) ? { schemeCase: true } : {}),
      });
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return listenOnLoopback(server);
}

test.describe('Prism as a validating proxy in front of the reference, the suite through it', () => {
  test.describe.configure({ mode: 'serial', timeout: 300_000 });
  let reference: Reference;
  const runs: Partial<Record<'plain' | 'errors', { run: InProcessRun; seen: Seen[]; log: string }>> = {};
  const closing: Array<() => Promise<void>> = [];

  test.beforeAll(async () => {
    reference = await startReference({ target: 'local' });
    closing.push(() => reference.stop());
  });
  test.afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  const proxies: Partial<Record<'plain' | 'errors', Prism>> = {};

  async function runThrough(mode: 'plain' | 'errors'): Promise<void> {
    const upstream = `http://127.0.0.1:${reference.port}`;
    // Its log at warn (every violation is logged as an error or a warning), written by a process of its own (-m).
    const prism = await startPrism(['proxy', OPENAPI_FILE, `${upstream}/v3`, '-m', '-v', 'warn', ...(mode === 'errors' ? ['--errors'] : [])]);
    closing.push(() => prism.close());
    proxies[mode] = prism;
    const seen: Seen[] = [];
    const front = await gateway(prism.origin, upstream, seen);
    closing.push(() => front.close());
    await reference.setFault(null);
    // The control API stays the reference's own: it is no route of the API. Prism answers one request
    // at a time (one thread, each answer validated): the target says so with maxConcurrency, as a user
    // does for a gateway that limits concurrent requests, or the checks' own queue there would outlast
    // requestTimeoutMs on a busy machine (the round trip through it calls for some 60 requests at once).
    const targetFile = writeTargetFile(front.origin, 'local', { control: reference.control, keys: { maxConcurrency: PRISM_CONCURRENCY } });
    const run = await runInProcess({ target: loadTarget(targetFile), browserChoice: chooseBrowser() });
    runs[mode] = { run, seen, log: prism.log() };
  }

  test('without --errors: no answer of the reference is flagged, nor any request it accepted', async () => {
    await runThrough('plain');
    const { run, seen, log } = runs.plain!;
    const viaProxy = seen.filter((s) => !s.direct);
    expect(viaProxy.length, 'the suite went through the proxy').toBeGreaterThan(1000);
    expect(seen.filter((s) => flagged(s.violations, 'response')).map((s) => `${s.method} ${s.url} -> ${s.status}: ${s.violations}`)).toEqual([]);
    expect(log, "Prism's log").not.toMatch(/Violation: response/);
    const accepted = viaProxy.filter((s) => s.status < 400);
    expect(accepted.length).toBeGreaterThan(500);
    expect(
      accepted.filter((s) => flagged(s.violations, 'request') && !s.schemeCase).map((s) => `${s.method} ${s.url} -> ${s.status}: ${s.violations}`),
    ).toEqual([]);
    // Prism does judge the requests: the suite's deliberately invalid ones are flagged, and were answered with an error.
    expect(viaProxy.filter((s) => flagged(s.violations, 'request')).length).toBeGreaterThan(100);
    expect(log).toMatch(/Violation: request/);
    const failed = run.records.filter((r) => r.status === 'failed');
    const why = (records: CheckRecord[]) => records.map((r) => `${r.key}: ${r.failure?.actual ?? r.reason}`).join('\n');
    expect(failed.map((r) => r.key).sort(), why(failed)).toEqual([...PRISM_ANSWERS_ITSELF].sort());
    for (const r of failed) expect(JSON.stringify(r.failure), r.key).toContain('invalid_json');
  });

  test('with --errors: the checks that fail are exactly those that send an invalid request on purpose; every other passes', async () => {
    await runThrough('errors');
    const plain = new Map(runs.plain!.run.records.map((r) => [r.key, r]));
    const { run } = runs.errors!;
    const failed = run.records.filter((r) => r.status === 'failed');
    const why = failed.map((r) => `${r.key}: ${r.failure?.actual}`).join('\n');
    expect([...new Set(failed.map((r) => r.requirement))].sort(), why).toEqual(
      [...Object.keys(DELIBERATELY_INVALID), ...Object.keys(PRISM_SCHEME_CASE)].sort(),
    );
    // Each failing check sent a request Prism flags (seen in the run without --errors, where it reached the reference).
    expect(failed.filter((r) => !flaggedRequest(plain.get(r.key)!)).map((r) => r.key)).toEqual([]);
    // A check whose requests were all valid ends as it did without --errors (passed stays passed; nothing falls to not run).
    const changed = run.records
      .filter((r) => r.status !== plain.get(r.key)?.status && !flaggedRequest(plain.get(r.key)!) && !PRISM_ANSWERS_ITSELF.includes(r.key))
      .map((r) => `${r.key}: ${plain.get(r.key)?.status} -> ${r.status} ${r.reason ?? JSON.stringify(r.failure ?? '')}`);
    expect(changed).toEqual([]);
    // Those the issue names: car creation, the token endpoint and the core checks built on them.
    const status = (key: string) => run.records.find((r) => r.key === key)?.status;
    for (const key of [
      'CAR-CREATE',
      'CAR-CREATE-FULL',
      'CAR-CREATE-BOUNDS',
      'CORE-CAR-CREATE',
      'TOKEN-CODE-GRANT',
      'TOKEN-REFRESH',
      'TOKEN-BAD-CLIENT',
      'TOKEN-INVALID-CODE',
    ])
      expect(status(key), key).toBe('passed');
    // The sign-in page's, through a browser: as they ended without --errors (passed where a browser is found).
    for (const key of ['CORE-TOKEN-ENDPOINT', 'SIGNIN-PAGE', 'SIGNIN-CODE-STATE', 'SIGNIN-SCOPE-SUBSET', 'CORE-DEVICE-SCOPE-RESTRICTED'])
      expect(status(key), key).toBe(plain.get(key)!.status);
    expect(run.certificate.counts.checks.passed).toBeGreaterThan(500);
  });

  test('Prism does flag an answer that breaks the document (the reference with a fault)', async () => {
    const token = await reference.keptToken('vds-conformance', 'alice@reference.test');
    const prism = proxies.plain!;
    const violations = async (fault: string, url: string) => {
      await reference.setFault(fault);
      const res = await fetch(`${prism.origin}${url}`, { headers: { authorization: `Bearer ${token}` } });
      return res.headers.get('sl-violations') ?? '';
    };
    try {
      // A car date ending in Z: date-time alone would take it; the car record's pattern does not.
      expect(await violations('car-date-zulu', '/cars/5001')).toMatch(/"location":\["response","body","creationDate"\].*pattern/);
      // An error without its tip: the error array's schema.
      expect(await violations('error-tip-missing', '/cars/2147480731')).toMatch(/"location":\["response","body","0"\].*tip/);
    } finally {
      await reference.setFault(null);
    }
  });
});
