// Core alone is the spec exactly, both ways, also when only the core checks are selected (a run
// under `--gate core --grep @core`): the clean reference fails no core check (the errors only writes
// provoke are reported not judged: a check that writes never runs unasked); a fault of the spec whose
// evidence only a profile check provokes (a 416 body CORE-ERROR-BODY judges: the provoking checks
// that only read run as unreported feeders, selection.ts withFeeders), or that only a route core reads as a
// helper shows (the created cars missing from GET /users/me/cars), fails core; a fault of the profile
// that a core comparison used to carry (the car GeoJSON ignoring begin and end) never fails core.
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import { breaksTheSpec } from '../../../scripts/power-plan';
import { expect, test } from './fixtures';

const CASES: Array<{ fault: string | null; why: string }> = [
  { fault: null, why: 'the clean reference' },
  { fault: 'range-error-no-tip', why: 'a 416 without tip: only QUERY-RANGE-* provoke it' },
  { fault: 'conflict-error-object', why: 'a 409 body as an object: only the device checks provoke it' },
  { fault: 'me-cars-omit-created', why: 'GET /users/me/cars leaves out the cars created for the user' },
  { fault: 'geojson-range-default-only', why: 'a profile fault: the car GeoJSON always answers the default range' },
  { fault: 'geojson-range-ignored', why: 'a profile fault: the car GeoJSON answers the whole history' },
];

for (const { fault, why } of CASES) {
  test(`core alone: ${fault ?? 'clean'} (${why})`, async ({ reference, browserSession, browserChoice, catalogue }) => {
    test.setTimeout(180_000);
    const server = await reference('local');
    await server.setFault(fault);
    const run = await runInProcess({
      target: loadTarget(server.targetFile),
      catalogue,
      browser: browserSession,
      browserChoice,
      gate: 'core',
      selection: { grep: /@core/ },
    });
    // Only core checks are reported, whatever ran to feed them.
    expect(run.certificate.requirements.filter((r) => r.class !== 'core' && r.checks.passed + r.checks.failed > 0).map((r) => r.id)).toEqual([]);
    const coreFailed = run.certificate.requirements.filter((r) => r.class === 'core' && r.failures.length).map((r) => r.id);
    if (fault && breaksTheSpec(fault)) {
      expect(run.certificate.verdict.core, `${fault} breaks the spec: core must fail with the core checks alone`).toBe('FAIL');
      expect(run.exitCode).toBe(1);
    } else {
      expect(coreFailed, `${fault ?? 'clean'}: no core check may fail`).toEqual([]);
      expect(run.exitCode).toBe(0);
    }
  });
}
