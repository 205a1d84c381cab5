// The catalogue is the single source of truth: it must be consistent with the routes, the
// contracts and the check procedures, and every route must be covered.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import os from 'node:os';
import { loadCatalogue, planChecks } from '../../../src/catalogue/catalogue';
import { coverageOf } from '../../../src/catalogue/coverage';
import { contractNames } from '../../../src/schemas/validate';
import { CHECKS } from '../../../src/checks';
import { readChangelog, renderRequirements } from '../../../scripts/requirements-doc';
import { readCheckKills, readKills } from '../../../scripts/kill-matrix';
import { faultSpecs } from '../../../reference-server/fault-specs';
import { FAULTS } from '../../../reference-server/faults';

const catalogue = loadCatalogue();
const CONTRACTS = path.resolve(__dirname, '../../../contracts');

test('25 routes: the 23 API routes and the two auth routes', () => {
  expect(catalogue.routes).toHaveLength(25);
  expect(catalogue.routes.filter((r) => r.public).map((r) => r.route)).toEqual(['GET /auth/auth', 'POST /auth/access_token']);
});

test('every requirement uses a check procedure that exists', () => {
  const unknown = catalogue.requirements.filter((r) => !CHECKS[r.check]).map((r) => `${r.id}: ${r.check}`);
  expect(unknown).toEqual([]);
});

test('every check procedure is used by some requirement', () => {
  const used = new Set(catalogue.requirements.map((r) => r.check));
  expect(Object.keys(CHECKS).filter((c) => !used.has(c))).toEqual([]);
});

test('every contract a route or requirement names exists in contracts/schemas', () => {
  const names = new Set(contractNames());
  const named = [...catalogue.routes.map((r) => r.success.contract), ...catalogue.requirements.map((r) => r.params.contract as string | undefined)]
    .filter((c): c is string => Boolean(c))
    .map((c) => c.replace(/\[\]$/, ''));
  expect(named.filter((c) => !names.has(c))).toEqual([]);
});

test('every route is covered by at least three requirements', () => {
  for (const route of catalogue.routes) {
    const covering = catalogue.requirements.filter((r) => r.routes.includes(route.route));
    expect(covering.length, route.route).toBeGreaterThanOrEqual(3);
  }
});

test('every requirement cites one of the two documents and has a class', () => {
  for (const r of catalogue.requirements) {
    expect(r.cite, r.id).toMatch(/(vehicle-data-service-v3|v3-profile)\.md §/);
    expect(['core', 'profile']).toContain(r.class);
  }
});

test('core requirements cite the spec', () => {
  for (const r of catalogue.requirements.filter((x) => x.class === 'core')) {
    expect(r.cite, r.id).toContain('vehicle-data-service-v3.md');
  }
});

test('check keys are unique (they key baselines and certificates)', () => {
  const keys = planChecks(catalogue).map((p) => p.key);
  expect(new Set(keys).size).toBe(keys.length);
});

test('every scope of a route is one of the eight documented scopes', () => {
  for (const route of catalogue.routes) for (const s of route.scopes) expect(catalogue.scopes).toContain(s);
  expect(catalogue.scopes).toHaveLength(8);
});

test('error cases state a documented status, and a type (or types) from the spec', () => {
  for (const r of catalogue.requirements.filter((x) => x.check === 'error-case')) {
    const expectation = r.params.expect as { status: unknown; type?: string | string[] };
    expect(expectation, r.id).toBeTruthy();
    const types = Array.isArray(expectation.type) ? expectation.type : [expectation.type];
    for (const type of types) expect(['AUTHENTICATION_ERROR', 'AUTHORIZATION_ERROR', 'PARAMETERS_ERROR'], r.id).toContain(type);
  }
});

// The traceability of contracts/statements.yaml: core is the spec, all of it, on every unit it speaks of.
const unitLabel = (u: { route: string; scope?: string; status?: number }) => `${u.route}${u.scope ? ` [${u.scope}]` : ''}${u.status ? ` ${u.status}` : ''}`;

