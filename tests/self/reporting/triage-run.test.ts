// The triage on real runs: servers that fail many checks for one reason each, made from the reference
// (a fault, or a proxy in front of it for what no fault does), each run narrowed (as --grep would) to
// the checks that show the cause. A half-built server (trips and device routes not
// written: its framework answers them) runs nearly whole: its failure section must start with "N
// routes answer a non-API 404 to every valid request", explaining most failures. No run may print a
// secret in its triage. The runs are in-process (src/engine/in-process.ts: the command's
// preparation, checks, judgement and console text, without its processes); the last test shows the
// command printing the same section. Each run's Allure results (one per check) are held to its
// certificate: the failed results are exactly its failed checks, by key, each cause a category.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import YAML from 'yaml';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import type { Selection } from '../../../src/catalogue/selection';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import type { Certificate, TriageCauseId } from '../../../src/verdict/model';
import { dropsConnection, halfBuilt, refusesBearer, startFrontProxy, type Answer } from '../support/front-proxy';
import { newReportsDir, readJson, runCommand, startReference } from './real-run';
import { Scanner } from './scan';
import { expectAllureMatchesCertificate } from './allure-results';
import { startPrism } from '../support/prism';
import { OPENAPI_FILE } from '../../../scripts/openapi';

interface Scenario {
  fault?: string;
  /** What a proxy in front of the reference answers itself. */
  proxy?: Answer;
  /** The target file gives the primary user's ids (where discovery cannot find them through the server). */
  ids?: boolean;
  args: string[];
}

interface Outcome {
  code: number | null;
  output: string;
  certificate: Certificate;
  markdown: string;
  secrets: string[];
  reportsDir: string;
}

async function runAgainst(s: Scenario): Promise<Outcome> {
  const reference = await startReference({ fault: s.fault });
  const upstream = `http://127.0.0.1:${reference.port}`;
  const proxy = s.proxy ? await startFrontProxy(upstream, s.proxy) : undefined;
  try {
    const target = YAML.parse(fs.readFileSync(reference.targetFile, 'utf8'));
    if (proxy) target.baseUrl = `${proxy.origin}/v3`;
    if (s.ids) target.data = { ...target.data, ...(await primaryIds(upstream, reference.control)) };
    fs.writeFileSync(reference.targetFile, YAML.stringify(target));
    const reportsDir = newReportsDir();
    const run = await runInProcess({ target: loadTarget(reference.targetFile), selection: selectionOf(s.args), reportsDir });
    const secrets = ((await (await fetch(`${reference.control}/issued`)).json()) as { secrets: string[] }).secrets;
    return {
      code: run.exitCode,
      output: run.console,
      certificate: readJson<Certificate>(path.join(reportsDir, 'conformance.json')),
      reportsDir,
      markdown: fs.readFileSync(path.join(reportsDir, 'conformance.md'), 'utf8'),
      secrets,
    };
  } finally {
    await proxy?.close();
    await reference.stop();
  }
}

/** The command's --grep / --grep-invert, as a selection. */
function selectionOf(args: string[]): Selection {
  const value = (flag: string) => (args.includes(flag) ? new RegExp(args[args.indexOf(flag) + 1]) : undefined);
  return { grep: value('--grep'), grepInvert: value('--grep-invert') };
}

/** The primary user's id and car, asked of the reference itself (a proxy in front may refuse the suite's discovery). */
async function primaryIds(upstream: string, control: string): Promise<Record<string, string>> {
  const minted = await fetch(`${control}/tokens/mint`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId: 'vds-conformance', username: 'alice@reference.test' }),
  });
  const headers = { authorization: `Bearer ${((await minted.json()) as { access_token: string }).access_token}` };
  const me = (await (await fetch(`${upstream}/v3/users/me`, { headers })).json()) as { id: number };
  const cars = (await (await fetch(`${upstream}/v3/users/me/cars`, { headers })).json()) as Array<{ id: number }>;
  return { userId: String(me.id), carId: String(cars[0].id) };
}

/** The console's failure section: its first lines, from "  Failed:". */
function failureSection(output: string): string[] {
  const lines = output.split('\n');
  return lines.slice(lines.findIndex((l) => l.startsWith('  Failed:')));
}

