// A run's preparation, once per run and before any check: checks that the target answers at all
// (and times a round trip), resets it through its control API when it has one, obtains the tokens
// (and from then on keeps those it minted alive: token-keeper.ts), discovers the ids the checks need, proves the tokens minted through the sign-in page, and samples
// each read route's answer time while nothing else of the suite runs. Global setup
// (fixtures/global-setup.ts) publishes its result to the workers; the in-process runs of the
// project's own tests (src/engine/in-process.ts) hand it to the checks directly: one
// preparation, whoever runs the checks.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient, NoAnswerError } from '../transport/api';
import { joinRun, silentRoutes } from '../transport/breaker';
import { preparing, stage } from '../transport/timeline';
import { chooseBrowser, type BrowserChoice } from './browser';
import { learnReach } from './browser-network';
import { loadCatalogue, type Catalogue } from '../catalogue/catalogue';
import { discoverData } from './discovery';
import { sampleLatency } from './latency-sampling';
import { Redactor } from '../util/redact';
import { concurrencyFor, isDistant, removeRunState, targetSecrets, type RunContext } from './run-context';
import { rememberSignInProblem } from './signin-page-state';
import type { Target } from './target';
import { proveTokens } from './token-proof';
import { startKeeping } from './token-keeper';
import { obtainTokens } from './tokens';

export interface PrepareOptions {
  /** Sample each GET route's answer time (monitoring); off for runs that judge conformance only. */
  latencySampling?: boolean;
  browser?: BrowserChoice;
  catalogue?: Catalogue;
  startedAt?: string;
}

export interface PreparedRun {
  context: RunContext;
  /** "prepared in 0.3 s (tokens 0.1 s, ...)", for the console. */
  timing: string;
}

export async function prepareRun(target: Target, options: PrepareOptions = {}): Promise<PreparedRun> {
  preparing(true);
  try {
    return await prepare(target, options);
  } finally {
    preparing(false);
  }
}

async function prepare(target: Target, options: PrepareOptions): Promise<PreparedRun> {
  const startedAt = options.startedAt ?? new Date().toISOString();
  const redactor = new Redactor(targetSecrets(target));
  const catalogue = options.catalogue ?? loadCatalogue();
  // A breaker of its own (breaker.ts): the routes this preparation gets no answer from are published
  // as silentRoutes, and the checks start from them, not from anything an earlier run met.
  joinRun(`preparation ${randomUUID()}`, target.baseUrl, catalogue.routes, { preparing: true });
  // One client for the rest of the preparation (token proofs, latency samples, the reset): one record
  // of its requests, on the process's one pool of kept-alive connections (http-policy.ts).
  const api = new ApiClient(target.baseUrl, target.requestTimeoutMs, redactor);
  // The reset goes beside the preflight's second request, once the target answered its first.
  const reset = async () => (target.control && target.control.reset !== false ? resetReference(target, api) : false);
  const { roundTripMs, beside: freshState } = await preflight(target, redactor, reset);
  stage('preflight');
  stage('reset');

  // The browser reaches the target as the HTTP client does: what it needs is learnt before it is launched.
  const reach = await learnReach(target);
  stage('browser reach learnt');
  const browser: BrowserChoice = { ...(options.browser ?? chooseBrowser()), ...(reach.trustedKeys ? { trustedKeys: reach.trustedKeys } : {}) };
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-run-'));
  try {
    const t0 = performance.now();
    const tokens = await obtainTokens(target, browser, redactor);
    // From here on, the tokens it minted are renewed before they run out (discovery, proofs and every check).
    startKeeping({ target, stateDir, browser }, tokens.kept);
    const t1 = performance.now();
    stage('tokens');
    const found = await discoverData(target, tokens.tokens, redactor);
    stage('discovery');
    await proveTokens(target, catalogue, { tokens: tokens.tokens, tokenNotes: tokens.notes, data: found.data }, tokens.signedIn, redactor, api);
    const t2 = performance.now();
    stage('token proofs');
    const latency =
      options.latencySampling === false
        ? { method: 'not sampled in this run (VDS_LATENCY_SAMPLING=off)', routes: [] }
        : await sampleLatency(target, catalogue, { tokens: tokens.tokens, data: found.data, window: found.window }, redactor, roundTripMs, api);
    const t3 = performance.now();
    stage('latency sampling');
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const timing =
      `prepared in ${seconds(t3 - t0)} s (tokens ${seconds(t1 - t0)} s, discovery and token proofs ${seconds(t2 - t1)} s, ` +
      `latency sampling ${seconds(t3 - t2)} s)`;
    const context: RunContext = {
      startedAt,
      tokens: tokens.tokens,
      tokenNotes: tokens.notes,
      data: found.data,
      dataNotes: found.dataNotes,
      window: found.window,
      browser,
      secrets: [...redactor.values],
      warnings: [...(reach.warnings ?? []), ...found.warnings],
      choices: found.choices,
      freshState,
      stateDir,
      concurrency: concurrencyFor(roundTripMs, target.maxConcurrency),
      roundTripMs,
      distant: isDistant(
        roundTripMs,
        latency.routes.flatMap((r) => r.samples),
      ),
      latency,
    };
    const silent = silentRoutes();
    if (Object.keys(silent).length) context.silentRoutes = silent;
    // Setup's own sign-in could not use the page: every browser check of the run then skips at once.
    if (tokens.signInPageProblem) rememberSignInProblem(context, tokens.signInPageProblem);
    return { context, timing };
  } catch (err) {
    // A preparation that failed leaves no state behind: it may already hold the run's tokens.
    removeRunState(stateDir);
    throw err;
  }
}

/**
 * One clear message, instead of hundreds of identical failures, when the target does not answer.
 * Returns the round trip of a request (the quicker of two, once the connection is open), and what
 * `beside` gave: it runs once the target answered, beside the second request.
 */
async function preflight<T>(target: Target, redactor: Redactor, beside: () => Promise<T>): Promise<{ roundTripMs: number; beside: T }> {
  const api = new ApiClient(target.baseUrl, Math.min(target.requestTimeoutMs, 15_000), redactor);
  try {
    const first = await api.get('/users/me', { authorization: null });
    const [second, result] = await Promise.all([api.get('/users/me', { authorization: null }), beside()]);
    return { roundTripMs: Math.min(first.durationMs, second.durationMs), beside: result };
  } catch (err) {
    if (!(err instanceof NoAnswerError)) throw err;
    const error = new Error(
      `The target "${target.name}" (${target.baseUrl}) does not answer: ${err.message.replace(/^GET \S+: /, '')}.\n` +
        `Check baseUrl in ${target.source}, that the server is running, and your network. No check was run.`,
    );
    error.stack = error.message; // the stack says nothing useful to the reader here
    throw error;
  }
}

/** The reference's test-control API: start every run from the seeded state, so runs repeat. */
async function resetReference(target: Target, api: ApiClient): Promise<boolean> {
  const res = await api.post(`${target.control!.url}/reset`, { body: {} }).catch(() => undefined);
  if (!res || res.status >= 300) {
    console.warn(`warning: the control API at ${target.control!.url} did not reset the target (${res?.status ?? 'no answer'})`);
    return false;
  }
  return true;
}
