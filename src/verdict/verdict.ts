// Pure aggregation: check results -> requirement statuses -> a verdict per conformance class.
//   requirement: failed if any of its checks failed, else not-run if any did not run (or it has no
//                check in this run), else passed;
//   class:       PASS when every requirement ran and passed, INCOMPLETE when none failed but some did
//                not run, FAIL otherwise. Advisory requirements, and those concerning another
//                environment than the target's, never count.
import { GROUPS, type ConformanceClass, type Group } from '../catalogue/catalogue';
import type { CheckState } from './baseline';
import { latencyByRoute } from './latency';
import {
  CERTIFICATE_FORMAT,
  type Certificate,
  type CheckResult,
  type CheckStatus,
  type ClassVerdict,
  type RequirementResult,
  type StatusCounts,
  type TargetInfo,
  CLASSES,
  type Check,
} from './model';

/** What the certificate needs to know of a requirement before any result: its result's static part. */
export type RequirementInfo = Pick<RequirementResult, 'id' | 'class' | 'title' | 'cite' | 'routes' | 'severity' | 'advisory' | 'applicable'>;

/** Whether a requirement counts in its class's verdict. */
export function counted(r: { advisory: boolean; applicable?: boolean }): boolean {
  return !r.advisory && r.applicable !== false;
}

/** A check the catalogue calls for (src/catalogue/catalogue.ts planChecks), whether or not it ran. */
export interface PlannedKey {
  requirement: string;
  key: string;
  group: string;
}

/** Why a selected check has no result, when nothing better is known. */
export const NEVER_STARTED = 'the run stopped before this check started';

export const NOT_SELECTED = 'not selected in this run (left out by --grep, --shard or a file filter): run the whole suite to include it';

/**
 * The checks a run's JUnit and Allure results list: every check it selected, whatever its outcome, and
 * not those a --grep, a shard or a file filter left out. As Playwright's own reporters and other
 * runners' JUnit do for tests a filter left out: a CI server that gathers every shard's junit.xml then
 * sees each check once, and a check's history in Allure holds the runs that ran it. The certificate
 * still lists them (its requirements' verdicts need them), and JUnit's verdict case counts them.
 */
export function reportedChecks(checks: Check[]): { checks: Check[]; notSelected: number } {
  const listed = checks.filter((c) => !(c.status === 'not-run' && c.reason === NOT_SELECTED));
  return { checks: listed, notSelected: checks.length - listed.length };
}

export interface CertificateInput {
  suite: { name: string; version: string };
  target: TargetInfo;
  run: Certificate['run'];
  requirements: RequirementInfo[];
  planned: PlannedKey[];
  results: CheckResult[];
  /** Why a planned check has no result; NOT_SELECTED unless the run stopped early. */
  missingReason?: string;
  /** A certification: anything not run (but what the environment rules out) is a FAIL. */
  notRunFails?: boolean;
}

export function buildCertificate(input: CertificateInput): Certificate {
  const { requirements, checks, unknown } = requirementResults(input.requirements, input.planned, input.results, input.missingReason);
  const warnings = [...input.run.warnings];
  if (unknown.length) warnings.push(`results of checks for requirements the catalogue does not know were ignored: ${unknown.join(', ')}`);
  return {
    format: CERTIFICATE_FORMAT,
    suite: input.suite,
    specVersion: 'v3',
    target: input.target,
    run: { ...input.run, warnings },
    verdict: verdicts(requirements, input.notRunFails),
    counts: {
      checks: {
        total: checks.length,
        ...countStatuses(checks.map((c) => c.status)),
        notRunBySuite: checks.filter((c) => c.status === 'not-run' && c.suiteBroke).length,
      },
      classes: classCounts(requirements),
      groups: groupCounts(requirements, checks),
    },
    requirements,
    latency: latencyByRoute(input.results.flatMap((r) => r.latencies)),
  };
}

