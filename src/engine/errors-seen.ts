// The error answers a route group's checks receive, kept for the requirement that judges every error
// of the run against the spec's error body (CORE-ERROR-BODY, `judges: errors-seen` in
// requirements.yaml). The spec states the body of every error of a non-legacy route; a 409, a 416 or a
// 400 of a kind only a profile check provokes is still an error of the route, and the request was
// sent anyway: judging it again costs nothing and sends nothing. The checks that judge errors seen run
// after the group's other checks (schedule.ts), whoever runs the group (define-suite.ts, in-process.ts).
//
// Kept: 4xx answers (not 429: the operator's rate limit, docs/targets.md, "rateLimit") of the protected API
// routes, received by checks of non-advisory requirements. Left out: answers to HEAD (no content), advisory checks (hostile input
// that a gateway in front may refuse in its own words: neither document speaks of it), the two auth
// routes (the token endpoint's refusals are legacy, the sign-in page's are HTML: v3-profile.md).
import type { ApiResponse } from '../transport/api';
import type { Catalogue, PlannedCheck } from '../catalogue/catalogue';
import type { SeenError } from '../check-api/check-context';

export class ErrorsSeen {
  private readonly byRoute = new Map<string, SeenError[]>();
  private readonly judgedRoutes: Set<string>;

  constructor(catalogue: Catalogue) {
    this.judgedRoutes = new Set(catalogue.routes.filter((r) => !r.public && r.scopes.length > 0).map((r) => r.route));
  }

  /** The requirements whose checks ran in the group (whatever their outcome). */
  private readonly ranRequirements = new Set<string>();

  /** Keeps a finished check's error answers, when its requirement feeds the judgement. */
  add(p: PlannedCheck, answers: readonly ApiResponse[]): void {
    if (p.requirement.advisory || p.requirement.judgesErrorsSeen) return;
    this.ranRequirements.add(p.requirement.id);
    for (const res of answers) {
      const route = res.exchange.route;
      // A HEAD answer has no content (RFC 9110 § 9.3.2): its error has no body to judge.
      if (!route || !this.judgedRoutes.has(route) || res.status === 429 || res.exchange.method === 'HEAD') continue;
      let list = this.byRoute.get(route);
      if (!list) this.byRoute.set(route, (list = []));
      list.push({ by: p.key, res });
    }
  }

  on(route: string): SeenError[] {
    return this.byRoute.get(route) ?? [];
  }

  /** A check of this requirement ran in the group (it may have provoked errors the judgement sees). */
  ran(requirementId: string): boolean {
    return this.ranRequirements.has(requirementId);
  }
}
