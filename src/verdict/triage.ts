// The triage: a run's failing checks regrouped by likely cause, so that a vendor whose server fails
// hundreds of checks for a few reasons sees the few reasons first. Pure: check records
// with their exchanges and the catalogue's route facts in, causes out. Each cause is found in the
// recorded answers (statuses, bodies, content types, the credential each request carried), never
// in a check's name; it only regroups what the checks found and never changes a verdict.
//
// A failing check is attributed to at most one cause, the first in RULES order that explains it, so
// the causes' counts add up. A cause is shown when it explains enough checks: MIN_CHECKS for a cause
// on a route of its own, and for a cause that speaks of "every route" also MIN_ROUTES routes (one
// route's oddity is the per-requirement list's business). Causes are ranked by checks explained.
// The rules read every check's exchanges; with VDS_ATTACH=failures (the mutation runner) only the
// failing checks keep theirs, and a rule sees less of each route.
import { requestLine, type Exchange } from '../transport/exchange';
import type { Group, Route } from '../catalogue/catalogue';
import { checkContract } from '../schemas/validate';
import type { CheckRecord } from './check-record';
import { plural, shortList } from '../util/words';
import type { Triage, TriageCause, TriageCauseId } from './model';
import {
  answered,
  bodyShape,
  contentTypeOf,
  decisiveExchange,
  isApiError,
  isJsonMediaType,
  isSuccess,
  isValidRequest,
  jsonBody,
  mediaTypeOf,
  missingScopes,
} from './triage-answers';
import { basePathFix } from './triage-base-url';
import { wrongDates } from './triage-dates';

/** A cause on its own route(s) (not implemented, no answer) is shown from this many checks. */
const MIN_CHECKS = 3;
/** A cause of the "every route" kind is shown from this many routes (and MIN_EVERY_CHECKS checks). */
const MIN_ROUTES = 2;
const MIN_EVERY_CHECKS = 2;

/** What the triage knows besides the records: the catalogue's facts and the target's environment. */
export interface TriageFacts {
  routes: Route[];
  /** Requirement id -> the statements of the documents it tests (contracts/statements.yaml). */
  statements: Record<string, string[]>;
  /** The target's environment (cloud or sandbox): which requests need no credential. */
  env: string;
  /** The target's base URL: where every route is not implemented, its path is the first suspect (triage-base-url.ts). */
  baseUrl?: string;
}

/** A candidate cause: what the answers show, and which failing checks it explains (the exchange that shows it). */
interface Finding {
  id: TriageCauseId;
  title: string;
  fix: string;
  basePath?: TriageCause['basePath'];
  routes: string[];
  everyRoute: boolean;
  shows(r: CheckRecord): Exchange | undefined;
}

interface Evidence {
  facts: TriageFacts;
  route: Map<string, Route>;
  /** Every answered or failed exchange of the run, by catalogue route. */
  byRoute: Map<string, Exchange[]>;
  failing: CheckRecord[];
  /** Routes found not implemented (later rules leave their answers alone). */
  notImplemented: Set<string>;
}

