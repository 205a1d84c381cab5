// The Allure labels and links of one check's result (render-allure.ts writes one result per check), as
// Allure's conventions read them, so that its filters, trees and search find a check the way the
// certificate names it:
//   epic = conformance class, feature = route group, story = requirement id (the behaviours tree);
//   parentSuite / suite / subSuite = the same three (the suites tree); package = class.group;
//   severity = the requirement's (Allure's words); tag = the check's --grep tags without the @
//   (requirement id, class, route group, severity), plus "advisory" for an advisory requirement;
//   the suite's own labels beside them (conformanceClass, routeGroup, requirement, advisory, and
//   cause: the triage's likely cause of a failure, which the report's categories match on);
//   outcome = the check's outcome in the certificate's words (passed, failed, warning, not run, not
//   applicable; also a tag): Allure shows not run and not applicable alike as skipped, and a
//   certification fails on the first and never counts the second;
//   a link to the requirement's line in docs/REQUIREMENTS.md, named with its citation.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Label, Link } from 'allure-js-commons';
import type { Requirement } from '../catalogue/catalogue';
import { ROOT } from '../options/paths';
import type { Check, RequirementResult } from '../verdict/model';

/** Allure knows blocker, critical, normal, minor, trivial; the catalogue says critical, major, minor. */
const SEVERITY: Record<Requirement['severity'], string> = { critical: 'critical', major: 'normal', minor: 'minor' };

type RequirementFacts = Pick<RequirementResult, 'id' | 'class' | 'severity' | 'advisory' | 'cite'>;

/** The certificate's word for a check's outcome: the `outcome` label (an advisory requirement's failure only warns). */
function outcomeOf(check: Pick<Check, 'status'>, r: Pick<RequirementFacts, 'advisory'>): string {
  if (check.status === 'failed' && r.advisory) return 'warning';
  return { passed: 'passed', failed: 'failed', 'not-run': 'not run', 'not-applicable': 'not applicable' }[check.status];
}

/** The labels of a check's result; `cause` is the triage's category of its failure, if any. */
export function checkLabels(check: Pick<Check, 'group' | 'status'>, r: RequirementFacts, cause?: string): Label[] {
  const severity = SEVERITY[r.severity as Requirement['severity']] ?? 'normal';
  const outcome = outcomeOf(check, r);
  return [
    { name: 'epic', value: r.class },
    { name: 'feature', value: check.group },
    { name: 'story', value: r.id },
    { name: 'parentSuite', value: r.class },
    { name: 'suite', value: check.group },
    { name: 'subSuite', value: r.id },
    { name: 'package', value: `${r.class}.${check.group}` },
    { name: 'severity', value: severity },
    // The check's tags, as --grep matches them (src/catalogue/selection.ts), without the @.
    ...[r.id, r.class, check.group, r.severity, ...(r.advisory ? ['advisory'] : []), ...(check.status.startsWith('not-') ? [check.status] : [])].map(
      (value) => ({ name: 'tag', value }),
    ),
    { name: 'outcome', value: outcome },
    { name: 'conformanceClass', value: r.class },
    { name: 'routeGroup', value: check.group },
    { name: 'requirement', value: r.id },
    ...(r.advisory ? [{ name: 'advisory', value: 'true' }] : []),
    ...(cause ? [{ name: 'cause', value: cause }] : []),
  ];
}

/** The requirement's line in docs/REQUIREMENTS.md (its row in the table), named with its citation. */
export function requirementLink(r: Pick<RequirementResult, 'id' | 'cite'>): Link {
  const line = requirementLines().get(r.id);
  return {
    name: `${r.id}: ${r.cite} (docs/REQUIREMENTS.md${line ? ` line ${line}` : ''})`,
    url: `${pathToFileURL(REQUIREMENTS_MD).href}${line ? `#L${line}` : ''}`,
    type: 'requirement',
  };
}

const REQUIREMENTS_MD = path.join(ROOT, 'docs', 'REQUIREMENTS.md');
let lines: Map<string, number> | undefined;

/** Requirement id -> the line of its row in docs/REQUIREMENTS.md (`| ID | class | ...`), read once. */
function requirementLines(): Map<string, number> {
  if (lines) return lines;
  lines = new Map();
  const text = fs.existsSync(REQUIREMENTS_MD) ? fs.readFileSync(REQUIREMENTS_MD, 'utf8') : '';
  text.split('\n').forEach((l, i) => {
    const m = /^\| ([A-Z][A-Z0-9-]+) \| (core|profile) \|/.exec(l);
    if (m && !lines!.has(m[1])) lines!.set(m[1], i + 1);
  });
  return lines;
}