/**
 * The status of a set of checks, by the requirement rule. Checks not applicable to the target do not
 * count; an empty set did not run; a set of only such checks is not applicable.
 */
export function combine(statuses: CheckStatus[]): CheckStatus {
  const applicable = statuses.filter((s) => s !== 'not-applicable');
  if (statuses.length > 0 && applicable.length === 0) return 'not-applicable';
  if (applicable.includes('failed')) return 'failed';
  if (applicable.length === 0 || applicable.includes('not-run')) return 'not-run';
  return 'passed';
}

/** notRunFails (a certification): a class with a requirement not run is FAIL, not INCOMPLETE. */
export function classVerdict(
  requirements: Array<Pick<RequirementResult, 'status' | 'advisory'> & { applicable?: boolean }>,
  notRunFails = false,
): ClassVerdict {
  const counting = requirements.filter(counted);
  if (counting.some((r) => r.status === 'failed')) return 'FAIL';
  if (counting.some((r) => r.status === 'not-run')) return notRunFails ? 'FAIL' : 'INCOMPLETE';
  return 'PASS';
}

function verdicts(requirements: RequirementResult[], notRunFails = false): Record<ConformanceClass, ClassVerdict> {
  return Object.fromEntries(
    CLASSES.map((c) => [
      c,
      classVerdict(
        requirements.filter((r) => r.class === c),
        notRunFails,
      ),
    ]),
  ) as Record<ConformanceClass, ClassVerdict>;
}

export type { Check };

/**
 * Every check of the run, in catalogue order: the results, plus a not-run entry for each planned
 * check that has none. Results of requirements the catalogue does not know are left out.
 */
export function resolveChecks(infos: RequirementInfo[], planned: PlannedKey[], results: CheckResult[], missingReason = NOT_SELECTED): Check[] {
  const known = new Set(infos.map((r) => r.id));
  const order = new Map(planned.map((p, i) => [p.key, i]));
  const byKey = new Map<string, Check>();
  for (const r of results) {
    if (!known.has(r.requirement)) continue;
    byKey.set(r.key, { ...r, order: order.get(r.key) ?? Number.MAX_SAFE_INTEGER });
  }
  for (const p of planned) {
    if (!byKey.has(p.key) && known.has(p.requirement)) {
      byKey.set(p.key, {
        key: p.key,
        requirement: p.requirement,
        group: p.group,
        status: 'not-run',
        reason: missingReason,
        warnings: [],
        latencies: [],
        order: order.get(p.key)!,
      });
    }
  }
  return [...byKey.values()].sort((a, b) => a.order - b.order || a.key.localeCompare(b.key));
}

/** The checks as baselines and gates judge them (with their requirement's class). */
export function checkStates(infos: RequirementInfo[], planned: PlannedKey[], results: CheckResult[], missingReason = NOT_SELECTED): CheckState[] {
  const byId = new Map(infos.map((r) => [r.id, r]));
  return resolveChecks(infos, planned, results, missingReason).map((c) => ({
    key: c.key,
    requirement: c.requirement,
    status: c.status,
    class: byId.get(c.requirement)!.class,
    advisory: byId.get(c.requirement)!.advisory,
  }));
}

function requirementResults(
  infos: RequirementInfo[],
  planned: PlannedKey[],
  results: CheckResult[],
  missingReason = NOT_SELECTED,
): { requirements: RequirementResult[]; checks: Check[]; unknown: string[] } {
  const known = new Set(infos.map((r) => r.id));
  const checks = resolveChecks(infos, planned, results, missingReason);
  const unknown = [...new Set(results.map((r) => r.requirement).filter((id) => !known.has(id)))].sort();
  const requirements = infos.map((info) =>
    requirementResult(
      info,
      checks.filter((c) => c.requirement === info.id),
      missingReason,
    ),
  );
  return { requirements, checks, unknown };
}