/** The failing checks of `records` by likely cause; undefined when none failed or no cause explains enough. */
export function triage(records: CheckRecord[], facts: TriageFacts): Triage | undefined {
  const failing = records.filter((r) => r.status === 'failed');
  if (!failing.length) return undefined;
  const ev: Evidence = { facts, route: new Map(facts.routes.map((r) => [r.route, r])), byRoute: new Map(), failing, notImplemented: new Set() };
  for (const r of records) {
    for (const e of r.exchanges ?? []) {
      if (!e.route || !ev.route.has(e.route)) continue;
      const list = ev.byRoute.get(e.route) ?? [];
      list.push(e);
      ev.byRoute.set(e.route, list);
    }
  }
  const order = new Map(facts.routes.map((r, i) => [r.route, i]));
  const byCatalogue = (a: string, b: string) => order.get(a)! - order.get(b)!;
  const claimed = new Set<string>();
  const causes: TriageCause[] = [];
  for (const rule of RULES) {
    for (const f of rule(ev)) {
      const mine = failing.flatMap((r) => {
        if (claimed.has(r.key)) return [];
        const e = f.shows(r);
        return e ? [{ r, e }] : [];
      });
      const enough = f.everyRoute ? f.routes.length >= MIN_ROUTES && mine.length >= MIN_EVERY_CHECKS : mine.length >= MIN_CHECKS;
      if (!enough) continue;
      for (const { r } of mine) claimed.add(r.key);
      const shown = mine.find(({ e }) => e.credential === 'full' && e.curl) ?? mine.find(({ e }) => e.curl) ?? mine[0];
      causes.push({
        id: f.id,
        title: f.title,
        explains: mine.length,
        checks: mine.map(({ r }) => r.key),
        routes: [...f.routes].sort(byCatalogue),
        example: exampleOf(shown.r, shown.e),
        fix: f.fix,
        ...(f.basePath ? { basePath: f.basePath } : {}),
      });
    }
  }
  if (!causes.length) return undefined;
  causes.sort((a, b) => b.explains - a.explains);
  return { failed: failing.length, explained: claimed.size, causes };
}

function exampleOf(r: CheckRecord, e: Exchange): TriageCause['example'] {
  const body = e.bodyExcerpt?.replace(/\s+/g, ' ').trim();
  return {
    check: r.key,
    request: requestLine(e),
    ...(e.curl ? { curl: e.curl } : {}),
    ...(body ? { body: body.length > 160 ? `${body.slice(0, 160)}…` : body } : {}),
  };
}

const NOT_IMPLEMENTED_STATUSES = new Set([404, 405, 501]);

/** Not implemented: every valid request of the route got a 404, 405 or 501 whose body is not the API's error array, and none a success. */
function notImplemented(ev: Evidence): Finding[] {
  const statuses = new Set<number>();
  for (const [id, list] of ev.byRoute) {
    const route = ev.route.get(id)!;
    if (list.some(isSuccess)) continue;
    const valid = list.filter((e) => answered(e) && isValidRequest(e, route, ev.facts.env));
    // The token endpoint's documented legacy body comes with 400-403, never with these statuses.
    if (!valid.length || !valid.every((e) => NOT_IMPLEMENTED_STATUSES.has(e.status!) && !isApiError(e))) continue;
    ev.notImplemented.add(id);
    for (const e of valid) statuses.add(e.status!);
  }
  const routes = [...ev.notImplemented];
  if (!routes.length) return [];
  const n = routes.length;
  const answers = `a non-API ${[...statuses].sort().join(' or ')} to every valid request`;
  // No route answered like the API at all (no success, no error array): the likeliest cause is where the
  // suite looks for the routes, the base URL, not the routes.
  const apiAnswered = [...ev.byRoute.values()].some((list) => list.some((e) => isSuccess(e) || (answered(e) && isApiError(e))));
  const everyRoute = n >= MIN_ROUTES && !apiAnswered && ev.facts.baseUrl !== undefined;
  return [
    {
      id: 'not-implemented',
      title: everyRoute
        ? `Every route the run reached (${n}) answers ${answers}: baseUrl's path may lack or repeat a prefix`
        : `${plural(n, 'route')} ${n === 1 ? 'answers' : 'answer'} ${answers} (not implemented?)`,
      fix: everyRoute
        ? basePathFix(ev.facts.baseUrl!)
        : `Implement ${n === 1 ? 'this route' : 'these routes'} (or route ${n === 1 ? 'it' : 'them'} to the API): a valid request, with the primary user's token, gets the web framework's own answer, not the API's.`,
      ...(everyRoute ? { basePath: { baseUrl: ev.facts.baseUrl!, tried: [] } } : {}),
      routes,
      everyRoute: false,
      shows: (r) =>
        (r.exchanges ?? []).find((e) => e.route && ev.notImplemented.has(e.route) && answered(e) && NOT_IMPLEMENTED_STATUSES.has(e.status!) && !isApiError(e)),
    },
  ];
}

