// The fault registry: well formed, and every fault starts and breaks the behaviour it names
// (its probe holds on the correct server and fails with the fault).

import { expect, test } from '@playwright/test';
import { buildReferenceApp } from '../../../reference-server/app';
import { faultFamily, faultMode, faultSpecs, parseFaultSpec } from '../../../reference-server/fault-specs';
import { FAULT_FAMILIES, faultInfo, FAULTS, type FaultName } from '../../../reference-server/faults';
import type { RouteKey } from '../../../reference-server/route-keys';
import { Faults } from '../../../reference-server/switches';
import { PROBES } from './fault-probes';
import { Harness } from './helpers';

test.describe('fault registry', () => {
  test('has at least 64 distinct faults, at least 2 per family, one-line descriptions', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(64);
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    expect(new Set(FAULTS.map((f) => f.description)).size).toBe(FAULTS.length);
    for (const family of FAULT_FAMILIES) {
      expect(FAULTS.filter((f) => f.family === family).length, family).toBeGreaterThanOrEqual(2);
    }
    for (const f of FAULTS) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9A-Z]+)*$/);
      expect(f.description).not.toContain('\n');
      expect(f.description.length).toBeGreaterThan(10);
    }
  });

  test('every fault has exactly one probe, run in the mode the registry gives', () => {
    expect(Object.keys(PROBES).sort()).toEqual(FAULTS.map((f) => f.name).sort());
    for (const f of FAULTS) expect(PROBES[f.name].mode ?? 'cloud', f.name).toBe(faultMode(f.name));
  });

  test('an unknown fault is refused when building the app', async () => {
    await expect(buildReferenceApp({ mode: 'cloud', fault: 'no-such-fault' })).rejects.toThrow(/Unknown fault 'no-such-fault'/);
    expect(new Faults('none').active).toBeNull();
    expect(new Faults('').active).toBeNull();
  });

  test('a per-route fault is started on one of its routes, a plain fault on none', () => {
    const faults = new Faults('route-answers-500@GET /cars/:carId/status');
    expect(faults.on('route-answers-500', 'GET /cars/:carId/status')).toBe(true);
    expect(faults.on('route-answers-500', 'GET /cars/:carId')).toBe(false);
    expect(() => new Faults('route-answers-500')).toThrow(/start it as 'route-answers-500@<route>' with a route of GET \/users\/me,/);
    expect(() => new Faults('route-answers-500@POST /users/:userId/cars')).toThrow(/with a route of/);
    expect(() => new Faults('car-date-zulu@GET /users/me')).toThrow(/not per route: start it as 'car-date-zulu'/);
    expect(faultSpecs()).toContain('route-scope-unchecked@POST /devices/:deviceId/associate');
    expect(faultSpecs()).not.toContain('route-answers-500@POST /devices/:deviceId/associate');
    expect(faultSpecs({ firstRouteOnly: true }).filter((s) => s.startsWith('route-answers-500'))).toEqual(['route-answers-500@GET /users/me']);
  });
});

/** Each fault spec with its probe: per-route faults once per route. */
const SPECS = faultSpecs().map((spec) => {
  const { name, route } = parseFaultSpec(spec);
  // A fault that lives in a variant (faults.ts `variant`) is probed on a server with that variant, with and without the fault.
  return { spec, family: faultFamily(spec), probe: PROBES[name as FaultName], route: route as RouteKey, variant: faultInfo(name as FaultName).variant };
});

test.describe('probes hold on the correct server', () => {
  for (const { spec, probe, route, variant } of SPECS) {
    test(`baseline: ${spec}`, async () => {
      const h = await Harness.start({ mode: probe.mode ?? 'cloud', variant });
      try {
        expect(await probe.check(h, route)).toBe(true);
      } finally {
        await h.close();
      }
    });
  }
});

test.describe('each fault breaks the behaviour it names', () => {
  for (const { spec, family, probe, route, variant } of SPECS) {
    test(`fault ${spec} (${family})`, async () => {
      const h = await Harness.start({ mode: probe.mode ?? 'cloud', fault: spec, variant });
      try {
        // The faulty server still starts and serves its sign-in page (with its form, but for the fault that removes it;
        // a form sent with GET for the fault that makes it so).
        const page = await h.get('/v3/auth/auth?client_id=vds-conformance');
        expect(page.status).toBe(200);
        if (spec !== 'signin-page-no-form')
          expect(page.text).toMatch(spec === 'signin-form-get' ? /<form\b[^>]*\bmethod="get"/ : /<form\b[^>]*\bmethod="post"/);
        expect(await probe.check(h, route)).toBe(false);
      } finally {
        await h.close();
      }
    });
  }
});