for (const source of ['spec', 'profile'] as const) {
  const cls = source === 'spec' ? 'core' : 'profile';
  test(`every statement of the ${source} is tested by ${cls} checks on every unit it speaks of (route, scope, error status), or says why it cannot be`, () => {
    const untraced = catalogue.statements
      .filter((st) => st.source === source && !st.untestable)
      .flatMap((st) => {
        const { requirements, units, uncovered } = coverageOf(catalogue, st);
        if (requirements.length === 0) return [`${st.id}: no ${cls} requirement names it`];
        if (units.length === 0) return [`${st.id}: speaks of no unit (about.where selects no route)`];
        return uncovered.map((u) => `${st.id}: no ${cls} check covers ${unitLabel(u)}`);
      });
    expect(untraced).toEqual([]);
  });
}

test('every check that covers a unit of a statement has been seen to fail against a reference fault (tests/self/power/fault-kills.yaml, checks)', () => {
  const caught = new Set(Object.values(readCheckKills() ?? {}).flat());
  const never = new Set<string>();
  for (const st of catalogue.statements.filter((x) => !x.untestable)) {
    for (const unit of coverageOf(catalogue, st).units) for (const key of unit.checks) if (!caught.has(key)) never.add(key);
  }
  expect(
    [...never],
    'covering checks no fault has made fail: add a fault, then `npx tsx scripts/mutation.ts --top-up --by-check --write-kills` (docs/CONTRIBUTING.md)',
  ).toEqual([]);
});

test('a unit is covered only by a check that judges its route: a route a check only reads, or another class, never covers', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-coverage-'));
  // The query parameters name the requirement that judges their refusal: one of this small catalogue's.
  fs.writeFileSync(
    path.join(dir, 'routes.yaml'),
    fs.readFileSync(path.join(CONTRACTS, 'routes.yaml'), 'utf8').replace(/judgedBy: [A-Z-]+/g, 'judgedBy: X-LIMIT'),
  );
  fs.cpSync(path.join(CONTRACTS, 'schemas'), path.join(dir, 'schemas'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'statements.yaml'),
    [
      'spec:',
      '  - { id: S-A, section: s, text: t, about: { where: { routes: ["GET /users/me", "GET /users/me/cars"] } } }',
      '  - { id: S-B, section: s, text: t, about: { where: { routes: ["GET /cars/{carId}/trips"] }, per: scope } }',
      '  - { id: S-C, section: s, text: t, about: { where: { routes: ["GET /cars/{carId}/locations"] }, per: error } }',
      'profile:',
      '  - { id: P-A, section: s, text: t, about: { where: { routes: ["GET /users/me"] } } }',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'requirements.yaml'),
    [
      'requirements:',
      '  - { id: X-ONCE, class: core, title: t, cite: c, statements: [S-A, S-B, S-C, P-A], check: core-me, per: once, group: users, where: { routes: ["GET /users/me"] }, reads: ["GET /users/me/cars", "GET /cars/{carId}/trips"] }',
      '  - { id: X-PROFILE, class: profile, title: t, cite: c, statements: [P-A], check: error-case, where: { routes: ["GET /users/me/cars"] }, expect: { status: 401 } }',
      '  - { id: X-LIMIT, class: profile, title: t, cite: c, statements: [P-A], check: error-case, where: { routes: ["GET /cars/{carId}/locations"] }, expect: { status: 400 } }',
    ].join('\n'),
  );
  const c = loadCatalogue(dir);
  const cov = (id: string) =>
    coverageOf(
      c,
      c.statements.find((s) => s.id === id)!,
    );
  expect(cov('S-A').uncovered.map(unitLabel)).toEqual(['GET /users/me/cars']);
  expect(cov('S-B').uncovered.map(unitLabel)).toEqual(['GET /cars/{carId}/trips [trips_read]']);
  expect(cov('S-C').units.map(unitLabel)).toEqual(['GET /cars/{carId}/locations 400']);
  expect(cov('S-C').uncovered.map(unitLabel)).toEqual(['GET /cars/{carId}/locations 400']);
  expect(cov('P-A').uncovered.map(unitLabel)).toEqual(['GET /users/me']); // named by a core requirement only
});