/** No answer: requests of a route ended in a timeout or a connection failure; one cause per kind of failure. */
function noAnswer(ev: Evidence): Finding[] {
  const byKind = new Map<string, string[]>();
  for (const [id, list] of ev.byRoute) {
    // A request not sent (the route's breaker, src/transport/breaker.ts) repeats an earlier no-answer: the
    // checks' own, or, when the run's preparation met it first, the one it names.
    const first = list.find((e) => e.error && e.status === undefined && e.repeats === undefined && !e.error.startsWith('not sent'));
    const kind = first?.error ?? list.find((e) => e.error && e.status === undefined && e.repeats !== undefined)?.repeats;
    if (!kind) continue;
    const routes = byKind.get(kind) ?? [];
    routes.push(id);
    byKind.set(kind, routes);
  }
  return [...byKind.entries()].map(([kind, routes]) => {
    const timeout = /within \d+ ms/.test(kind);
    return {
      id: 'no-answer',
      title: `${routes.length === 1 ? routes[0] : `${routes.length} routes`} ${routes.length === 1 ? 'gives' : 'give'} no answer: ${kind}`,
      fix: timeout
        ? 'Make these requests answer in time: a handler that never sends its answer (or a very slow one) holds them; raise requestTimeoutMs in the target file only if the server is just slow.'
        : 'Make these requests get an answer: the server drops the connection there (a handler that crashes, a proxy that closes it); the example request shows it.',
      routes,
      everyRoute: false,
      shows: (r) => {
        const e = decisiveExchange(r);
        return e?.error && e.status === undefined && e.route && routes.includes(e.route) ? e : undefined;
      },
    };
  });
}

function isAuthenticationRefusal(e: Exchange): boolean {
  if (!answered(e)) return false;
  if (e.status === 401) return true;
  const body = jsonBody(e);
  return isApiError(e) && Array.isArray(body.value) && (body.value as Array<{ type?: string }>).some((x) => x?.type === 'AUTHENTICATION_ERROR');
}

/** Authentication refused: on many routes, every request with the primary user's valid token was refused as unauthenticated. */
function authRefused(ev: Evidence): Finding[] {
  const tried: string[] = [];
  const refused: string[] = [];
  for (const [id, list] of ev.byRoute) {
    const route = ev.route.get(id)!;
    if (route.public) continue;
    const full = list.filter((e) => e.credential === 'full' && answered(e));
    if (!full.length) continue;
    tried.push(id);
    if (full.every(isAuthenticationRefusal)) refused.push(id);
  }
  if (!refused.length) return [];
  const where = refused.length === tried.length ? `every route tried (${refused.length})` : plural(refused.length, 'route');
  // Any credential but none: a token of the run, or one a check obtained itself (a raw header).
  const token = (e: Exchange) => e.credential !== undefined && e.credential !== 'none';
  return [
    {
      id: 'auth-refused',
      title: `The primary user's valid token is refused as unauthenticated on ${where}`,
      fix: 'Accept the tokens your sign-in issues as "Authorization: Bearer <token>" on every protected route (vehicle-data-service-v3.md § Authentication); check that the target file\'s tokens are valid, and give a header a gateway in front needs under `headers`.',
      routes: refused,
      everyRoute: true,
      shows: (r) => {
        const e = decisiveExchange(r);
        return e?.route && refused.includes(e.route) && token(e) && isAuthenticationRefusal(e) ? e : undefined;
      },
    },
  ];
}

