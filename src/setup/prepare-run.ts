// A run's preparation, once per run and before any check: checks that the target answers at all
// (and times a round trip, alone and side by side: what the run's workers are decided from), resets it
// through its control API when it has one, obtains the tokens (and from then on keeps those it minted
// alive: token-keeper.ts), discovers the ids the checks need, proves the tokens minted through the
// sign-in page, and samples each read route's answer time while nothing else of the suite runs. One
// Preparation (preparation.ts: the target, its redactor, one client, the run's state folder and its
// context in progress) is made here and handed to each stage in turn. Global setup
// (fixtures/global-setup.ts) lets Playwright start the workers once the target answered
// (startPreparation), and publishes the rest to them when it is done; the in-process runs of the
// project's own tests (src/engine/in-process.ts) hand it to the checks directly: one preparation,
// whoever runs the checks.
import { randomUUID } from 'node:crypto';
import { NoAnswerError } from '../transport/api';
import { joinRun, silentRoutes } from '../transport/breaker';
import { learntIdleCloses } from '../transport/connection-reuse';
import { preparing, stage } from '../transport/timeline';
import { chooseBrowser, type BrowserChoice } from './browser';
import { learnReach } from './browser-network';
import { discoverData } from './discovery';
import { sampleLatency } from './latency-sampling';
import { Preparation, type PreparationParts } from './preparation';
import type { Redactor } from '../util/redact';
import { concurrencyFor, DISTANT_MS, isDistant, removeRunState, type RunContext } from './run-context';
import { rememberSignInProblem } from './signin-page-state';
import type { Target } from './target';
import { learnBasicForms } from './basic-form';
import { learnPublishedKeys } from './published-keys';
import { proveTokens } from './token-proof';
import { startKeeping } from './token-keeper';
import { obtainTokens } from './tokens';

export interface PrepareOptions extends PreparationParts {
  /** Sample each GET route's answer time (monitoring); off for runs that judge conformance only. */
  latencySampling?: boolean;
  browser?: BrowserChoice;
}

export interface PreparedRun {
  context: RunContext;
  /** "prepared in 0.3 s (tokens 0.1 s, ...)", for the console. */
  timing: string;
}

/** What the target's first answers tell, before the rest of the preparation: what the workers are decided from. */
export interface PreparationStarted {
  /** The round trip of a request alone, on an open connection (ms). */
  roundTripMs: number;
  /** Requests sent side by side come back about as fast as one alone: the time is the network's (run-context.ts isDistant). */
  distant: boolean;
  /** The run's state folder (run-context.ts): made now, so that the workers know it from their start. */
  stateDir: string;
  /** The preparation's secrets (the target file's, then every token it mints): what a message of its failure is redacted with. */
  redactor: Redactor;
  /** The rest of the preparation (the browser's reach, tokens, discovery, token proofs, latency samples). */
  done: Promise<PreparedRun>;
}

export async function prepareRun(target: Target, options: PrepareOptions = {}): Promise<PreparedRun> {
  return (await startPreparation(target, options)).done;
}

/**
 * The preparation, returned once the target answered (its round trip known, the reset done) with the
 * rest under way: global setup lets Playwright start its workers then, and they load while the
 * preparation goes on (a worker's start is about a second of its processor; against a distant target
 * the rest of the preparation is a dozen round trips). A target that does not answer rejects at once.
 */
export async function startPreparation(target: Target, options: PrepareOptions = {}): Promise<PreparationStarted> {
  preparing(true);
  let done: Promise<PreparedRun> | undefined;
  try {
    const first = await begin(new Preparation(target, options), options);
    done = first.done;
    return first;
  } finally {
    if (done) void done.then(stopPreparing, stopPreparing);
    else stopPreparing();
  }
}

function stopPreparing(): void {
  preparing(false);
}

/**
 * The preflight (the target answers; its round trip) with the reset beside its second requests, then
 * the rest of the preparation started: returned once the target answered twice.
 */
