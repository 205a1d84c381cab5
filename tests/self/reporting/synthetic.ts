// Synthetic catalogues and check results for the reporting unit tests: small, readable, and
// independent of contracts/ (a change to the real catalogue must not change these tests).
import type { CheckResult, CheckStatus } from '../../../src/verdict/model';
import { buildCertificate, type PlannedKey, type RequirementInfo } from '../../../src/verdict/verdict';

export function requirement(id: string, over: Partial<RequirementInfo> = {}): RequirementInfo {
  return {
    id,
    class: 'core',
    title: `${id} title`,
    cite: `vehicle-data-service-v3.md § ${id}`,
    routes: ['GET /cars/{carId}'],
    severity: 'major',
    advisory: false,
    applicable: true,
    ...over,
  };
}

export function planned(req: string, route: string, group = 'cars'): PlannedKey {
  return { requirement: req, key: `${req} ${route}`, group };
}

export function check(req: string, route: string, status: CheckStatus, over: Partial<CheckResult> = {}): CheckResult {
  return {
    key: `${req} ${route}`,
    requirement: req,
    group: 'cars',
    status,
    warnings: [],
    latencies: [],
    ...(status === 'failed' ? { failure: { check: `${req} ${route}`, expected: 'status 404', actual: 'status 500' } } : {}),
    ...(status === 'not-run' ? { reason: 'needs the token withoutScope.cars_read: set tokens.withoutScope.cars_read' } : {}),
    ...over,
  };
}

/** A certificate from requirements and results; every result's key is planned. `notRunFails`: a certification's verdicts. */
export function certificate(requirements: RequirementInfo[], results: CheckResult[], extraPlanned: PlannedKey[] = [], notRunFails = false) {
  return buildCertificate({
    suite: { name: 'vds-conformance', version: '9.9.9' },
    target: { name: 'synthetic', baseUrl: 'http://127.0.0.1:1/v3', env: 'cloud', allowWrites: false, source: 'synthetic.yaml' },
    run: { date: '2026-01-01T00:00:00.000Z', durationMs: 1234, monitor: false, errors: [], warnings: [] },
    requirements,
    planned: [...results.map((r) => ({ requirement: r.requirement, key: r.key, group: r.group })), ...extraPlanned],
    results,
    notRunFails,
  });
}