test("a statement says why it cannot be tested in words, and the spec's Purpose column is quoted for every route", () => {
  for (const st of catalogue.statements.filter((x) => x.untestable)) expect(st.untestable!.length, st.id).toBeGreaterThan(20);
  for (const route of catalogue.routes) expect(route.purpose, route.route).toMatch(/\.$/);
});

test('the catalogue refuses a requirement that names no statement, an unknown one, or one of the wrong document, or a lane off the devices', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-catalogue-'));
  for (const f of ['routes.yaml', 'statements.yaml']) fs.copyFileSync(path.join(CONTRACTS, f), path.join(dir, f));
  fs.cpSync(path.join(CONTRACTS, 'schemas'), path.join(dir, 'schemas'), { recursive: true });
  const write = (entry: string) => fs.writeFileSync(path.join(dir, 'requirements.yaml'), `requirements:\n${entry}`);
  const entry = (cls: string, statements: string) =>
    `  - { id: X-Y, class: ${cls}, title: t, cite: c, check: error-case, where: { routes: ["GET /users/me"] }${statements} }\n`;
  write(entry('core', ''));
  expect(() => loadCatalogue(dir)).toThrow(/missing "statements"/);
  write(entry('core', ', statements: [S-NO-SUCH]'));
  expect(() => loadCatalogue(dir)).toThrow(/unknown statement S-NO-SUCH/);
  write(entry('core', ', statements: [P-ERR-AUTH-MISSING]'));
  expect(() => loadCatalogue(dir)).toThrow(/at least one statement of the spec/);
  write(entry('profile', ', statements: [S-AUTH-BEARER]'));
  expect(() => loadCatalogue(dir)).toThrow(/never of the spec/);
  write(entry('core', ', statements: [S-THIRD-VERSION]'));
  expect(() => loadCatalogue(dir)).toThrow(/untestable/);
  // The devices' second write lane (setup/device-pair.ts) is for a device check made once.
  write(entry('core', ', statements: [S-AUTH-BEARER], lane: second'));
  expect(() => loadCatalogue(dir)).toThrow(/"lane" can only be second or lockable-device, on a device check made once/);
});

test('the catalogue refuses a decision of the suite that does not exist, or on a core requirement (the spec alone decides core), and renders each with its requirements', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-catalogue-decisions-'));
  fs.copyFileSync(path.join(CONTRACTS, 'statements.yaml'), path.join(dir, 'statements.yaml'));
  // The query parameters name the requirement that judges their refusal: this small catalogue's one.
  fs.writeFileSync(path.join(dir, 'routes.yaml'), fs.readFileSync(path.join(CONTRACTS, 'routes.yaml'), 'utf8').replace(/judgedBy: [A-Z-]+/g, 'judgedBy: X-Y'));
  fs.cpSync(path.join(CONTRACTS, 'schemas'), path.join(dir, 'schemas'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'decisions.yaml'), 'decisions:\n  - { id: D-THING, point: p, documents: d, decision: x }\n');
  const write = (cls: string, statement: string, decision: string) =>
    fs.writeFileSync(
      path.join(dir, 'requirements.yaml'),
      `requirements:\n  - { id: X-Y, class: ${cls}, title: t, cite: c, check: error-case, statements: [${statement}], decisions: [${decision}], where: { routes: ["GET /users/me"] } }\n`,
    );
  write('profile', 'P-ERR-AUTH-MISSING', 'D-NO-SUCH');
  expect(() => loadCatalogue(dir)).toThrow(/unknown decision D-NO-SUCH/);
  write('core', 'S-AUTH-BEARER', 'D-THING');
  expect(() => loadCatalogue(dir)).toThrow(/a core requirement rests on the spec alone/);
  write('profile', 'P-ERR-AUTH-MISSING', 'D-THING');
  expect(loadCatalogue(dir).requirements[0].decisions).toEqual(['D-THING']);
  fs.writeFileSync(path.join(dir, 'decisions.yaml'), 'decisions:\n  - { id: THING, point: p, documents: d, decision: x }\n');
  expect(() => loadCatalogue(dir)).toThrow(/a decision's id looks like D-THING/);
  // Every decision of the suite is rendered (docs/REQUIREMENTS.md is what the catalogue renders: the test below).
  const doc = fs.readFileSync(path.resolve(__dirname, '../../../docs/REQUIREMENTS.md'), 'utf8');
  for (const d of catalogue.decisions) expect(doc).toContain(`| ${d.id} | ${d.point} |`);
});

