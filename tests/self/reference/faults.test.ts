// The fault registry: well formed, and every fault starts and breaks the behaviour it names
// (its probe holds on the correct server and fails with the fault).

import { expect, test } from '@playwright/test';
import { buildReferenceApp } from '../../../reference-server/app';
import { FAULT_FAMILIES, faultMode, FAULTS, Faults } from '../../../reference-server/faults';
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
});

test.describe('probes hold on the correct server', () => {
  for (const fault of FAULTS) {
    test(`baseline: ${fault.name}`, async () => {
      const probe = PROBES[fault.name];
      const h = await Harness.start({ mode: probe.mode ?? 'cloud' });
      try {
        expect(await probe.check(h)).toBe(true);
      } finally {
        await h.close();
      }
    });
  }
});

test.describe('each fault breaks the behaviour it names', () => {
  for (const fault of FAULTS) {
    test(`fault ${fault.name} (${fault.family})`, async () => {
      const probe = PROBES[fault.name];
      const h = await Harness.start({ mode: probe.mode ?? 'cloud', fault: fault.name });
      try {
        // The faulty server still starts and serves its sign-in page.
        const page = await h.get('/v3/auth/auth?client_id=vds-conformance');
        expect(page.status).toBe(200);
        expect(page.text).toContain('<form method="post"');
        expect(await probe.check(h)).toBe(false);
      } finally {
        await h.close();
      }
    });
  }
});
