// Baselines of known failures, for CI gates. `--update-baseline` writes the run's failures to a YAML
// file; with `--baseline` a run fails only on failures that file does not list (regressions), and
// lists the entries that pass again so they can be removed. The certificate still shows every failure.
import fs from 'node:fs';
import YAML from 'yaml';
import type { ConformanceClass } from '../catalogue/catalogue';
import type { BaselineCheck, BaselineEvaluation, Certificate, CheckStatus } from './model';

export interface BaselineEntry {
  requirement: string;
  checks: string[];
  reason: string;
}

export class BaselineError extends Error {}

const LIST_KEY = 'known-failures';

export function readBaseline(file: string): BaselineEntry[] {
  if (!fs.existsSync(file)) throw new BaselineError(`baseline file not found: ${file}`);
  let doc: unknown;
  try {
    doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BaselineError(`baseline ${file} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const list = (doc as Record<string, unknown> | null)?.[LIST_KEY];
  if (!Array.isArray(list)) throw new BaselineError(`baseline ${file} must have a "${LIST_KEY}:" list (write one with --update-baseline)`);
  return list.map((e: unknown, i) => {
    const entry = e as Record<string, unknown> | null;
    const where = `baseline ${file}, entry ${i + 1}`;
    if (typeof entry?.requirement !== 'string') throw new BaselineError(`${where}: "requirement" must be a requirement id`);
    const checks = entry.checks;
    if (!Array.isArray(checks) || checks.length === 0 || !checks.every((c) => typeof c === 'string')) {
      throw new BaselineError(`${where} (${entry.requirement}): "checks" must list the failing check keys`);
    }
    return { requirement: entry.requirement, checks: checks as string[], reason: typeof entry.reason === 'string' ? entry.reason : '' };
  });
}

/** One check of the run, as baselines and gates judge it. */
export interface CheckState {
  key: string;
  requirement: string;
  class: ConformanceClass;
  advisory: boolean;
  status: CheckStatus;
}

export function evaluateBaseline(entries: BaselineEntry[], checks: CheckState[], path: string): BaselineEvaluation {
  const listed = new Map(entries.flatMap((e) => e.checks.map((c) => [c, e.requirement] as const)));
  const byKey = new Map(checks.map((c) => [c.key, c]));
  const failing = checks.filter((c) => c.status === 'failed' && !c.advisory);
  const asBaselineCheck = (c: CheckState): BaselineCheck => ({ requirement: c.requirement, class: c.class, check: c.key });
  const fixed: BaselineEvaluation['fixed'] = [];
  const unverified: BaselineCheck[] = [];
  for (const e of entries) {
    const passing = e.checks.filter((k) => byKey.get(k)?.status === 'passed');
    if (passing.length) fixed.push({ requirement: e.requirement, checks: passing, wholeEntry: passing.length === e.checks.length });
    for (const k of e.checks) {
      const now = byKey.get(k);
      if (!now || now.status === 'not-run' || now.status === 'not-applicable')
        unverified.push({ requirement: e.requirement, class: now?.class ?? 'unknown', check: k });
    }
  }
  return {
    path,
    regressions: failing.filter((c) => !listed.has(c.key)).map(asBaselineCheck),
    known: failing.filter((c) => listed.has(c.key)).map(asBaselineCheck),
    fixed,
    unverified,
  };
}

const REASON_TODO = 'fill in: why this failure is accepted, and until when';

/**
 * The baseline text for the run's failures. Reasons already written in `previous` (the file being
 * replaced) are kept for the requirements that still fail.
 */
export function renderBaseline(certificate: Certificate, previous: BaselineEntry[] = []): string {
  const reasons = new Map(previous.filter((e) => e.reason.trim()).map((e) => [e.requirement, e.reason]));
  const failing = certificate.requirements.filter((r) => !r.advisory && r.failures.length > 0);
  const q = (s: string) => JSON.stringify(s); // JSON strings are valid YAML scalars, whatever they hold
  const lines = [
    '# Known failures of the VDS v3 conformance suite.',
    '# A run with `--baseline <this file>` fails only on failures not listed here (regressions), and',
    '# lists the checks that pass again ("fixed: remove from the baseline"). Give every entry a reason.',
    `# Written by --update-baseline on ${certificate.run.date} from a run against ${certificate.target.name} (${certificate.target.baseUrl}).`,
    `${LIST_KEY}:${failing.length ? '' : ' []'}`,
  ];
  for (const r of failing) {
    lines.push(`  - requirement: ${r.id}`, `    class: ${r.class}`, `    title: ${q(r.title)}`, '    checks:');
    for (const f of r.failures) lines.push(`      - ${q(f.check)}`);
    const reason = reasons.get(r.id);
    lines.push(reason ? `    reason: ${q(reason)}` : `    reason: ""  # ${REASON_TODO}`);
  }
  return `${lines.join('\n')}\n`;
}

export function writeBaseline(file: string, certificate: Certificate): void {
  let previous: BaselineEntry[] = [];
  try {
    if (fs.existsSync(file)) previous = readBaseline(file);
  } catch {
    previous = []; // an unreadable old file is replaced, not merged
  }
  fs.writeFileSync(file, renderBaseline(certificate, previous));
}