function expectNoSecret(o: Outcome): void {
  const scanner = new Scanner([...o.secrets, 'reference-client-secret', 'alice-password'].filter((s) => s.length >= 6));
  scanner.scanText('console', o.output);
  for (const f of ['conformance.json', 'conformance.md', 'conformance.html']) scanner.scanText(f, fs.readFileSync(path.join(o.reportsDir, f), 'utf8'));
  scanner.scanTree(path.join(o.reportsDir, 'allure-results'));
  expect(scanner.result.hits.map((h) => `${h.where}: ${h.context}`)).toEqual([]);
}

test.describe.configure({ timeout: 480_000 });

test('a half-built server (trips and device routes answered by its framework): the failures start with the routes not implemented', async () => {
  const o = await runAgainst({ proxy: halfBuilt, args: ['--grep-invert', '@auth'] });
  expect(o.code, o.output.slice(-3000)).toBe(1);
  const t = o.certificate.triage!;
  expect(t, 'a triage').toBeTruthy();
  const missing = loadCatalogue()
    .routes.filter((r) => r.group === 'trips' || r.group === 'devices')
    .map((r) => r.route);
  expect(t.causes[0].id).toBe('not-implemented');
  expect(t.causes[0].routes.sort()).toEqual(missing.sort());
  expect(t.causes[0].explains).toBeGreaterThan(t.failed / 2);
  expect(t.failed).toBe(o.certificate.counts.checks.failed);

  const section = failureSection(o.output);
  expect(section[0]).toMatch(/^ {2}Failed: \d+ checks; likely causes first/);
  expect(section[1]).toBe(`    ✘ ${missing.length} routes answer a non-API 404 to every valid request (not implemented?): ${t.causes[0].explains} checks`);
  expect(section[3]).toContain('{"statusCode":404,"error":"Not Found"');
  expect(section[4]).toContain('"Authorization: Bearer $VDS_TOKEN_FULL"');
  expect(o.markdown).toContain(`1. **${missing.length} routes answer a non-API 404 to every valid request (not implemented?)**`);
  expectAllureMatchesCertificate(o.reportsDir, o.certificate);
  expectNoSecret(o);
});

test('a server serving the API at "/" while baseUrl ends with /v3 (Prism mocking docs/openapi.yaml: a vendor\'s first server): the first cause is the base URL\'s path, with what was tried', async () => {
  const prism = await startPrism(['mock', OPENAPI_FILE]);
  try {
    const targetFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-mock-')), 'target.yaml');
    // A mock takes any bearer token; no control API, no write.
    fs.writeFileSync(
      targetFile,
      YAML.stringify({ name: 'prism-mock', baseUrl: `${prism.origin}/v3`, env: 'cloud', tokens: { full: 'prism-mock-takes-any-token' } }),
    );
    const reportsDir = newReportsDir();
    const run = await runInProcess({ target: loadTarget(targetFile), reportsDir });
    expect(run.exitCode, run.console).toBe(1);
    const t = run.certificate.triage!;
    const [first] = t.causes;
    expect(first.title).toMatch(
      new RegExp(
        `^Every route the run reached \\(\\d+\\) answers a non-API 404 to every valid request: the API answered at ${prism.origin.replace(/\./g, '\\.')} instead \\(baseUrl has a path segment too many\\)$`,
      ),
    );
    expect(first.basePath).toEqual({
      baseUrl: `${prism.origin}/v3`,
      tried: [
        { baseUrl: prism.origin, request: `GET ${prism.origin}/users/me -> 401`, likeTheApi: true },
        { baseUrl: `${prism.origin}/v3/v3`, request: `GET ${prism.origin}/v3/v3/users/me -> 404`, likeTheApi: false },
      ],
    });
    expect(first.explains).toBe(t.failed);
    expect(failureSection(run.console)[1]).toBe(`    ✘ ${first.title}: ${first.explains} checks`);
    const json = readJson<Certificate>(path.join(reportsDir, 'conformance.json'));
    expect(json.triage!.causes[0].fix).toMatch(
      /^The API answered at http:\/\/127\.0\.0\.1:\d+, not at http:\/\/127\.0\.0\.1:\d+\/v3: serve the routes below \/v3/,
    );
  } finally {
    await prism.close();
  }
});

