// Which checks a run executes. Playwright's own --grep sees only the tests (one per route group, see
// src/engine/define-suite.ts), so the checks inside them are selected here, from the same
// patterns: `npm run conformance -- --grep X` hands them over as VDS_GREP / VDS_GREP_INVERT, and a
// plain `playwright test --grep @TAG` reaches them through playwright.config.ts.
// A pattern is matched, as Playwright matches a test, against the check's title and tags:
//   "CORE-ERROR-BODY GET /users/me @CORE-ERROR-BODY @core @users @critical"
import { runOptions } from '../options/options';
import { loadCatalogue, planChecks, provokedStatuses, type PlannedCheck } from './catalogue';

export { keysPattern, requirementsPattern, SELECTION_ENV, selectionEnvFromArgv } from './patterns';

export interface Selection {
  grep?: RegExp;
  grepInvert?: RegExp;
}

/** The tags of a check: its requirement id, class, route group and severity. */
function checkTags(p: PlannedCheck): string[] {
  return [`@${p.requirement.id}`, `@${p.requirement.class}`, `@${p.group}`, `@${p.requirement.severity}`];
}

/** What a --grep pattern is matched against. */
function selectionText(p: PlannedCheck): string {
  return `${p.key} ${checkTags(p).join(' ')}`;
}

export class SelectionError extends Error {}

function pattern(flag: string, source: string | undefined): RegExp | undefined {
  if (!source) return undefined;
  try {
    return new RegExp(source);
  } catch (err) {
    throw new SelectionError(`${flag}: not a regular expression: ${(err as Error).message}`);
  }
}

export function selectionFromEnv(env: NodeJS.ProcessEnv = process.env): Selection {
  return {
    grep: pattern('--grep', runOptions(env).grep),
    grepInvert: pattern('--grep-invert', runOptions(env).grepInvert),
  };
}

function isSelected(p: PlannedCheck, s: Selection): boolean {
  const text = selectionText(p);
  if (s.grep && !s.grep.test(text)) return false;
  if (s.grepInvert && s.grepInvert.test(text)) return false;
  return true;
}

export function selectChecks(planned: PlannedCheck[], s: Selection = selectionFromEnv()): PlannedCheck[] {
  return planned.filter((p) => isSelected(p, s));
}

/** The run's checks: the catalogue's, as the run's selection (--grep, --grep-invert) narrows them. */
export function selectedChecks(env: NodeJS.ProcessEnv = process.env): PlannedCheck[] {
  return selectChecks(planChecks(loadCatalogue()), selectionFromEnv(env));
}

/** The routes a check judges: its route, or a once-check's routes. */
const judgedRoutes = (p: PlannedCheck) => (p.route ? [p.route.route] : p.requirement.routes);

/** A check that only reads: every route it sends to is a GET. */
const onlyReads = (p: PlannedCheck) => [...judgedRoutes(p), ...p.requirement.reads].every((r) => r.startsWith('GET '));

/**
 * The checks that feed what a selected check judges, though the selection leaves them out. A
 * requirement that judges every error its group receives on a route (CORE-ERROR-BODY) judges the
 * errors the catalogue documents there (the statuses the requirements provoke on it): when the
 * checks that provoke them are not selected (the core checks alone, a --grep), those that only read
 * run all the same, as feeders, so their error answers are judged; their own outcomes are not
 * reported (not selected). A check that writes is never run unasked: on a server that wrongly
 * accepts its request it changes what the selected checks meet (the errors only writes provoke are
 * then reported not judged: responses.ts errorBody). The feeders and the selected checks together,
 * in the catalogue's order.
 */
export function withFeeders(planned: PlannedCheck[], selected: PlannedCheck[]): { checks: PlannedCheck[]; feeders: Set<PlannedCheck> } {
  const judged = new Set(selected.filter((p) => p.requirement.judgesErrorsSeen).flatMap(judgedRoutes));
  const chosen = new Set(selected);
  const feeders = new Set(
    planned.filter(
      (p) =>
        !chosen.has(p) &&
        !p.requirement.advisory &&
        !p.requirement.judgesErrorsSeen &&
        onlyReads(p) &&
        provokedStatuses(p.requirement).length > 0 &&
        judgedRoutes(p).some((r) => judged.has(r)),
    ),
  );
  return { checks: feeders.size ? planned.filter((p) => chosen.has(p) || feeders.has(p)) : selected, feeders };
}