/** Scope map off: on several routes of one group, tokens lacking a scope were served where the route needs it, or refused where it does not. */
function scopeMap(ev: Evidence): Finding[] {
  const off = new Map<Group, Map<string, Set<string>>>();
  for (const [id, list] of ev.byRoute) {
    const route = ev.route.get(id)!;
    if (route.public || !route.scopes.length) continue;
    for (const e of list) {
      const missing = missingScopes(e, route);
      if (!missing || !answered(e)) continue;
      const needed = missing.filter((s) => (route.scopes as string[]).includes(s));
      let what: string | undefined;
      if (needed.length && isSuccess(e)) what = e.credential === 'noScopes' ? 'served to a token without any scope' : `served without ${needed.join(', ')}`;
      if (!needed.length && e.status === 403) what = `refused without ${missing.join(', ')}, which ${missing.length === 1 ? 'it does' : 'they do'} not need`;
      if (!what) continue;
      const routes = off.get(route.group) ?? new Map<string, Set<string>>();
      routes.set(id, (routes.get(id) ?? new Set()).add(what));
      off.set(route.group, routes);
    }
  }
  return [...off.entries()].map(([group, routes]) => {
    const ids = [...routes.keys()];
    const what = [...new Set([...routes.values()].flatMap((s) => [...s]))];
    const needs = ids.map((id) => `${id} needs ${ev.route.get(id)!.scopes.join(' and ')}`);
    return {
      id: 'scope-map',
      title: `The scope map is off on ${plural(ids.length, 'route')} of the ${group} group: ${shortList(what, 3).join('; ')}`,
      fix: `Require exactly the scopes of v3-profile.md § Scopes per route: ${shortList(needs, 3).join('; ')}.`,
      routes: ids,
      everyRoute: true,
      shows: (r) => {
        const e = decisiveExchange(r);
        if (!e?.route || !routes.has(e.route)) return undefined;
        const route = ev.route.get(e.route)!;
        return missingScopes(e, route) || (ev.facts.statements[r.requirement] ?? []).includes('P-ROUTE-SCOPES') ? e : undefined;
      },
    };
  });
}

/** What is wrong with an error body, in words; undefined when it is the spec's error array. */
function errorBodyFault(e: Exchange): string | undefined {
  if (isApiError(e)) return undefined;
  const body = jsonBody(e);
  if (body.json && Array.isArray(body.value)) {
    const violations = checkContract('errorArray', body.value);
    if (violations.length && violations.every((v) => v.keyword === 'enum')) {
      return `typed ${JSON.stringify(violations[0].actual)}, not one of the spec's three types`;
    }
  }
  return `${bodyShape(e)}, not the spec's array of {type, message, tip}`;
}

function isErrorAnswer(e: Exchange): boolean {
  return answered(e) && e.status! >= 400 && e.status !== 429;
}

/** Error body: the errors of several protected routes share one body that is not the spec's array. */
function errorBody(ev: Evidence): Finding[] {
  const routesOf = new Map<string, Set<string>>();
  for (const [id, list] of ev.byRoute) {
    // The auth routes have bodies of their own (the token endpoint's legacy {"message"}, OAuth's).
    if (ev.route.get(id)!.public || ev.notImplemented.has(id)) continue;
    for (const e of list) {
      const fault = isErrorAnswer(e) ? errorBodyFault(e) : undefined;
      if (fault) routesOf.set(fault, (routesOf.get(fault) ?? new Set()).add(id));
    }
  }
  return [...routesOf.entries()].map(([fault, routes]) => ({
    id: 'error-body',
    title: `Errors on ${plural(routes.size, 'route')} are ${fault}`,
    fix: "Answer every error with the spec's body, a JSON array of {type, message, tip} objects typed AUTHENTICATION_ERROR, AUTHORIZATION_ERROR or PARAMETERS_ERROR (vehicle-data-service-v3.md § Errors): usually one error handler to change.",
    routes: [...routes],
    everyRoute: true,
    shows: (r) => {
      const e = decisiveExchange(r);
      return e?.route && routes.has(e.route) && isErrorAnswer(e) && errorBodyFault(e) === fault ? e : undefined;
    },
  }));
}

