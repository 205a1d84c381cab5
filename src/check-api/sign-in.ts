// A check's sign-in through the sign-in page (in the worker's browser): the run's knowledge of a page
// it cannot use (src/setup/signin-page-state.ts) makes every later browser check not run at once.
import type { Browser } from '@playwright/test';
import { signIn, type SignInRequest, type SignInResult } from '../setup/oauth';
import { knownSignInProblem, rememberSignInProblem, signInProblem } from '../setup/signin-page-state';
import type { Target } from '../setup/target';
import { NotRun } from './outcome';

type Run = Parameters<typeof knownSignInProblem>[0];

/**
 * A check's sign-in through the page: not run at once when the run already knows the page's form
 * cannot be used, and a problem met now is remembered for every later browser check of the run.
 */
export async function signInForCheck(run: Run, browser: Browser, target: Target, request: SignInRequest): Promise<SignInResult> {
  const known = knownSignInProblem(run);
  if (known) throw new NotRun(known.reason);
  const signed = await signIn(browser, target, request);
  const problem = signInProblem(signed, target);
  if (problem) {
    rememberSignInProblem(run, problem);
    throw new NotRun(problem.reason);
  }
  return signed;
}

/**
 * A sign-in a check makes to see it refused (a wrong password): what the page does with it is the
 * answer judged, never a problem of the page to remember for the other checks. A page whose form
 * cannot be found (known, or met now) still makes the check not run; met now, it is remembered as
 * signInForCheck does: the form was searched with the right account (every attempt's user name is
 * the target's own), so it is the page's, and no later browser check waits it out again.
 */
export async function signInAttempt(run: Run, browser: Browser, target: Target, request: SignInRequest): Promise<SignInResult> {
  const known = knownSignInProblem(run);
  if (known) throw new NotRun(known.reason);
  const signed = await signIn(browser, target, request);
  if (signed.formProblem) {
    const problem = signInProblem(signed, target)!;
    rememberSignInProblem(run, problem);
    throw new NotRun(problem.reason);
  }
  return signed;
}
