// The registry of check procedures: the `check` names requirements.yaml may use.
// A new kind of check is a function here; a new route or error case is only data.
import type { CheckContext } from '../../../harness/check-context';
import * as auth from './auth-routes';
import * as coherence from './coherence';
import { errorCase } from './error-case';
import * as fuzz from './fuzz';
import * as query from './query';
import * as responses from './responses';
import * as writes from './writes';

export type CheckProcedure = (ctx: CheckContext) => Promise<void>;

export const CHECKS: Record<string, CheckProcedure> = {
  'response-status': responses.responseStatus,
  'response-content-type': responses.responseContentType,
  'response-contract': responses.responseContract,
  'date-order': responses.dateOrder,
  'error-body': responses.errorBody,
  'malformed-id': responses.malformedId,
  'sandbox-open': responses.sandboxOpen,
  'scope-not-needed': responses.scopeNotNeeded,
  'error-content-type': responses.errorContentType,
  'contract-each-car': responses.contractEachCar,
  'error-case': errorCase,
  'query-limit': query.queryLimit,
  'query-range': query.queryRange,
  'query-default-range': query.queryDefaultRange,
  'query-range-accepted': query.queryRangeAccepted,
  'signal-name-filter': query.signalNameFilter,
  'trips-inclusive': query.tripsInclusive,
  'stats-initial-value': query.statsInitialValue,
  'stats-no-data': query.statsNoData,
  'coherence-me-cars': coherence.meCars,
  'coherence-me-user': coherence.meUser,
  'coherence-car-list-items': coherence.carListItems,
  'coherence-trip-list-items': coherence.tripListItems,
  'coherence-trip-stats': coherence.tripStats,
  'coherence-geojson-car': coherence.geojsonCar,
  'coherence-geojson-trip': coherence.geojsonTrip,
  'coherence-trip-window': coherence.tripWindow,
  'car-create': writes.carCreate,
  'car-create-full': writes.carCreateFull,
  'car-create-invalid': writes.carCreateInvalid,
  'device-forbidden': writes.deviceForbidden,
  'device-pin-malformed': writes.devicePinMalformed,
  'device-car-associate': writes.deviceCarAssociate,
  'device-car-associate-again': writes.deviceCarAssociateAgain,
  'device-dissociate': writes.deviceDissociate,
  'device-dissociate-again': writes.deviceDissociateAgain,
  'device-pin-associate': writes.devicePinAssociate,
  'device-pin-wrong': writes.devicePinWrong,
  'device-pin-lockout': writes.devicePinLockout,
  'device-bad-car': writes.deviceBadCar,
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
  'token-invalid-refresh': auth.tokenInvalidRefresh,
  'fuzz-ids': fuzz.fuzzIds,
  'fuzz-query': fuzz.fuzzQuery,
};