/** Dates: the success answers of several routes write their dates in one shape other than their format's. */
function dateShape(ev: Evidence): Finding[] {
  const byShape = new Map<string, { routes: Set<string>; formats: Set<string>; example: string }>();
  for (const [id, list] of ev.byRoute) {
    const route = ev.route.get(id)!;
    for (const e of list) {
      if (!isSuccess(e)) continue;
      for (const d of wrongDates(e, route)) {
        const s = byShape.get(d.shape) ?? { routes: new Set(), formats: new Set(), example: `${d.member} ${JSON.stringify(d.value)}` };
        s.routes.add(id);
        s.formats.add(d.format);
        byShape.set(d.shape, s);
      }
    }
  }
  return [...byShape.entries()].map(([shape, s]) => ({
    id: 'date-shape',
    title: `Dates are written ${shape} on ${plural(s.routes.size, 'route')} (e.g. ${s.example})`,
    fix:
      [
        s.formats.has('vds-car-date') ? "write the car record's dates as YYYY-MM-DDThh:mm:ss+hh:mm (vehicle-data-service-v3.md § Car record)" : '',
        s.formats.has('vds-date-time') ? 'write dates as RFC 3339 date-times with an offset, e.g. 2026-03-01T08:00:00+00:00 (v3-profile.md § Records)' : '',
      ]
        .filter(Boolean)
        .join('; and ')
        .replace(/^w/, 'W') + '.',
    routes: [...s.routes],
    everyRoute: true,
    shows: (r) => {
      const e = decisiveExchange(r);
      const route = e?.route ? ev.route.get(e.route) : undefined;
      if (!e || !route || !s.routes.has(route.route) || !isSuccess(e)) return undefined;
      const wrong = wrongDates(e, route).filter((d) => d.shape === shape);
      // A failure at a member other than one of these dates failed for another reason.
      const at = r.failure?.pointer?.startsWith('/') ? r.failure.pointer.split('/').pop() : undefined;
      return wrong.length && (at === undefined || wrong.some((d) => d.member === at)) ? e : undefined;
    },
  }));
}

/**
 * Content type: on several routes, checks failed on the content type of a JSON answer (the failure
 * names the answer's content-type header) that is not a JSON media type.
 */
function contentType(ev: Evidence): Finding[] {
  const mislabelled = (r: CheckRecord): { e: Exchange; type: string } | undefined => {
    const e = decisiveExchange(r);
    const header = e ? contentTypeOf(e) : undefined;
    if (!e || !e.route || !answered(e) || isJsonMediaType(header) || !/^\s*[[{]/.test(e.bodyExcerpt ?? '')) return undefined;
    if (!r.failure?.actual.includes(header ?? 'no content-type')) return undefined;
    return { e, type: mediaTypeOf(header) || 'no content type' };
  };
  const routesOf = new Map<string, Set<string>>();
  for (const r of ev.failing) {
    const m = mislabelled(r);
    if (m) routesOf.set(m.type, (routesOf.get(m.type) ?? new Set()).add(m.e.route!));
  }
  return [...routesOf.entries()].map(([type, routes]) => ({
    id: 'content-type',
    title: `${plural(routes.size, 'route')} label${routes.size === 1 ? 's' : ''} JSON answers ${type}`,
    fix: 'Serve JSON answers as application/json (GeoJSON: application/json or application/geo+json, v3-profile.md § Conflicts and decisions).',
    routes: [...routes],
    everyRoute: true,
    shows: (r) => {
      const m = mislabelled(r);
      return m && m.type === type ? m.e : undefined;
    },
  }));
}

/** In attribution order: a route that is missing or silent explains everything on it before any detail of its answers does. */
const RULES: Array<(ev: Evidence) => Finding[]> = [notImplemented, noAnswer, authRefused, scopeMap, errorBody, dateShape, contentType];