async function begin(prep: Preparation, options: PrepareOptions): Promise<PreparationStarted> {
  const { target } = prep;
  // A breaker of its own (breaker.ts): the routes this preparation gets no answer from are published
  // as silentRoutes, and the checks start from them, not from anything an earlier run met.
  joinRun(`preparation ${randomUUID()}`, target.baseUrl, prep.catalogue.routes, { preparing: true });
  // The reset goes beside the preflight's second requests, once the target answered its first.
  const reset = async () => (target.control && target.control.reset !== false ? resetReference(prep) : false);
  const { beside: freshState, distance } = await preflight(prep, reset).catch((err: unknown) => {
    // A target that does not answer leaves no state behind.
    removeRunState(prep.stateDir);
    throw err;
  });
  stage('preflight');
  stage('reset');
  // The rest goes on beside a distant target's last preflight requests (its round trip on open connections).
  const done = prepareTheRest(prep, options, distance, freshState);
  // Its failure is its reader's (global setup, after this returns); not the process's while it waits here.
  done.catch(() => undefined);
  // The target stopped answering: thrown here; the rest fails on its own (and removes the state folder).
  const measured = await distance;
  const { roundTripMs } = measured;
  return { roundTripMs, distant: isDistant(roundTripMs, measured.sideBySide), stateDir: prep.stateDir, redactor: prep.redactor, done };
}

/**
 * The stages after the preflight, one after another, each filling in its part of `prep.run`: the
 * browser's reach, the tokens (kept alive from then on), discovery, the token proofs, the latency
 * samples; then the run's context, whole.
 */
async function prepareTheRest(prep: Preparation, options: PrepareOptions, distance: Promise<Distance>, freshState: boolean): Promise<PreparedRun> {
  const { target, run } = prep;
  try {
    // The browser reaches the target as the HTTP client does: what it needs is learnt before it is launched.
    const reach = await learnReach(target);
    run.warnings.push(...(reach.warnings ?? []));
    stage('browser reach learnt');
    const browser: BrowserChoice = { ...(options.browser ?? chooseBrowser()), ...(reach.trustedKeys ? { trustedKeys: reach.trustedKeys } : {}) };
    const t0 = performance.now();
    // The form of HTTP Basic the token endpoint takes, before anything sends it (basic-form.ts).
    const rawBasicClients = await learnBasicForms(target, prep.api);
    const minted = await obtainTokens(prep, browser);
    // From here on, the tokens it minted are renewed before they run out (discovery, proofs and every check).
    startKeeping({ target, stateDir: prep.stateDir, browser, api: prep.api }, minted.kept);
    // Where the tokens are JWTs signed asymmetrically: the key their server publishes (forging them takes it).
    await learnPublishedKeys(prep);
    const t1 = performance.now();
    stage('tokens');
    await discoverData(prep);
    stage('discovery');
    const tokensGrantingMore = await proveTokens(prep, minted.signedIn);
    const t2 = performance.now();
    stage('token proofs');
    const { roundTripMs, sideBySide } = await distance;
    const latency =
      options.latencySampling === false ? { method: 'not sampled in this run (VDS_LATENCY_SAMPLING=off)', routes: [] } : await sampleLatency(prep, roundTripMs);
    const t3 = performance.now();
    stage('latency sampling');
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const timing =
      `prepared in ${seconds(t3 - t0)} s (tokens ${seconds(t1 - t0)} s, discovery and token proofs ${seconds(t2 - t1)} s, ` +
      `latency sampling ${seconds(t3 - t2)} s)`;
    const context: RunContext = {
      startedAt: prep.startedAt,
      ...run,
      browser,
      secrets: [...prep.redactor.values],
      freshState,
      stateDir: prep.stateDir,
      concurrency: concurrencyFor(roundTripMs, target.maxConcurrency),
      roundTripMs,
      distant: isDistant(roundTripMs, sideBySide),
      latency,
      ...(rawBasicClients.length ? { rawBasicClients } : {}),
      ...(tokensGrantingMore.length ? { tokensGrantingMore } : {}),
    };
    const silent = silentRoutes();
    if (Object.keys(silent).length) context.silentRoutes = silent;
    const idleCloses = learntIdleCloses();
    if (Object.keys(idleCloses).length) context.idleCloses = idleCloses;
    // Setup's own sign-in could not use the page: every browser check of the run then skips at once.
    if (minted.signInPageProblem) rememberSignInProblem(context, minted.signInPageProblem);
    return { context, timing };
  } catch (err) {
    // A preparation that failed leaves no state behind: it may already hold the run's tokens.
    removeRunState(prep.stateDir);
    throw err;
  }
}