test('the catalogue refuses a misspelt or mistyped parameter of a check, naming the requirement and the key (contracts/requirements.schema.yaml)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-catalogue-schema-'));
  fs.cpSync(CONTRACTS, dir, { recursive: true });
  const file = path.join(dir, 'requirements.yaml');
  const original = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(
    file,
    original.replace(
      '    request: { id: unknown }\n    expect: { status: 404, type: PARAMETERS_ERROR, message: User not found }',
      '    request: { id: unknown }\n    expecct: { status: 404, type: PARAMETERS_ERROR, message: User not found }',
    ),
  );
  expect(() => loadCatalogue(dir)).toThrow(/CORE-USERS-CARS-NOT-FOUND: "expecct" is not a key of a requirement of check error-case/);
  fs.writeFileSync(file, original.replace('    days: 28', '    days: "28"'));
  expect(() => loadCatalogue(dir)).toThrow(/QUERY-RANGE-MONTH: days must be integer/);
  fs.writeFileSync(file, original);
  expect(loadCatalogue(dir).requirements.length).toBe(catalogue.requirements.length);
});

test('every reference fault breaks a statement of the documents that a check can test (reference-server/faults.ts breaks)', () => {
  const byId = new Map(catalogue.statements.map((st) => [st.id, st]));
  for (const f of FAULTS) {
    const st = byId.get(f.breaks);
    expect(st, `${f.name} breaks ${f.breaks}, which contracts/statements.yaml does not state`).toBeTruthy();
    expect(st!.untestable, `${f.name} breaks ${f.breaks}, marked untestable`).toBeUndefined();
  }
});

test('the changelog names requirements that exist, with a known kind of change', () => {
  for (const entry of readChangelog()) {
    for (const ch of entry.changes) {
      expect(['added', 'class', 'meaning', 'removed'], ch.id).toContain(ch.what);
      if (ch.what !== 'removed')
        expect(
          catalogue.requirements.map((r) => r.id),
          ch.id,
        ).toContain(ch.id);
    }
  }
});

test('docs/REQUIREMENTS.md is what the catalogue renders (run `npm run requirements` after a catalogue change)', () => {
  const committed = fs.readFileSync(path.resolve(__dirname, '../../../docs/REQUIREMENTS.md'), 'utf8');
  expect(committed === renderRequirements(), 'docs/REQUIREMENTS.md is stale: run `npm run requirements`').toBe(true);
});

test('the kill matrix names only faults, requirements and checks that exist (a rename leaves no stale entry)', () => {
  const faults = new Set(faultSpecs());
  const ids = new Set(catalogue.requirements.map((r) => r.id));
  const keys = new Set(planChecks(catalogue).map((p) => p.key));
  const stale: string[] = [];
  for (const [fault, reqs] of Object.entries(readKills() ?? {})) {
    if (!faults.has(fault)) stale.push(`fault ${fault}`);
    stale.push(...reqs.filter((id) => !ids.has(id)).map((id) => `requirement ${id} (${fault})`));
  }
  for (const [fault, checks] of Object.entries(readCheckKills() ?? {})) {
    if (!faults.has(fault)) stale.push(`fault ${fault}`);
    stale.push(...checks.filter((k) => !keys.has(k)).map((k) => `check ${k} (${fault})`));
  }
  expect(stale, 'tests/self/power/fault-kills.yaml: rerun the mutation runs that wrote it').toEqual([]);
});
