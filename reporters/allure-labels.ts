// The Allure labels of a conformance check (set from the test body, define-suite.ts): the
// requirement id, its conformance class and route group, and its severity, also as Allure's
// behaviour hierarchy (epic = class, feature = route group, story = requirement) so the report
// groups checks the way the certificate does.
import type { Label } from 'allure-js-commons';
import type { Group, Requirement } from '../harness/catalogue';

/** Allure knows blocker, critical, normal, minor, trivial; the catalogue says critical, major, minor. */
const SEVERITY: Record<Requirement['severity'], string> = { critical: 'critical', major: 'normal', minor: 'minor' };

export function allureLabels(requirement: Pick<Requirement, 'id' | 'class' | 'severity'>, group: Group): Label[] {
  return [
    { name: 'requirement', value: requirement.id },
    { name: 'conformanceClass', value: requirement.class },
    { name: 'routeGroup', value: group },
    { name: 'severity', value: SEVERITY[requirement.severity] },
    { name: 'epic', value: requirement.class },
    { name: 'feature', value: group },
    { name: 'story', value: requirement.id },
  ];
}
