// The check API: everything a check procedure (src/checks) may use, and nothing else of the suite
// (.dependency-cruiser.cjs: checks-see-the-check-api-only). Its inputs and requests (check-context.ts),
// its assertions and outcomes, and what the run's setup lends it: the catalogue's facts, the record
// contracts, the token endpoint and the sign-in page, the state the run's checks share.
export { CheckContext, type CallOptions, type EarlyPart, CREATED_CAR_PREFIX, isSuiteCreatedCar, validCarBody } from './check-context';
export { ConformanceFailure, fail, NotApplicable, NotRun, show, unreadable, type FailureDetails } from './outcome';
export * from './assertions';
export { fuzzSeed, hostileIds, hostileQueries } from './fuzz';
export { signInAttempt, signInForCheck } from './sign-in';
export * from './near-miss';
export * from './forged';
export { NoAnswerError, type ApiResponse } from '../transport/api';
export { errorProvokers, errorStatusesOf, OTHER_ID, resourceParam, type Route } from '../catalogue/catalogue';
export { expandDeep, expandTemplate, rawBody, rfc3339, unknownIdLike } from '../catalogue/templates';
export {
  canonicalJson,
  checkContract,
  describeViolations,
  documentedKey,
  documentedOnly,
  isRfc3339DateTime,
  memberSchemas,
  type MemberSchema,
} from '../schemas/validate';
export { SCOPES, type TokenKey } from '../setup/target';
export {
  basicAuth,
  basicFormsDiffer,
  exchangeCode,
  missingSignInKeys,
  openPage,
  pageText,
  restrictedAppTarget,
  signInRefused,
  signInUrl,
  SIGN_IN_KEYS,
  tokenRequest,
  type SignInResult,
  type TokenRecord,
} from '../setup/oauth';
export { openContext } from '../setup/browser-network';
export { findSignInForm, FORM_WAIT_MS } from '../setup/signin-form';
export { formProblem, knownSignInProblem, rememberSignInProblem } from '../setup/signin-page-state';
export { readRunState, writeRunState } from '../setup/run-state';
export { brokenLifetimes, heldRefreshTokens, keptTokenTimes } from '../setup/token-keeper';
export { judgeEach, together } from './together';
export { deviceCars } from '../setup/device-pair';
