// The registry of check procedures: the `check` names requirements.yaml may use.
// A new kind of check is a function here; a new route or error case is only data.
import * as auth from './auth-routes';
import { bearerSchemeCase } from './bearer-scheme';
import * as coherence from './coherence';
import * as refusals from './credential-refusals';
import { errorCase } from './error-case';
import * as fuzz from './fuzz';
import * as query from './query';
import * as combined from './query-combined';
import { queryPairs } from './query-pairs';
import * as responses from './responses';
import * as carCreation from './car-creation';
import * as deviceAccess from './device-access';
import * as lifecycle from './device-lifecycle';
import * as pins from './pin-attempts';
import * as word from './token-word';
import * as caches from './shared-cache';
import * as members from './car-members';
import * as exact from './exact-values';
import { deviceStateCrossUser } from './device-state-cross-user';
import * as declared from './declared-headers';
import * as otherwise from './reached-otherwise';
import { pathIdInQuery } from './path-id-in-query';
import { corePasswordNotAnswered } from './no-password';
import * as refused from './refused-otherwise';
import { coreCarCreatedNow } from './created-car-dates';
import { type CheckContext, type EarlyPart } from '../check-api';

export type CheckProcedure = (ctx: CheckContext) => Promise<void>;

export const CHECKS: Record<string, CheckProcedure> = {
  'route-answers': responses.routeAnswers,
  'car-list-records': responses.carListRecords,
  'response-status': responses.responseStatus,
  'response-content-type': responses.responseContentType,
  'response-contract': responses.responseContract,
  'date-order': responses.dateOrder,
  'error-body': responses.errorBody,
  'malformed-id': responses.malformedId,
  'sandbox-open': responses.sandboxOpen,
  'scope-not-needed': responses.scopeNotNeeded,
  'core-scope-missing': responses.coreScopeMissing,
  'error-content-type': responses.errorContentType,
  'contract-each-car': responses.contractEachCar,
  'error-case': errorCase,
  'query-limit': query.queryLimit,
  'query-range': query.queryRange,
  'query-default-range': query.queryDefaultRange,
  'query-range-accepted': query.queryRangeAccepted,
  'query-range-equal': query.queryRangeEqual,
  'query-date-forms': query.queryDateForms,
  'query-pairs': queryPairs,
  'query-date-exact': exact.queryDateExact,
  'query-range-geojson': query.queryRangeGeojson,
  'query-range-stats': query.queryRangeStats,
  'stats-bounds': query.statsBounds,
  'signal-name-filter': query.signalNameFilter,
  'trips-inclusive': query.tripsInclusive,
  'stats-initial-value': query.statsInitialValue,
  'stats-no-data': query.statsNoData,
  'query-limit-range': combined.queryLimitRange,
  'query-limit-default-range': combined.queryLimitDefaultRange,
  'signal-name-exact': combined.signalNameExact,
  'trips-inclusive-range': combined.tripsInclusiveRange,
  'core-me': coherence.coreMe,
  'core-car-trips': coherence.coreCarTrips,
  'core-by-id': coherence.coreById,
  'coherence-me-cars': coherence.meCars,
  'coherence-me-user': coherence.meUser,
  'coherence-car-list-items': coherence.carListItems,
  'coherence-trip-list-items': coherence.tripListItems,
  'coherence-trip-stats': coherence.tripStats,
  'coherence-geojson-car': coherence.geojsonCar,
  'coherence-geojson-trip': coherence.geojsonTrip,
  'coherence-trip-window': coherence.tripWindow,
  'core-car-create': carCreation.coreCarCreate,
  'created-car-forbidden': carCreation.createdCarForbidden,
  'core-device-car': lifecycle.coreDeviceCar,
  'core-device-scope-restricted': deviceAccess.coreDeviceScopeRestricted,
  'car-create': carCreation.carCreate,
  'car-create-read-back': carCreation.carCreateReadBack,
  'car-create-invalid': carCreation.carCreateInvalid,
  'car-create-texts': carCreation.carCreateTexts,
  'core-car-create-owner': members.coreCarCreateOwner,
  'core-car-create-device': members.coreCarCreateDevice,
  'car-create-server-members': members.carCreateServerMembers,
  'device-forbidden': deviceAccess.deviceForbidden,
  'device-pin-malformed': pins.devicePinMalformed,
  'device-car-associate': lifecycle.deviceCarAssociate,
  'device-car-associate-again': lifecycle.deviceCarAssociateAgain,
  'device-car-associate-race': lifecycle.deviceCarAssociateRace,
  'device-cross-user': deviceAccess.deviceCrossUser,
  'device-state-cross-user': deviceStateCrossUser,
  'device-dissociate': lifecycle.deviceDissociate,
  'device-dissociate-again': lifecycle.deviceDissociateAgain,
  'device-dissociate-race': lifecycle.deviceDissociateRace,
  'device-associated-other-car': lifecycle.deviceAssociatedOtherCar,
  'device-associated-by-pin': lifecycle.deviceAssociatedByPin,
  'device-pin-associate': pins.devicePinAssociate,
  'device-pin-wrong': pins.devicePinWrong,
  'device-pin-lockout': pins.devicePinLockout,
  'device-bad-car': lifecycle.deviceBadCar,
  'device-id-exact': exact.deviceIdExact,
  'core-signin-page': auth.coreSigninPage,
  'core-token-endpoint': auth.coreTokenEndpoint,
  'no-password-grant': auth.noPasswordGrant,
  'core-signin-other-password': auth.coreSigninOtherPassword,
  'core-signin-cookie-not-token': auth.coreSigninCookieNotToken,
  'signin-page': auth.signinPage,
  'signin-rejects': auth.signinRejects,
  'bearer-scheme-case': bearerSchemeCase,
  'signin-form-redirect': auth.signinFormRedirect,
  'signin-state-escaped': auth.signinStateEscaped,
  'signin-code-state': auth.signinCodeState,
  'signin-redirect-exact': auth.signinRedirectExact,
  'signin-scope-subset': auth.signinScopeSubset,
  'token-code-grant': auth.tokenCodeGrant,
  'token-code-single-use': auth.tokenCodeSingleUse,
  'token-code-concurrent': auth.tokenCodeConcurrent,
  'token-bad-client': auth.tokenBadClient,
  'token-no-client': auth.tokenNoClient,
  'token-missing-param': auth.tokenMissingParam,
  'token-invalid-code': auth.tokenInvalidCode,
  'token-refresh': auth.tokenRefresh,
  'token-refresh-scopes': auth.tokenRefreshScopes,
  'token-invalid-refresh': auth.tokenInvalidRefresh,
  'token-code-other-app': auth.tokenCodeOtherApp,
  'token-code-redirect-uri': auth.tokenCodeRedirectUri,
  'token-refresh-other-app': auth.tokenRefreshOtherApp,
  'token-code-near-miss': refusals.tokenCodeNearMiss,
  'token-grant-forged': refusals.tokenGrantForged,
  'token-refresh-near-miss': refusals.tokenRefreshNearMiss,
  'token-client-near-miss': refusals.tokenClientNearMiss,
  'token-client-in-query': refusals.tokenClientInQuery,
  'token-other-kind': refusals.tokenOtherKind,
  'token-client-encoded': refusals.tokenClientEncoded,
  'signin-password-near-miss': refusals.signinPasswordNearMiss,
  'token-client-id-only': refusals.tokenClientIdOnly,
  'token-no-store': declared.tokenNoStore,
  'personal-not-shared-cacheable': declared.personalNotSharedCacheable,
  'signin-not-framed': declared.signinNotFramed,
  'token-post-only': otherwise.tokenPostOnly,
  'token-code-no-wider': otherwise.tokenCodeNoWider,
  'token-other-grant-param': otherwise.tokenOtherGrantParam,
  'token-repeated-param': otherwise.tokenRepeatedParam,
  'signin-password-not-in-url': otherwise.signinPasswordNotInUrl,
  'token-lifetime-kept': word.tokenLifetimeKept,
  'token-scopes-kept': word.tokenScopesKept,
  'token-refresh-no-wider': word.tokenRefreshNoWider,
  'core-no-shared-cache': caches.coreNoSharedCache,
  'no-shared-cache': caches.noSharedCache,
  'path-id-in-query': pathIdInQuery,
  'core-password-not-answered': corePasswordNotAnswered,
  'core-head-refused': refused.coreHeadRefused,
  'core-car-created-now': coreCarCreatedNow,
  'conditional-still-refused': refused.conditionalStillRefused,
  'fuzz-ids': fuzz.fuzzIds,
  'fuzz-query': fuzz.fuzzQuery,
};

/**
 * The parts of checks that depend on no other check's writes, started as their route group starts
 * (engine/run-check.ts startEarly), so that a check waiting for its turn in a write lane finds them
 * done: the procedure awaits them through ctx.early(part).
 */
export const EARLY: Record<string, EarlyPart> = {
  'core-device-scope-restricted': deviceAccess.restrictedAppToken,
};
