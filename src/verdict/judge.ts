// From the checks' records to the certificate: the run's one judgement, whoever ran the checks.
// The certificate reporter (certificate.ts) reads the records out of Playwright's tests; an in-process
// run of the project's own tests (src/engine/in-process.ts: the mutation gate, the precision
// runs) hands them over directly. Both then go through this function and the gate (gate.ts), so the
// verdict a user reads and the verdict the project's own tests prove are one computation.
//   - each requirement of the catalogue, applicable or not to the target's environment;
//   - every planned check: its result, or not run (the run stopped first, or it was not selected);
//   - the certificate (verdict.ts), the counts of throttled and reconnected requests, the triage.
import type { Catalogue } from '../catalogue/catalogue';
import { notApplicableReason, planChecks } from '../catalogue/catalogue';
import { selectChecks, type Selection } from '../catalogue/selection';
import type { CheckRecord } from './check-record';
import type { Certificate, CheckResult, TargetInfo, Triage } from './model';

import { triage } from './triage';
import { buildCertificate, NEVER_STARTED, NOT_SELECTED, type PlannedKey, type RequirementInfo } from './verdict';

export interface JudgeInput {
  catalogue: Catalogue;
  suite: { name: string; version: string };
  target: TargetInfo;
  /** The environment requirements are judged applicable for (the target's); undefined: every requirement applies. */
  environment?: string;
  run: { date: string; durationMs: number; monitor: boolean; errors: string[]; warnings: string[] };
  /** The checks' results (CheckRecord reduced by resultOf). */
  results: CheckResult[];
  /** The same checks' records, with their exchanges: the triage and the request counts read them. */
  records: CheckRecord[];
  /** The route groups the run (or shard) had a test for: a selected check of theirs without a result did not get to run. */
  groupsRun: ReadonlySet<string>;
  selection: Selection;
  /** The run stopped after this many failing checks (--max-failures, -x). */
  maxFailuresReached?: number;
  /** A certification: anything not run (but what the environment rules out) is a FAIL. */
  certify?: boolean;
}

export interface Judged {
  certificate: Certificate;
  requirements: RequirementInfo[];
  planned: PlannedKey[];
  /** The results, plus a not-run result for each selected check that got none. */
  results: CheckResult[];
  missingReason: string;
}

export function judgeRun(input: JudgeInput): Judged {
  const { catalogue, target, environment } = input;
  const errors = [...input.run.errors];
  const requirements: RequirementInfo[] = catalogue.requirements.map((r) => ({
    id: r.id,
    class: r.class,
    title: r.title,
    cite: r.cite,
    routes: r.routes,
    severity: r.severity,
    advisory: r.advisory,
    // A requirement of another environment (sandbox-only on a cloud target) is not this target's.
    applicable: !environment || r.env.includes(environment as 'cloud' | 'sandbox'),
  }));
  const plannedChecks = planChecks(catalogue);
  const planned: PlannedKey[] = plannedChecks.map((p) => ({ requirement: p.requirement.id, key: p.key, group: p.group }));
  const results = [...input.results];
  const stopped = errors.length
    ? `the run stopped before this check ran: ${errors[0].split('\n')[0]}`
    : input.maxFailuresReached !== undefined
      ? `the run stopped after ${input.maxFailuresReached} failing check(s) (--max-failures) before this check ran`
      : undefined;
  // Every planned check without a result: of another environment (a sandbox-only requirement on a cloud
  // target), not applicable, as it would be had it run; selected in a route group this run (or shard) has
  // a test for, not run: the run stopped first (--max-failures, a crash, an interruption). Any other
  // planned check was not selected (missingReason).
  const have = new Set(results.map((r) => r.key));
  const selected = new Set(selectChecks(plannedChecks, input.selection).map((p) => p.key));
  for (const p of plannedChecks) {
    if (have.has(p.key)) continue;
    const missing = { key: p.key, requirement: p.requirement.id, group: p.group, warnings: [], latencies: [] };
    if (environment && !p.requirement.env.includes(environment as 'cloud' | 'sandbox')) {
      results.push({ ...missing, status: 'not-applicable', reason: notApplicableReason(p.requirement, environment) });
    } else if (selected.has(p.key) && input.groupsRun.has(p.group)) {
      results.push({ ...missing, status: 'not-run', reason: stopped ?? NEVER_STARTED });
    }
  }
  const missingReason = NOT_SELECTED;
  const certificate = buildCertificate({
    suite: input.suite,
    target,
    run: { ...input.run, errors },
    requirements,
    planned,
    results,
    missingReason,
    notRunFails: input.certify,
  });
  const exchanges = input.records.flatMap((r) => r.exchanges ?? []);
  const throttled = exchanges.reduce((n, e) => n + (e.throttled ?? 0), 0);
  if (throttled) certificate.run.throttledRequests = throttled;
  const reconnected = exchanges.reduce((n, e) => n + (e.reconnected ?? 0), 0);
  if (reconnected) certificate.run.reconnectedRequests = reconnected;
  const triaged = triageOf(input.records, catalogue, certificate);
  if (triaged) certificate.triage = triaged;
  return { certificate, requirements, planned, results, missingReason };
}

/**
 * The failures by likely cause (triage.ts), from the records of the requirements the certificate
 * counts. It only regroups failures: should it break, the run keeps its verdict and says so.
 */
function triageOf(records: CheckRecord[], catalogue: Catalogue, certificate: Certificate): Triage | undefined {
  const known = new Set(certificate.requirements.map((r) => r.id));
  try {
    return triage(
      records.filter((r) => known.has(r.requirement)),
      {
        routes: catalogue.routes,
        statements: Object.fromEntries(catalogue.requirements.map((r) => [r.id, r.statements])),
        env: certificate.target.env,
        baseUrl: certificate.target.baseUrl,
      },
    );
  } catch (err) {
    certificate.run.warnings.push(`the triage of the failures could not be made (a defect of the suite): ${(err as Error).message}`);
    return undefined;
  }
}
