// A run that selects some checks (--grep, a shard) counts what it left out as "not selected", and what
// the target's environment rules out as not applicable, selected or not: the last line's "not run"
// is then the number of checks the console lists as not selected, never those that could not apply.
import { expect, test } from '@playwright/test';
import { loadCatalogue, planChecks } from '../../../src/catalogue/catalogue';
import { keysPattern } from '../../../src/catalogue/selection';
import { countsLine } from '../../../src/rendering/format';
import { judgeRun } from '../../../src/verdict/judge';
import { NOT_SELECTED } from '../../../src/verdict/verdict';

const catalogue = loadCatalogue();
const planned = planChecks(catalogue);

/** A run of one check of this environment, which passed. */
function judgeOneCheck(env: 'cloud' | 'sandbox', p: (typeof planned)[number]) {
  return judgeRun({
    catalogue,
    suite: { name: 'vds-conformance', version: 'test' },
    target: { name: 't', baseUrl: 'http://t.test/v3', env, allowWrites: true, source: 't.yaml' },
    environment: env,
    run: { date: new Date(0).toISOString(), durationMs: 1, monitor: false, errors: [], warnings: [] },
    results: [{ key: p.key, requirement: p.requirement.id, group: p.group, status: 'passed', warnings: [], latencies: [] }],
    records: [],
    groupsRun: new Set([p.group]),
    selection: { grep: new RegExp(keysPattern([p.key])) },
  }).certificate;
}

for (const env of ['cloud', 'sandbox'] as const) {
  test(`one check selected on a ${env} target: the others are not selected, those of another environment not applicable`, () => {
    const one = planned.find((c) => c.requirement.env.includes(env))!;
    const certificate = judgeOneCheck(env, one);
    const otherEnv = planned.filter((p) => !p.requirement.env.includes(env));
    expect(otherEnv.length).toBeGreaterThan(0); // the catalogue has requirements of one environment only
    const notSelected = certificate.requirements.flatMap((r) => r.notRun.filter((n) => n.reason === NOT_SELECTED).flatMap((n) => n.checks));
    expect(notSelected).not.toContain(one.key);
    for (const p of otherEnv) expect(notSelected).not.toContain(p.key);
    expect(notSelected.length).toBe(planned.length - 1 - otherEnv.length);
    expect(certificate.counts.checks.notRun).toBe(notSelected.length);
    expect(countsLine(certificate)).toBe(`1 passed, 0 failed, ${notSelected.length} not run`);
    const ruledOut = certificate.requirements.filter((r) => otherEnv.some((p) => p.requirement.id === r.id));
    for (const r of ruledOut) expect({ id: r.id, status: r.status }).toEqual({ id: r.id, status: 'not-applicable' });
  });
}