function requirementResult(info: RequirementInfo, checks: Check[], missingReason: string): RequirementResult {
  const groups: Partial<Record<Group, CheckStatus>> = {};
  for (const g of GROUPS) {
    const inGroup = checks.filter((c) => c.group === g);
    if (inGroup.length) groups[g] = combine(inGroup.map((c) => c.status));
  }
  const notRunChecks = checks.filter((c) => c.status === 'not-run');
  const notRun = grouped(notRunChecks.map((c): [string, string] => [c.reason ?? 'not run', c.key])).map(({ key, checks: keys }) => {
    // The input that stopped them (one reason: one input).
    const missing = notRunChecks.find((c) => c.reason === key && c.missing)?.missing;
    return { reason: key, checks: keys, ...(missing ? { missing } : {}) };
  });
  if (checks.length === 0) notRun.push({ reason: `no check of it ran: ${missingReason}`, checks: [] });
  const notApplicable = grouped(checks.filter((c) => c.status === 'not-applicable').map((c): [string, string] => [c.reason ?? 'not applicable', c.key])).map(
    ({ key, checks: keys }) => ({ reason: key, checks: keys }),
  );
  const status = combine(checks.map((c) => c.status));
  return {
    id: info.id,
    class: info.class,
    title: info.title,
    cite: info.cite,
    routes: info.routes,
    severity: info.severity,
    advisory: info.advisory,
    applicable: info.applicable !== false && status !== 'not-applicable',
    status,
    checks: { total: checks.length, ...countStatuses(checks.map((c) => c.status)) },
    groups,
    notRun,
    ...(notApplicable.length ? { notApplicable } : {}),
    warnings: grouped(checks.flatMap((c) => c.warnings.map((w): [string, string] => [w, c.key]))).map(({ key, checks: keys }) => ({
      message: key,
      checks: keys,
    })),
    failures: checks.flatMap((c) => (c.status === 'failed' && c.failure ? [c.failure] : [])),
  };
}

/** [text, check] pairs -> one entry per distinct text, with its checks, in first-seen order. */
function grouped(pairs: Array<[string, string]>): Array<{ key: string; checks: string[] }> {
  const map = new Map<string, string[]>();
  for (const [text, check] of pairs) {
    const list = map.get(text) ?? [];
    if (!list.includes(check)) list.push(check);
    map.set(text, list);
  }
  return [...map.entries()].map(([key, checks]) => ({ key, checks }));
}

function countStatuses(statuses: CheckStatus[]): StatusCounts {
  const notApplicable = statuses.filter((s) => s === 'not-applicable').length;
  return {
    passed: statuses.filter((s) => s === 'passed').length,
    failed: statuses.filter((s) => s === 'failed').length,
    notRun: statuses.filter((s) => s === 'not-run').length,
    ...(notApplicable ? { notApplicable } : {}),
  };
}

function classCounts(requirements: RequirementResult[]): Certificate['counts']['classes'] {
  return Object.fromEntries(
    CLASSES.map((c) => {
      const inClass = requirements.filter((r) => r.class === c);
      const counting = inClass.filter(counted);
      return [
        c,
        {
          requirements: counting.length,
          ...countStatuses(counting.map((r) => r.status)),
          advisory: inClass.filter((r) => r.advisory).length,
          notApplicable: inClass.filter((r) => !r.advisory && !r.applicable).length,
        },
      ];
    }),
  ) as Certificate['counts']['classes'];
}

function groupCounts(requirements: RequirementResult[], checks: Check[]): Certificate['counts']['groups'] {
  return Object.fromEntries(
    GROUPS.map((g) => [
      g,
      {
        requirements: countStatuses(requirements.filter(counted).flatMap((r) => (r.groups[g] ? [r.groups[g]!] : []))),
        checks: countStatuses(checks.filter((c) => c.group === g).map((c) => c.status)),
      },
    ]),
  ) as Certificate['counts']['groups'];
}
