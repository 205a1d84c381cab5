// Where every route the run reached answered a non-API 404 (the triage's "not implemented", on every
// route), the likeliest cause is not the server's routes but the base URL the suite put before them: a
// path prefix it lacks or repeats (a mock that serves the API at "/", a gateway that adds /v3 once more).
// After the checks, one cheap request (GET <base>/users/me without a credential: an API answers it, 401
// at least; a server without the route its own 404) goes to the base URL without its last path segment
// and to the base URL with /v3 added, and the cause says first which answered like the API, with what
// was tried. It only words a cause: no check's verdict depends on it.
import { ApiClient } from '../transport/api';
import { checkContract } from '../schemas/validate';
import { Redactor } from '../util/redact';
import type { BaseUrlTry, Certificate, TriageCause } from './model';

/** The route tried: it has no id to know, and an API answers it without a credential (401). */
const PROBE_PATH = '/users/me';
/** The path prefix of every route (vehicle-data-service-v3.md § Endpoints, Hosts). */
const PREFIX = '/v3';
/** One cheap request each: a server that does not answer within this is no better a base URL. */
const PROBE_TIMEOUT_MS = 5000;
const HOSTS = 'vehicle-data-service-v3.md § Endpoints, Hosts';

/** The base URLs tried in place of `baseUrl`: without its last path segment, and with /v3 added. */
export function baseUrlCandidates(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return [...new Set([`${url.origin}${path.replace(/\/[^/]*$/, '')}`, `${url.origin}${path}${PREFIX}`])].filter((c) => c !== `${url.origin}${path}`);
}

/** An answer like the API's: a success, a refusal asking for a credential (401, 403), or the API's error array. */
export function answersLikeTheApi(status: number, body: unknown): boolean {
  if ((status >= 200 && status < 300) || status === 401 || status === 403) return true;
  return Array.isArray(body) && checkContract('errorArray', body).length === 0;
}

/** The cause's fix before anything was tried (a replay, a merge): where to look. */
export function basePathFix(baseUrl: string): string {
  return `Check the path of baseUrl (${baseUrl}): the spec puts every route below ${PREFIX} (${HOSTS}), and a server or a mock that serves them elsewhere (at "/", or below ${PREFIX} twice) answers none of them there. If baseUrl is right, implement these routes.`;
}

/** The cause worded with what was tried: the base URL that answered like the API first. */
function withTries(cause: TriageCause, tries: BaseUrlTry[]): TriageCause {
  if (!cause.basePath) return cause;
  const { baseUrl } = cause.basePath;
  const what = tries.map((t) => `${t.request}${t.likeTheApi ? ' (like the API)' : ' (not the API)'}`).join('; ');
  const found = tries.find((t) => t.likeTheApi);
  if (!found) {
    return { ...cause, basePath: { baseUrl, tried: tries }, fix: `${basePathFix(baseUrl)} Tried instead: ${what}: neither answered like the API.` };
  }
  const lacks = found.baseUrl.length > baseUrl.length;
  const how = found.baseUrl.endsWith(PREFIX)
    ? `set baseUrl to ${found.baseUrl}`
    : `serve the routes below ${PREFIX}, as the spec puts them (${HOSTS}; the target file's baseUrl ends with ${PREFIX}), e.g. through a gateway or the server's base path`;
  return {
    ...cause,
    basePath: { baseUrl, tried: tries },
    title: `${cause.title.replace(/: baseUrl's path may lack or repeat a prefix$/, '')}: the API answered at ${found.baseUrl} instead (baseUrl ${lacks ? 'lacks a path prefix' : 'has a path segment too many'})`,
    fix: `The API answered at ${found.baseUrl}, not at ${baseUrl}: ${how}. Tried: ${what}.`,
  };
}

/** Sends the one request to a base URL and says how it answered. */
async function tryBaseUrl(baseUrl: string): Promise<BaseUrlTry> {
  const client = new ApiClient(baseUrl, PROBE_TIMEOUT_MS, new Redactor());
  const line = `GET ${baseUrl}${PROBE_PATH}`;
  try {
    const res = await client.get(PROBE_PATH);
    return { baseUrl, request: `${line} -> ${res.status}`, likeTheApi: answersLikeTheApi(res.status, res.json) };
  } catch (err) {
    return { baseUrl, request: `${line}: no answer (${(err as Error).message.split('\n')[0]})`, likeTheApi: false };
  }
}

/**
 * Where the certificate's triage found every route not implemented, tries the other base URLs (one
 * request each) and words its cause with what answered like the API. Called once the checks are done,
 * while the target still answers (not on a replay: its target is a record).
 */
export async function tryBaseUrls(certificate: Certificate, attempt: (baseUrl: string) => Promise<BaseUrlTry> = tryBaseUrl): Promise<void> {
  const triage = certificate.triage;
  const index = triage?.causes.findIndex((c) => c.basePath && !c.basePath.tried.length) ?? -1;
  if (!triage || index < 0) return;
  const cause = triage.causes[index];
  const tries = await Promise.all(baseUrlCandidates(cause.basePath!.baseUrl).map(attempt));
  triage.causes[index] = withTries(cause, tries);
}
