// What the run has learnt about its sign-in page that every later browser check must know at once:
// that the form cannot be found on it, or that signing in through fields read from the form's layout
// led nowhere. The first check (or global setup's first sign-in) that meets it writes it down; every
// browser check after it is then not run with the same reason, without waiting out the page again.
// Kept in the run's state folder (run-state.ts): shared by the workers, and surviving a worker's
// restart after a failed test.
import { signInRefused, type SignInResult } from './oauth';
import type { RunContext } from './run-context';
import { readRunState, writeRunState } from './run-state';
import { FORM_WAIT_MS, type FormProblem } from './signin-form';
import type { Target } from './target';

export interface SignInPageProblem {
  /**
   * no-form and unidentified: see signin-form.ts; layout-sign-in: signing in through fields read from
   * the layout gave no redirect; between-pages: a page after the sign-in offered no control the suite
   * recognises (to allow the application, or to go on).
   */
  kind: FormProblem['kind'] | 'layout-sign-in' | 'between-pages';
  /** Why the browser checks do not run: names oauth.signInPage in the target file. */
  reason: string;
  /** What the page showed, for SIGNIN-PAGE's failure (no-form). */
  pageText?: string;
}

const KEY = 'signin-page-problem';
type Run = Pick<RunContext, 'stateDir'>;

export function knownSignInProblem(run: Run): SignInPageProblem | undefined {
  return readRunState<SignInPageProblem | undefined>(run, KEY, undefined);
}

export function rememberSignInProblem(run: Run, problem: SignInPageProblem): void {
  if (!knownSignInProblem(run)) writeRunState(run, KEY, problem);
}

const GIVE_SELECTORS = (target: Pick<Target, 'source'>) =>
  `give its fields as Playwright selectors, oauth.signInPage.{username,password,submit} in ${target.source}`;

/** The problem, worded for a reader, from what the form search found. */
export function formProblem(problem: FormProblem, target: Pick<Target, 'source'>, pageText?: string): SignInPageProblem {
  const seconds = FORM_WAIT_MS / 1000;
  if (problem.kind === 'no-form') {
    return {
      kind: 'no-form',
      pageText,
      reason: `the sign-in page shows no control to sign in with within ${seconds} s (SIGNIN-PAGE fails on it); if it has a form the suite cannot see, ${GIVE_SELECTORS(target)}`,
    };
  }
  const where = problem.secondPage ? "the sign-in's second page (after the account was given on the first)" : 'the page';
  return {
    kind: 'unidentified',
    pageText,
    reason: `the sign-in form was not found on ${where} within ${seconds} s (${problem.missing.join(', ')}), by label nor by the form's layout: ${GIVE_SELECTORS(target)}`,
  };
}

/** Signing in through fields read from the layout gave no redirect: they may not be the fields (or the credentials are wrong). */
function layoutSignInProblem(what: string, target: Pick<Target, 'source'>): SignInPageProblem {
  return {
    kind: 'layout-sign-in',
    reason:
      `signing in through the fields the suite read from the form's layout (no label names them) gave ${what}: ` +
      `if those are not the username and password fields, ${GIVE_SELECTORS(target)}; else check oauth.username and oauth.password`,
  };
}

/** A page after the sign-in that the suite cannot go on from: its limit, said once, naming the key that tells it how. */
function betweenPagesProblem(pageText: string | undefined, target: Pick<Target, 'source'>): SignInPageProblem {
  return {
    kind: 'between-pages',
    pageText,
    reason:
      `after signing in, a page ("${pageText ?? ''}") offered no control the suite recognises to allow the application or go on, ` +
      `nor a redirect to the redirect_uri: give the control to click as a Playwright selector, oauth.signInPage.allow in ${target.source}`,
  };
}

/** What a sign-in that gave no code says of the page itself, if anything (else it is the server's answer to judge). */
export function signInProblem(result: SignInResult, target: Pick<Target, 'source'>): SignInPageProblem | undefined {
  if (result.formProblem) return formProblem(result.formProblem, target, result.pageText);
  // The right credentials answered with an error status: the server's failure to judge (oauth.ts signInRefused).
  if (signInRefused(result)) return undefined;
  if (!result.code && result.stuckBetween) return betweenPagesProblem(result.pageText, target);
  if (!result.code && result.byLayout) return layoutSignInProblem(`no redirect to the redirect_uri (the page shows: "${result.pageText ?? ''}")`, target);
  return undefined;
}