const CAUSES: Array<{ name: string; scenario: Scenario; causes: Array<{ id: TriageCauseId; title: RegExp; routes?: string[] }> }> = [
  {
    name: 'error bodies as one object, not the array (fault error-body-object-not-array)',
    scenario: { fault: 'error-body-object-not-array', args: ['--grep', '@AUTH-MISSING'] },
    causes: [{ id: 'error-body', title: /^Errors on \d+ routes are a JSON object \{type, message, tip\}, not the spec's array of \{type, message, tip\}$/ }],
  },
  {
    name: 'car dates ending in Z (fault car-date-zulu)',
    scenario: { fault: 'car-date-zulu', args: ['--grep', '@RESP-CONTRACT|@CORE-CAR-RECORD'] },
    causes: [{ id: 'date-shape', title: /^Dates are written ending in Z in place of an offset \+hh:mm on [2-9] routes \(e\.g\. \w+Date "[\d-]+T[\d:]+Z"\)$/ }],
  },
  {
    name: 'device routes served without their scope (fault devices-scope-not-checked)',
    scenario: { fault: 'devices-scope-not-checked', args: ['--grep', '@SCOPE-MISSING|@CORE-SCOPE-REFUSED'] },
    causes: [{ id: 'scope-map', title: /^The scope map is off on 3 routes of the devices group: served without devices_management/ }],
  },
  {
    name: 'GeoJSON labelled text/plain (fault geojson-content-type-text-plain) and a route dropping its connections (a proxy)',
    scenario: {
      fault: 'geojson-content-type-text-plain',
      proxy: dropsConnection(/^\/v3\/cars\/[^/]+\/status$/),
      args: ['--grep', '@RESP-GEOJSON-CONTENT-TYPE|@CORE-ROUTE-ANSWERS|@RESP-STATUS|@RESP-CONTRACT'],
    },
    causes: [
      { id: 'no-answer', title: /^GET \/cars\/\{carId\}\/status gives no answer: /, routes: ['GET /cars/{carId}/status'] },
      { id: 'content-type', title: /^2 routes label JSON answers text\/plain$/ },
    ],
  },
  {
    name: 'a gateway that refuses every bearer token (a proxy)',
    scenario: { proxy: refusesBearer, ids: true, args: ['--grep', '@RESP-STATUS'] },
    causes: [{ id: 'auth-refused', title: /^The primary user's valid token is refused as unauthenticated on every route tried \(\d+\)$/ }],
  },
];

for (const { name, scenario, causes } of CAUSES) {
  test(`triage on the reference: ${name}`, async () => {
    const o = await runAgainst(scenario);
    expect(o.code, o.output.slice(-3000)).toBe(1);
    const t = o.certificate.triage;
    expect(t, o.output.slice(-3000)).toBeTruthy();
    expect(t!.causes.map((k) => k.id).sort()).toEqual(causes.map((k) => k.id).sort());
    for (const want of causes) {
      const got = t!.causes.find((k) => k.id === want.id)!;
      expect(got.title).toMatch(want.title);
      if (want.routes) expect(got.routes).toEqual(want.routes);
      expect(got.explains).toBe(got.checks.length);
      expect(got.fix).toMatch(/\.$/);
      // In the console, after the verdict: the cause and its lines, before any other failure.
      expect(failureSection(o.output).join('\n')).toContain(`    ✘ ${got.title}: ${got.explains} check`);
    }
    // The causes explain the failures of the narrowed run, each once.
    expect(t!.explained).toBe(t!.causes.reduce((n, k) => n + k.explains, 0));
    expect(t!.explained).toBeGreaterThan(t!.failed / 2);
    expectAllureMatchesCertificate(o.reportsDir, o.certificate);
    expectNoSecret(o);
  });
}

test('the command prints the triage first in its failure section, as the in-process runs render it', async () => {
  const reference = await startReference({ fault: 'car-date-zulu' });
  try {
    const run = await runCommand(['conformance', '--grep', '@RESP-CONTRACT|@CORE-CAR-RECORD'], {
      target: reference.targetFile,
      timeoutMs: 300_000,
    });
    expect(run.code, run.output.slice(-3000)).toBe(1);
    const c = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'));
    const cause = c.triage!.causes[0];
    expect(cause.id).toBe('date-shape');
    const section = failureSection(run.output);
    expect(section[0]).toMatch(/^ {2}Failed: \d+ checks; likely causes first/);
    expect(section[1]).toBe(`    ✘ ${cause.title}: ${cause.explains} checks`);
    // Through the command (the certificate reporter), against a fault: the same Allure results.
    expect(c.counts.checks.failed).toBeGreaterThan(0);
    expectAllureMatchesCertificate(run.reportsDir, c);
  } finally {
    await reference.stop();
  }
});
