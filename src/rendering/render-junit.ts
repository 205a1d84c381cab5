// JUnit XML with one test case per check (a requirement on one route and scope), so a CI server lists
// and tracks each check by its stable key, as the certificate does. Playwright's own JUnit reporter
// would list its tests, which are route groups (src/engine/define-suite.ts).
//   <testsuite name="users">   one per route group
//   <testcase classname="profile.ERR-USER-NOT-FOUND" name="ERR-USER-NOT-FOUND GET /users/{userId}">
//   failed:  <failure message="expected ...; actual ..."> with the request, body excerpt and citation
//   not run: <skipped/>, the reason in system-out
// A check the run did not select (--grep, a shard, a file filter) has no test case: the verdict
// test case counts them.
// First, the run's verdict as a test case of its own (<testsuite name="verdict">): failed when the
// run's gate failed, its message the headline every report starts with. A CI dashboard that counts
// failed test cases then says what the exit status says: a certification that fails on checks not run
// (skipped, one by one) is not shown green.
import junit from 'junit-report-builder';
import { failureLines, headlineLine } from './format';
import { plural } from '../util/words';
import type { Check } from '../verdict/model';
import type { Certificate } from '../verdict/model';

/** The verdict's test case: its stable name (a dashboard follows it run after run). */
const VERDICT_CASE = "the run's verdict";

export function renderJunit(
  certificate: Pick<Certificate, 'requirements' | 'target'> & Partial<Pick<Certificate, 'gate' | 'headline'>>,
  checks: Check[],
  /** The checks the run did not select, left out of the test cases (verdict.ts reportedChecks). */
  notSelected = 0,
): string {
  const builder = junit.newBuilder().name(`VDS v3 conformance of ${certificate.target.name}`);
  const { gate } = certificate;
  if (gate) {
    const headline = headlineLine(certificate) ?? gate.status;
    const exit = `exit status ${gate.exitCode}: ${gate.status} (${gate.rule}): ${gate.reasons.join('; ')}`;
    const leftOut = notSelected ? `\n${plural(notSelected, 'check')} not selected in this run, not listed here (conformance.json lists them)` : '';
    const tc = builder.testSuite().name('verdict').testCase().className('verdict').name(VERDICT_CASE).standardOutput(`${headline}\n${exit}${leftOut}`);
    if (gate.status === 'failed') tc.failure(headline, 'Verdict');
  }
  const byId = new Map(certificate.requirements.map((r) => [r.id, r]));
  const groups = [...new Set(checks.map((c) => c.group))];
  for (const group of groups) {
    const suite = builder.testSuite().name(group);
    for (const c of checks.filter((x) => x.group === group)) {
      const r = byId.get(c.requirement);
      const tc = suite
        .testCase()
        .className(`${r?.class ?? 'unknown'}.${c.requirement}`)
        .name(c.key);
      if (c.durationMs !== undefined) tc.time(c.durationMs / 1000);
      if (r) tc.property('cite', r.cite).property('severity', r.severity);
      if (c.status === 'failed' && c.failure) {
        const f = c.failure;
        tc.failure(`expected: ${f.expected}; actual: ${f.actual}`, 'NonConformance');
        tc.stacktrace([`[${c.requirement}] ${r?.title ?? ''}`, `cite:     ${r?.cite ?? ''}`, ...failureLines(f)].join('\n'));
      } else if (c.status === 'not-run') {
        tc.skipped().standardOutput(`not run: ${c.reason ?? ''}`);
      } else if (c.status === 'not-applicable') {
        tc.skipped().standardOutput(`not applicable: ${c.reason ?? ''}`);
      }
      if (c.warnings.length) tc.standardError(c.warnings.map((w) => `warning: ${w}`).join('\n'));
    }
  }
  return builder.build();
}
