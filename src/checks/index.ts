// The registry of check procedures: the `check` names requirements.yaml may use.
// A new kind of check is a function here; a new route or error case is only data.
import * as auth from './auth-routes';
import * as coherence from './coherence';
import { errorCase } from './error-case';
import * as fuzz from './fuzz';
import * as query from './query';
import { queryPairs } from './query-pairs';
import * as responses from './responses';
import * as writes from './writes';
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
  'query-range-geojson': query.queryRangeGeojson,
  'query-range-stats': query.queryRangeStats,
  'stats-bounds': query.statsBounds,
  'signal-name-filter': query.signalNameFilter,
  'trips-inclusive': query.tripsInclusive,
  'stats-initial-value': query.statsInitialValue,
  'stats-no-data': query.statsNoData,
  'query-limit-range': query.queryLimitRange,
  'query-limit-default-range': query.queryLimitDefaultRange,
  'signal-name-exact': query.signalNameExact,
  'trips-inclusive-range': query.tripsInclusiveRange,
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
  'core-car-create': writes.coreCarCreate,
  'created-car-forbidden': writes.createdCarForbidden,
  'core-device-car': writes.coreDeviceCar,
  'core-device-scope-restricted': writes.coreDeviceScopeRestricted,
  'car-create': writes.carCreate,
  'car-create-read-back': writes.carCreateReadBack,
  'car-create-invalid': writes.carCreateInvalid,
  'device-forbidden': writes.deviceForbidden,
  'device-pin-malformed': writes.devicePinMalformed,
  'device-car-associate': writes.deviceCarAssociate,
  'device-car-associate-again': writes.deviceCarAssociateAgain,
  'device-car-associate-race': writes.deviceCarAssociateRace,
  'device-cross-user': writes.deviceCrossUser,
  'device-dissociate': writes.deviceDissociate,
  'device-dissociate-again': writes.deviceDissociateAgain,
  'device-dissociate-race': writes.deviceDissociateRace,
  'device-associated-other-car': writes.deviceAssociatedOtherCar,
  'device-associated-by-pin': writes.deviceAssociatedByPin,
  'device-pin-associate': writes.devicePinAssociate,
  'device-pin-wrong': writes.devicePinWrong,
  'device-pin-lockout': writes.devicePinLockout,
  'device-bad-car': writes.deviceBadCar,
  'core-signin-page': auth.coreSigninPage,
  'core-token-endpoint': auth.coreTokenEndpoint,
  'no-password-grant': auth.noPasswordGrant,
  'signin-page': auth.signinPage,
  'signin-rejects': auth.signinRejects,
  'signin-code-state': auth.signinCodeState,
  'signin-redirect-exact': auth.signinRedirectExact,
  'signin-scope-subset': auth.signinScopeSubset,
  'token-code-grant': auth.tokenCodeGrant,
  'token-code-single-use': auth.tokenCodeSingleUse,
  'token-bad-client': auth.tokenBadClient,
  'token-no-client': auth.tokenNoClient,
  'token-missing-param': auth.tokenMissingParam,
  'token-invalid-code': auth.tokenInvalidCode,
  'token-refresh': auth.tokenRefresh,
  'token-refresh-scopes': auth.tokenRefreshScopes,
  'token-invalid-refresh': auth.tokenInvalidRefresh,
  'token-code-other-app': auth.tokenCodeOtherApp,
  'token-refresh-other-app': auth.tokenRefreshOtherApp,
  'fuzz-ids': fuzz.fuzzIds,
  'fuzz-query': fuzz.fuzzQuery,
};

/**
 * The parts of checks that depend on no other check's writes, started as their route group starts
 * (engine/run-check.ts startEarly), so that a check waiting for its turn in a write lane finds them
 * done: the procedure awaits them through ctx.early(part).
 */
export const EARLY: Record<string, EarlyPart> = {
  'core-device-scope-restricted': writes.restrictedAppToken,
};
