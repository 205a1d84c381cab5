// The Allure labels of a conformance test (set from the test body, define-suite.ts). A test is one
// route group; its checks are its steps. The labels name the group and every requirement and class
// its checks belong to, also as Allure's behaviour hierarchy (epic = class, feature = route group,
// story = requirement), so the report groups tests the way the certificate does.
import type { Label } from 'allure-js-commons';
import type { Group, Requirement } from '../catalogue/catalogue';

/** Allure knows blocker, critical, normal, minor, trivial; the catalogue says critical, major, minor. */
const SEVERITY: Record<Requirement['severity'], string> = { critical: 'critical', major: 'normal', minor: 'minor' };
const BY_WEIGHT: Array<Requirement['severity']> = ['critical', 'major', 'minor'];

export function allureLabels(requirements: Array<Pick<Requirement, 'id' | 'class' | 'severity'>>, group: Group): Label[] {
  const unique = <T>(xs: T[]) => [...new Set(xs)];
  const classes = unique(requirements.map((r) => r.class));
  const severity = BY_WEIGHT.find((s) => requirements.some((r) => r.severity === s)) ?? 'major';
  return [
    { name: 'routeGroup', value: group },
    { name: 'feature', value: group },
    { name: 'severity', value: SEVERITY[severity] },
    ...classes.flatMap((c) => [
      { name: 'conformanceClass', value: c },
      { name: 'epic', value: c },
    ]),
    ...unique(requirements.map((r) => r.id)).flatMap((id) => [
      { name: 'requirement', value: id },
      { name: 'story', value: id },
    ]),
  ];
}