/** Requests the preflight sends side by side (each GET /users/me without a token: the cheapest answer of the API). */
const SIDE_BY_SIDE = 6;

/** A request's round trip (the quickest, on an open connection), and the answer times of requests sent side by side on open connections (isDistant). */
interface Distance {
  roundTripMs: number;
  sideBySide: number[];
}

/**
 * One clear message, instead of hundreds of identical failures, when the target does not answer.
 * Returns, once the target answered twice (a request alone, then SIDE_BY_SIDE more), what `beside`
 * gave (it runs once the target answered, beside the second requests), and the target's distance:
 * the round trip of a request (the quickest, once a connection is open) and, when it is long enough
 * for it to matter (DISTANT_MS), the answer times of SIDE_BY_SIDE more requests sent together on
 * connections already open: what tells a network's round trip from a busy machine (isDistant). Those
 * are under way when it returns: the rest of the preparation goes on beside them.
 */
async function preflight<T>(prep: Pick<Preparation, 'target' | 'api'>, beside: () => Promise<T>): Promise<{ beside: T; distance: Promise<Distance> }> {
  const { target, api } = prep;
  // A target that may be down is not waited for longer than that.
  const timeoutMs = Math.min(target.requestTimeoutMs, 15_000);
  const together = async () =>
    (await Promise.all(Array.from({ length: SIDE_BY_SIDE }, () => api.get('/users/me', { authorization: null, timeoutMs })))).map((r) => r.durationMs);
  const noAnswer = (err: unknown): never => {
    if (!(err instanceof NoAnswerError)) throw err;
    const error = new Error(
      `The target "${target.name}" (${target.baseUrl}) does not answer: ${err.message.replace(/^GET \S+: /, '')}.\n` +
        `Check baseUrl in ${target.source}, that the server is running, and your network. No check was run.`,
    );
    error.stack = error.message; // the stack says nothing useful to the reader here
    throw error;
  };
  try {
    const first = await api.get('/users/me', { authorization: null, timeoutMs });
    // One of these goes on the connection the first opened; the others open theirs.
    const [second, result] = await Promise.all([together(), beside()]);
    const quickest = Math.min(first.durationMs, ...second);
    if (quickest < DISTANT_MS) return { beside: result, distance: Promise.resolve({ roundTripMs: quickest, sideBySide: [] }) };
    // Long enough to matter: six more, on open connections; the round trip is the quickest of all thirteen
    // (a busy machine's one slow answer does not make a nearby server distant).
    const distance = together().then((third) => ({ roundTripMs: Math.min(quickest, ...third), sideBySide: third }), noAnswer);
    return { beside: result, distance };
  } catch (err) {
    return noAnswer(err);
  }
}

/** The reference's test-control API: start every run from the seeded state, so runs repeat. */
async function resetReference({ target, api }: Pick<Preparation, 'target' | 'api'>): Promise<boolean> {
  const res = await api.post(`${target.control!.url}/reset`, { body: {} }).catch(() => undefined);
  if (!res || res.status >= 300) {
    console.warn(`warning: the control API at ${target.control!.url} did not reset the target (${res?.status ?? 'no answer'})`);
    return false;
  }
  return true;
}
