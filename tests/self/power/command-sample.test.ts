// The command's end-to-end sample (scripts/power-plan.ts commandSampleFaults) reaches, through the
// README's command, every route group (each a test file of tests/conformance, a Playwright test of its
// own), both classes, the browser's checks and the sandbox target: read off the checks each sampled
// fault's run selects first (the requirements that caught it before, on its route). A sample made
// smaller cannot leave a group's wiring without a proof end to end.
import { expect, test } from '@playwright/test';
import { loadCatalogue, planChecks } from '../../../src/catalogue/catalogue';
import { commandSampleFaults, faultGatePlan } from '../../../scripts/power-plan';
import { readKills } from '../../../scripts/kill-matrix';
import { parseFaultSpec } from '../../../reference-server/fault-specs';

test('the command sample reaches every route group, both classes and both targets', () => {
  const catalogue = loadCatalogue();
  const kills = readKills();
  expect(kills, 'tests/self/power/fault-kills.yaml').toBeDefined();
  const planned = planChecks(catalogue);
  const reached = { groups: new Set<string>(), classes: new Set<string>(), targets: new Set<string>() };
  for (const spec of commandSampleFaults()) {
    const plan = faultGatePlan(spec, catalogue, kills!);
    // A per-route fault is one route's handler: its checks on that route (a once-check names none).
    const route = parseFaultSpec(spec).route?.replace(/:(\w+)/g, '{$1}');
    const checks = planned.filter((p) => plan.first?.includes(p.requirement.id) && (!route || !p.route || p.route.route === route));
    expect(checks.length, `${spec}: the checks its run selects first`).toBeGreaterThan(0);
    for (const p of checks) {
      reached.groups.add(p.group);
      reached.classes.add(p.requirement.class);
    }
    reached.targets.add(plan.target);
  }
  expect([...reached.groups].sort()).toEqual([...new Set(planned.map((p) => p.group))].sort());
  expect([...reached.classes].sort()).toEqual([...new Set(catalogue.requirements.map((r) => r.class))].sort());
  expect([...reached.targets].sort()).toEqual(['local', 'local-sandbox']);
});
