// What a statement of the documents is covered by, unit by unit: the project's own tests fail on a
// unit no check of the statement's class covers (tests/self/harness/catalogue.test.ts), and the
// requirements document shows each statement's coverage (scripts/requirements-doc.ts). Read from the
// catalogue; a run never needs it.
import type { Scope } from './scopes';
import { errorStatusesOf, planChecks, provokedStatuses, selects, type Catalogue, type Requirement, type Statement } from './catalogue';

/** One unit a statement speaks of: a route, or a route and one of its scopes, or a route and an error status provoked there. */
export interface CoverageUnit {
  route: string;
  scope?: Scope;
  status?: number;
  /** The checks (keys) of the statement's own class that judge this unit and can fail on it. */
  checks: string[];
}

export interface Coverage {
  /** The requirements of the statement's own class that name it (core for the spec, profile for the profile). */
  requirements: Requirement[];
  units: CoverageUnit[];
  /** The units no check covers. */
  uncovered: CoverageUnit[];
}

/**
 * A statement's coverage, unit by unit (its `about`): a unit is covered by a check of a requirement of
 * the statement's own class (core for the spec, profile for the profile) that names the statement and
 * judges the unit's route (a route a once-check only reads never counts), per scope for a unit of a
 * scope, and for a unit of an error status, a check that provokes that status there or judges every
 * error its group receives there (CORE-ERROR-BODY). The error statuses of a route are those the
 * catalogue's non-advisory requirements provoke on it: the units follow the catalogue, never a list
 * typed twice.
 */
export function coverageOf(catalogue: Catalogue, st: Statement): Coverage {
  const cls = st.source === 'spec' ? 'core' : 'profile';
  // An advisory requirement only warns: its checks can fail nothing.
  const requirements = catalogue.requirements.filter((r) => r.statements.includes(st.id) && r.class === cls && !r.advisory);
  if (!st.about) return { requirements, units: [], uncovered: [] };
  const about = st.about;
  const planned = planChecks(catalogue).filter((p) => requirements.includes(p.requirement));
  const judging = (route: string) => planned.filter((p) => (p.route ? p.route.route === route : p.requirement.routes.includes(route)));
  const units: CoverageUnit[] = [];
  for (const route of catalogue.routes.filter((r) => selects(about.where, r))) {
    if (about.per === 'route') {
      units.push({ route: route.route, checks: judging(route.route).map((p) => p.key) });
    } else if (about.per === 'scope') {
      for (const scope of route.scopes) {
        units.push({
          route: route.route,
          scope,
          checks: judging(route.route)
            .filter((p) => p.scope === scope)
            .map((p) => p.key),
        });
      }
    } else {
      for (const status of errorStatusesOf(catalogue, route.route)) {
        const checks = judging(route.route).filter((p) => p.requirement.judgesErrorsSeen || provokedStatuses(p.requirement).includes(status));
        units.push({ route: route.route, status, checks: checks.map((p) => p.key) });
      }
    }
  }
  return { requirements, units, uncovered: units.filter((u) => u.checks.length === 0) };
}
