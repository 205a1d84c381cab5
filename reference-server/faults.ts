// Fault registry of the reference server.
//
// A fault is a realistic bug that makes exactly ONE documented behaviour (spec or profile) wrong,
// so that the conformance suite can be shown to catch it (mutation testing). A behaviour the documents
// leave open is never a fault: another choice there is a variant (variants.ts), which the suite must
// accept. The registry below is the single list of faults; each fault is implemented where the
// behaviour lives, guarded by `faults.has('<name>')` (grep the name to find its code path). One fault
// at a time (a variant may run beside it).
//
// A per-route fault (`routes` set) is one kind of bug that can sit in any one route handler: it is
// started as `<name>@<route key>` (e.g. `route-answers-500@GET /cars/:carId/status`, guarded by
// `faults.on('<name>', route)`), and the mutation run tries it on each of its routes in turn. These
// prove each route's instance of a generated check fails, not only the check's code on some route.
//
// This module is the list only: fault specs (`name@route`) are fault-specs.ts, the active fault of
// an app instance is switches.ts, the --list-faults table is registry-tables.ts.

import type { VariantName } from './variants';

export const FAULT_FAMILIES = [
  'records',
  'errors',
  'status',
  'authentication',
  'scopes',
  'cross-user',
  'caches',
  'query',
  'geojson',
  'coherence',
  'devices',
  'car-creation',
  'token-endpoint',
  'sign-in',
  'content-type',
  'sandbox',
] as const;

export type FaultFamily = (typeof FAULT_FAMILIES)[number];

export interface FaultInfo {
  readonly name: string;
  readonly family: FaultFamily;
  readonly description: string;
  /** The mode in which the fault shows (default cloud): sandbox faults change nothing in cloud mode. */
  readonly mode?: 'cloud' | 'sandbox';
  /**
   * A per-route fault: the routes it can be put on (`get`: the protected read routes; `all`: every
   * protected route; `by-id`: the read routes addressed by id, which a sandbox serves without a token).
   */
  readonly routes?: 'get' | 'all' | 'by-id';
  /**
   * The statement of the documents the fault breaks (contracts/statements.yaml): S- the spec's, so the
   * suite's core class must fail against it; P- the profile's. The reference only names the id.
   */
  readonly breaks: `S-${string}` | `P-${string}`;
  /**
   * The variant the fault lives in (the code it breaks runs only there): a run must start the reference
   * with it, on the variant's target (scripts/power-plan.ts faultTarget).
   */
  readonly variant?: VariantName;
  /**
   * The fault lives in the tokens a server issues, not in the long-lived ones a target file may give (a CI
   * gate's target: tokens configured for a test client, and OAuth credentials): `also`, it is proven on
   * such a target as well as with OAuth credentials only; `only`, it shows only where the target names
   * the token (scripts/power-plan.ts faultTargets).
   */
  readonly givenTokens?: 'also' | 'only';
}

export const FAULTS = [
  // records: shapes and date formats
  { name: 'car-date-zulu', family: 'records', description: 'Car creationDate/lastUpdateDate end in "Z" instead of "+00:00"', breaks: 'S-CAR-CREATION-DATE' },
  { name: 'car-id-string', family: 'records', description: 'Car records carry their id as a JSON string instead of an integer', breaks: 'S-CAR-ID' },
  {
    name: 'user-lastname-snake-case',
    family: 'records',
    description: 'User records name the last-name field "last_name" instead of "lastName"',
    breaks: 'P-REC-USER',
  },
  {
    name: 'location-satcount',
    family: 'records',
    description: 'Location records name the satellite count "satCount" instead of "satellites"',
    breaks: 'P-DEC-SATELLITES',
  },
  { name: 'user-by-id-missing-email', family: 'records', description: 'GET /users/{userId} omits the email field', breaks: 'P-REC-USER' },
  { name: 'signal-value-string', family: 'records', description: 'Signal values are serialized as strings instead of numbers', breaks: 'P-REC-SIGNAL' },
  {
    name: 'status-empty-signals-null',
    family: 'records',
    description: 'Status of a car without data has signals null instead of an empty array',
    breaks: 'P-REC-STATUS',
  },
  {
    name: 'me-cars-date-zulu',
    family: 'records',
    description: 'GET /users/me/cars writes the car dates with "Z" (its own serializer); every other route keeps "+00:00"',
    breaks: 'S-CAR-CREATION-DATE',
  },
  {
    name: 'car-no-device-empty-string',
    family: 'records',
    description: 'A car without a device has deviceId "" (an empty column) instead of null',
    breaks: 'S-CAR-DEVICE-ID',
  },
  {
    name: 'status-signal-value-2',
    family: 'records',
    description: 'The LockSts signal reports 2 for "locked" instead of 1 (signal routes and status)',
    breaks: 'P-SIGNAL-NAMES',
  },

  // errors: error body shape and texts
  {
    name: 'error-body-object-not-array',
    family: 'errors',
    description: 'Error bodies are a single {type,message,tip} object instead of an array',
    breaks: 'S-ERRORS-BODY',
  },
  { name: 'error-tip-missing', family: 'errors', description: 'Error objects have no tip field', breaks: 'S-ERRORS-BODY' },
  {
    name: 'parameters-error-singular',
    family: 'errors',
    description: 'Parameter errors use type "PARAMETER_ERROR" instead of "PARAMETERS_ERROR"',
    breaks: 'S-ERRORS-TYPES',
  },
  {
    name: 'trip-stats-not-found-lowercase',
    family: 'errors',
    description: 'Trip stats mileage/usedtime routes answer "trip not found" (lower case)',
    breaks: 'P-DEC-MESSAGE-CASE',
  },
  {
    name: 'conflict-error-object',
    family: 'errors',
    description: 'The device routes answer a conflict (409) with a single {type,message,tip} object instead of an array',
    breaks: 'S-ERRORS-BODY',
  },
  { name: 'range-error-no-tip', family: 'errors', description: 'The range errors (416 "Range issue in dates") carry no tip', breaks: 'S-ERRORS-BODY' },
  {
    name: 'not-found-message-generic',
    family: 'errors',
    description: 'Unknown user/car answers "Resource not found" instead of "User not found"/"Car not found"',
    breaks: 'S-USER-CARS-ERR-NOT-FOUND',
  },

  // status
  {
    name: 'user-id-beyond-32-bits-500',
    family: 'status',
    description: 'A user id beyond 32 bits fails with 500 (read into a 32-bit integer) instead of 404 "User not found"',
    breaks: 'S-USER-CARS-ERR-NOT-FOUND',
  },
  {
    name: 'unknown-car-500',
    family: 'status',
    description: 'A well-formed but unknown car id answers 500 instead of 404 on car routes',
    breaks: 'P-ERR-NOT-FOUND',
  },
  { name: 'created-car-200', family: 'status', description: 'POST /users/{userId}/cars answers 200 instead of 201', breaks: 'P-ROUTE-SUCCESS' },
  {
    name: 'device-associate-200',
    family: 'status',
    description: 'Associating a device with a car answers 200 with a body instead of 204',
    breaks: 'P-ROUTE-SUCCESS',
  },
  {
    name: 'range-issue-400',
    family: 'status',
    description: 'Date range issues (begin after end, range too long) answer 400 instead of 416',
    breaks: 'P-ERR-RANGE-REVERSED',
  },

  // authentication
  { name: 'expired-token-accepted', family: 'authentication', description: 'Expired access tokens are accepted', breaks: 'P-ERR-AUTH-EXPIRED' },
  { name: 'revoked-token-accepted', family: 'authentication', description: 'Revoked access tokens are accepted', breaks: 'P-ERR-AUTH-REVOKED' },
  {
    name: 'missing-auth-403',
    family: 'authentication',
    description: 'A missing Authorization header answers 403 instead of 401',
    breaks: 'P-ERR-AUTH-MISSING',
  },
  {
    name: 'malformed-auth-invalid-token',
    family: 'authentication',
    description: 'A malformed Authorization header answers "Invalid token" instead of "Authorization is malformed"',
    breaks: 'P-ERR-AUTH-MALFORMED',
  },
  {
    name: 'expired-token-401',
    family: 'authentication',
    description: 'An expired token answers 401 AUTHENTICATION_ERROR instead of 403 AUTHORIZATION_ERROR',
    breaks: 'P-ERR-AUTH-EXPIRED',
  },
  {
    name: 'expired-token-revoked',
    family: 'authentication',
    description: 'An expired token answers 403 "Token has been revoked" (the two refusals share one message)',
    breaks: 'P-ERR-AUTH-EXPIRED',
  },
  {
    name: 'auth-checked-after-existence',
    family: 'authentication',
    description: 'Unknown ids answer 404 before authentication is checked (existence leak)',
    breaks: 'P-DEC-CHECK-ORDER',
  },
  {
    name: 'unknown-token-revoked',
    family: 'authentication',
    description: 'An unknown token answers 403 AUTHORIZATION_ERROR "Token has been revoked" instead of 401 "Invalid token"',
    breaks: 'P-ERR-AUTH-INVALID',
  },
  {
    name: 'refresh-token-as-access',
    family: 'authentication',
    description: 'A refresh token is taken as a bearer token (one table of tokens, their kind never read): it reads what its grant does',
    breaks: 'S-AUTH-BEARER',
    givenTokens: 'also',
  },
  {
    name: 'issued-tokens-prefix-match',
    family: 'authentication',
    description:
      "The tokens a grant issued are looked up in their store as a prefix (a LIKE 'token%' query; configured long-lived tokens exactly): an issued token with its last character dropped is taken",
    breaks: 'S-AUTH-BEARER',
    givenTokens: 'also',
  },
  {
    name: 'issued-tokens-lifetime-ms',
    family: 'authentication',
    description:
      'The store of issued tokens keeps each for its lifetime read as milliseconds: expires_in says 3600 s, the token is refused as expired 3.6 s after its issue (configured long-lived tokens keep theirs)',
    breaks: 'P-REC-TOKEN',
    givenTokens: 'also',
  },
  {
    name: 'expired-token-invalid',
    family: 'authentication',
    description:
      'An expired token answers 401 AUTHENTICATION_ERROR "Invalid token" instead of 403 "Token has expired" (the verification library\'s expiry error mapped, with all its others, to an unknown token)',
    breaks: 'P-ERR-AUTH-EXPIRED',
    givenTokens: 'only',
  },
  {
    name: 'jwt-alg-none-accepted',
    family: 'authentication',
    description:
      'A JWT access token whose header names the algorithm "none" (in any case) is taken without a signature: its claims, edited at will, are believed',
    breaks: 'S-AUTH-BEARER',
    variant: 'jwt-access-tokens',
  },
  {
    name: 'jwt-signature-not-verified',
    family: 'authentication',
    description:
      "JWT access tokens are decoded instead of verified: a token whose claims were edited (another user's subject, more scopes, a later expiry) is taken",
    breaks: 'S-AUTH-BEARER',
    variant: 'jwt-access-tokens',
  },
  {
    name: 'jwt-stripped-signature-accepted',
    family: 'authentication',
    description: 'A JWT access token with an empty signature is taken unverified (the verification runs only where a signature is present)',
    breaks: 'S-AUTH-BEARER',
    variant: 'jwt-access-tokens',
  },
  {
    name: 'jwt-hmac-public-key-accepted',
    family: 'authentication',
    description:
      "A JWT access token naming HS256 is verified as HMAC keyed with the server's public key (the algorithm taken from the token): one forged with the published key is taken (algorithm confusion)",
    breaks: 'S-AUTH-BEARER',
    variant: 'jwt-access-tokens',
  },
  {
    name: 'bearer-scheme-not-checked',
    family: 'authentication',
    description: 'The Bearer scheme is not checked: the last word of the Authorization header is taken as the token ("Basic <token>" is served)',
    breaks: 'P-ERR-AUTH-MALFORMED',
  },
  {
    name: 'bearer-without-token-500',
    family: 'authentication',
    description: 'An Authorization header "Bearer" without a token fails with 500 (the token is read as the second word of the header)',
    breaks: 'S-ERRORS-TYPE-AUTHENTICATION',
  },
  {
    name: 'unknown-token-as-first-user',
    family: 'authentication',
    description: 'A token the server never issued falls back to a default session (the first user, every scope) instead of 401',
    breaks: 'S-AUTH-BEARER',
  },
  {
    name: 'status-route-unprotected',
    family: 'authentication',
    description: 'In the cloud, GET /cars/{carId}/status answers without any Authorization (the route misses the auth hook)',
    breaks: 'S-HOSTS-CLOUD',
  },
  {
    name: 'status-says-token-expired',
    family: 'authentication',
    description: 'GET /cars/{carId}/status refuses every valid token as expired (403 "Token has expired": its expiry compared with a clock in seconds)',
    breaks: 'S-ENDPOINT-PURPOSE',
  },

  // scopes (incl. the scope map)
  {
    name: 'scope-map-status-needs-cars-read',
    family: 'scopes',
    description: 'GET /cars/{carId}/status requires cars_read instead of status_read',
    breaks: 'P-ROUTE-SCOPES',
  },
  {
    name: 'missing-scope-tip-omits-scope',
    family: 'scopes',
    description: 'The missing-scope tip does not name the missing scope',
    breaks: 'S-AUTH-MISSING-SCOPE-TIP',
  },
  {
    name: 'scope-tip-names-first-scope',
    family: 'scopes',
    description: "The missing-scope tip names the route's first scope, whichever is missing (wrong on the routes that need two)",
    breaks: 'S-AUTH-MISSING-SCOPE-TIP',
  },
  {
    name: 'trip-locations-skip-locations-scope',
    family: 'scopes',
    description: 'GET /trips/{tripId}/locations only requires trips_read (locations_read not checked)',
    breaks: 'P-ROUTE-SCOPES',
  },
  { name: 'car-stats-need-trips-read', family: 'scopes', description: 'Car stats routes require trips_read instead of signals_read', breaks: 'P-ROUTE-SCOPES' },
  {
    name: 'missing-scope-401',
    family: 'scopes',
    description: 'A missing scope answers 401 AUTHENTICATION_ERROR instead of 403 AUTHORIZATION_ERROR',
    breaks: 'S-AUTH-MISSING-SCOPE',
  },
  {
    name: 'devices-scope-not-checked',
    family: 'scopes',
    description: 'Device routes do not require the devices_management scope',
    breaks: 'S-AUTH-DEVICE-SCOPE',
  },
  {
    name: 'scope-not-restricted-to-app',
    family: 'scopes',
    description: 'The sign-in page grants every requested scope, not only those the application has (devices_management to any application)',
    breaks: 'S-DEVICES-SCOPE-RESTRICTED',
  },
  {
    name: 'dissociate-scope-reconnect-only',
    family: 'scopes',
    description:
      "Dissociation counts as missing only the scopes reconnecting would add (those of the token's application): a scope the application does not have is never missing, so any application dissociates devices",
    breaks: 'S-DEVICES-SCOPE-RESTRICTED',
  },
  {
    name: 'pin-scope-reconnect-only',
    family: 'scopes',
    description:
      "Pin association counts as missing only the scopes reconnecting would add (those of the token's application): a scope the application does not have is never missing, so any application associates devices by pin",
    breaks: 'S-DEVICES-SCOPE-RESTRICTED',
  },
  { name: 'scope-checked-after-existence', family: 'scopes', description: 'Unknown ids answer 404 before the scope is checked', breaks: 'P-DEC-CHECK-ORDER' },
  {
    name: 'access-checked-before-scope',
    family: 'scopes',
    description: 'The access check runs before the scope check: another user\'s resource answers "Token can\'t access" to a token without the scope',
    breaks: 'P-DEC-CHECK-ORDER',
  },

  // cross-user
  { name: 'cross-user-trip-readable', family: 'cross-user', description: "Another user's trip is readable at GET /trips/{tripId}", breaks: 'P-ERR-FORBIDDEN' },
  { name: 'cross-user-car-readable', family: 'cross-user', description: "Another user's car is readable at GET /cars/{carId}", breaks: 'P-ERR-FORBIDDEN' },
  {
    name: 'cross-user-user-cars-readable',
    family: 'cross-user',
    description: "Another user's car list is readable at GET /users/{userId}/cars",
    breaks: 'S-USER-CARS-ERR-ACCESS',
  },
  {
    name: 'cross-user-trip-message-car',
    family: 'cross-user',
    description: 'Access to another user\'s trip is refused with "Token can\'t access this car"',
    breaks: 'P-ERR-FORBIDDEN',
  },
  { name: 'cross-user-car-create', family: 'cross-user', description: 'A token can create a car for another user', breaks: 'S-AUTH-USER-ACCESS' },
  { name: 'cross-user-user-readable', family: 'cross-user', description: 'Another user is readable at GET /users/{userId}', breaks: 'S-AUTH-USER-ACCESS' },
  {
    name: 'associate-car-owner-unchecked',
    family: 'cross-user',
    description: "Car association checks who owns the device, never who owns the car: a token puts its free device on another user's car",
    breaks: 'P-DEV-403',
  },
  {
    name: 'associate-device-owner-user-link',
    family: 'cross-user',
    description:
      "Car association reads a device's owner from its user link alone: another user's device, linked to their car by its installer, is refused as already associated (409), not as theirs (403)",
    breaks: 'P-DEV-403',
  },
  {
    name: 'dissociate-owner-user-link',
    family: 'cross-user',
    description:
      "Dissociation reads a device's owner from its user link, not from its car: anyone can dissociate another user's device linked to their car by its installer",
    breaks: 'P-DEV-403',
  },
  {
    name: 'associate-device-owner-unchecked',
    family: 'cross-user',
    description:
      'Car association checks who owns the car, never who owns the device: another user puts a device linked to the first by its pin on their own car, taking it',
    breaks: 'P-DEV-403',
  },
  {
    name: 'dissociate-user-link-unchecked',
    family: 'cross-user',
    description: "Dissociation checks the owner of a device on a car only: another user's token dissociates a device linked to the first by its pin",
    breaks: 'P-DEV-403',
  },
  {
    name: 'pin-link-per-user',
    family: 'cross-user',
    description:
      "Pin association counts only the token's own user's link as associated: another user giving the pin of a device linked to the first by its pin takes it (204)",
    breaks: 'P-DEV-403',
  },

  // caches: an answer kept for another user
  {
    name: 'response-cache-shared',
    family: 'caches',
    description:
      "One read route's successes are kept 5 s by a cache keyed by method and URL alone: right after a success, a request without a token, with a token without scopes or with another user's token gets the same answer (per route)",
    routes: 'get',
    breaks: 'S-AUTH-CLOUD-ONLY',
  },
  {
    name: 'response-cache-by-scopes',
    family: 'caches',
    description:
      "The cars' and trips' read routes keep their successes 5 s by URL and the token's scopes, not its user: another user's token with the same scopes gets the first user's car or trip",
    breaks: 'P-ERR-FORBIDDEN',
  },
  {
    name: 'personal-data-cache-public',
    family: 'caches',
    description:
      "One read route's answers say Cache-Control: public, max-age=300 (a CDN rule for public pages put on the API): a shared cache may give one user's data to another for five minutes (per route)",
    routes: 'get',
    breaks: 'P-HOSTS-BASE',
  },
  {
    name: 'token-answer-cacheable',
    family: 'caches',
    description:
      "The token endpoint's answers carry the API's default Cache-Control: private, max-age=300 instead of no-store (the browser's cache keeps the tokens)",
    breaks: 'P-TOKEN-REQUEST',
  },

  // query parameters
  { name: 'limit-ignored', family: 'query', description: 'The limit parameter is ignored', breaks: 'P-QUERY-LIMIT' },
  { name: 'limit-negative-accepted', family: 'query', description: 'A negative limit is accepted (treated as no limit) instead of 400', breaks: 'P-ERR-LIMIT' },
  {
    name: 'range-too-long-accepted',
    family: 'query',
    description: 'begin and end more than one month apart are accepted instead of 416',
    breaks: 'P-ERR-RANGE-TOO-LONG',
  },
  {
    name: 'begin-after-end-accepted',
    family: 'query',
    description: 'begin after end answers 200 with no items instead of 416',
    breaks: 'P-ERR-RANGE-REVERSED',
  },
  {
    name: 'default-begin-paris-time',
    family: 'query',
    description: 'Default begin is the 1st of the month 00:00 Europe/Paris instead of UTC',
    breaks: 'P-QUERY-RANGE-DEFAULT',
  },
  { name: 'name-filter-ignored', family: 'query', description: 'The name parameter of the signal routes is ignored', breaks: 'P-QUERY-NAME' },
  {
    name: 'unknown-signal-name-accepted',
    family: 'query',
    description: 'An unknown signal name in name is silently dropped instead of 400',
    breaks: 'P-ERR-SIGNAL-NAME',
  },
  { name: 'inclusive-inverted', family: 'query', description: 'inclusive on car trips behaves inverted (default acts as true)', breaks: 'P-QUERY-INCLUSIVE' },
  { name: 'initial-value-ignored', family: 'query', description: 'initialValue on car stats is ignored', breaks: 'P-QUERY-INITIAL-VALUE' },
  {
    name: 'initial-value-parse-int',
    family: 'query',
    description: 'initialValue on car stats is read with parseInt: its fraction is dropped (initialValue=1234.75 adds 1234)',
    breaks: 'P-QUERY-INITIAL-VALUE',
  },
  {
    name: 'unparseable-date-ignored',
    family: 'query',
    description: 'An unparseable begin/end falls back to the default instead of 400',
    breaks: 'P-DEC-UNPARSEABLE-DATES',
  },
  {
    name: 'query-checked-before-access',
    family: 'query',
    description: "Query parameters are validated before access (400 instead of 403 on another user's car)",
    breaks: 'P-DEC-CHECK-ORDER',
  },
  {
    name: 'query-checked-before-existence',
    family: 'query',
    description: 'Query parameters are validated before the id lookup (400 instead of 404 for an unknown car with a bad parameter)',
    breaks: 'P-DEC-CHECK-ORDER',
  },
  {
    name: 'range-limit-one-week',
    family: 'query',
    description: 'begin and end more than 7 days apart answer 416 (the limit is one month)',
    breaks: 'P-DEC-MONTH',
  },
  {
    name: 'locations-end-ignored',
    family: 'query',
    description: 'GET /cars/{carId}/locations ignores end (locations after it are returned)',
    breaks: 'P-QUERY-RANGE',
  },
  { name: 'trips-end-ignored', family: 'query', description: 'GET /cars/{carId}/trips ignores end (trips after it are listed)', breaks: 'P-QUERY-RANGE' },
  {
    name: 'range-only-begin-unchecked',
    family: 'query',
    description: 'With only begin given (end defaults to now), the one-month limit is not checked',
    breaks: 'P-ERR-RANGE-TOO-LONG',
  },
  {
    name: 'unknown-signal-name-mixed-accepted',
    family: 'query',
    description: 'An unknown signal name mixed with known ones is dropped silently (400 only when no name is known)',
    breaks: 'P-ERR-SIGNAL-NAME',
  },
  {
    name: 'signal-name-case-insensitive',
    family: 'query',
    description: 'Signal names in name= are matched whatever their case: name=locksts answers the LockSts signals instead of 400 "Wrong signal name"',
    breaks: 'P-ERR-SIGNAL-NAME',
  },
  {
    name: 'default-end-ten-minutes-ago',
    family: 'query',
    description: 'Without end, the default end is now minus 10 minutes instead of now',
    breaks: 'P-QUERY-RANGE-DEFAULT',
  },
  {
    name: 'range-end-truncated-to-minute',
    family: 'query',
    description: 'end is rounded down to the whole minute before filtering (items in its last seconds are dropped)',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'name-filter-latest-only',
    family: 'query',
    description: 'With name, only the latest signal of each named signal is returned',
    breaks: 'P-QUERY-NAME',
  },
  {
    name: 'range-equal-refused',
    family: 'query',
    description: 'begin equal to end is refused with 416 like begin after end (the empty range is valid)',
    breaks: 'P-ERR-RANGE-REVERSED',
  },
  {
    name: 'date-param-offset-only',
    family: 'query',
    description: 'begin/end are accepted only as whole seconds with a +hh:mm offset: Z and fractional seconds answer 400',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'range-offset-dropped',
    family: 'query',
    description: 'begin and end written as a local time with a non-zero offset are read as that wall-clock time in UTC (the offset dropped)',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'range-offset-sign-inverted',
    family: 'query',
    description: 'begin and end written with a non-zero offset have the offset added instead of subtracted',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'range-bound-whole-seconds',
    family: 'query',
    description: 'begin and end are read to the whole second (their fraction dropped): begin=...:00.999Z lists an item dated ...:00.500Z',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'limit-per-signal-name',
    family: 'query',
    description: 'GET /cars/{carId}/signals with several names applies limit to each name: limit items of every name',
    breaks: 'P-QUERY-LIMIT',
  },
  {
    name: 'initial-value-ignored-with-range',
    family: 'query',
    description: 'The car stats drop initialValue when begin or end is given (initialValue alone is applied)',
    breaks: 'P-QUERY-INITIAL-VALUE',
  },
  {
    name: 'inclusive-end-only',
    family: 'query',
    description: 'inclusive=true adds the trips that ended in the range, not those that began in it and end after it',
    breaks: 'P-QUERY-INCLUSIVE',
  },
  {
    name: 'limit-before-range',
    family: 'query',
    description: 'The limit is applied to the whole history before the range filter: a range in the past answers fewer items than the limit, or none',
    breaks: 'P-QUERY-LIMIT',
  },
  {
    name: 'limit-skips-default-range',
    family: 'query',
    description:
      'With limit and no begin/end, the answer is the limit most recent items of the whole history (a "latest n" shortcut that skips the default range)',
    breaks: 'P-QUERY-RANGE-DEFAULT',
  },
  {
    name: 'name-filter-substring',
    family: 'query',
    description: 'The name filter keeps every signal whose name contains a requested name (LIKE %name%): name=FuelLevel also answers ComputedFuelLevel',
    breaks: 'P-QUERY-NAME',
  },
  {
    name: 'name-filter-single-ignored',
    family: 'query',
    description: 'The name filter is applied only to a list of names: a single name (no comma) is ignored and every signal is answered',
    breaks: 'P-QUERY-NAME',
  },
  {
    name: 'inclusive-ignores-range',
    family: 'query',
    description:
      'inclusive=true tests overlap with OR instead of AND (began before end or ended after begin): every trip of the car, wholly outside the range too',
    breaks: 'P-QUERY-INCLUSIVE',
  },

  // geojson
  { name: 'geojson-lat-lon-swapped', family: 'geojson', description: 'GeoJSON coordinates are [latitude, longitude]', breaks: 'S-ENDPOINT-PURPOSE' },
  { name: 'trip-geojson-points', family: 'geojson', description: 'Trip GeoJSON is an array of Points instead of a LineString', breaks: 'P-REC-GEOJSON-TRIP' },
  {
    name: 'car-geojson-feature-collection',
    family: 'geojson',
    description: 'Car GeoJSON is a FeatureCollection instead of an array of Points',
    breaks: 'P-REC-GEOJSON-CAR',
  },
  { name: 'geojson-limit-ignored', family: 'geojson', description: 'Car locations.geojson ignores limit', breaks: 'P-QUERY-LIMIT' },
  {
    name: 'geojson-range-ignored',
    family: 'geojson',
    description: 'Car locations.geojson ignores begin and end: the whole location history',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'geojson-range-default-only',
    family: 'geojson',
    description: 'Car locations.geojson ignores begin and end: always the default range (the 1st of the month 00:00 UTC to now)',
    breaks: 'P-QUERY-RANGE',
  },
  { name: 'trip-geojson-drops-last-point', family: 'geojson', description: 'Trip GeoJSON LineString misses the last location', breaks: 'S-ENDPOINT-PURPOSE' },

  // coherence
  { name: 'trip-mileage-miles', family: 'coherence', description: 'GET /trips/{tripId} mileage is in miles while the stats are in km', breaks: 'P-REC-TRIP' },
  { name: 'trip-usedtime-ms', family: 'coherence', description: 'GET /trips/{tripId} usedTime is in milliseconds', breaks: 'P-REC-TRIP' },
  { name: 'car-stats-all-time', family: 'coherence', description: 'Car stats sum every trip, ignoring the begin/end range', breaks: 'P-QUERY-RANGE' },
  {
    name: 'car-stats-range-ignored',
    family: 'coherence',
    description: 'Car stats are always those of the default range (this month), whatever begin and end ask',
    breaks: 'P-QUERY-RANGE',
  },
  {
    name: 'car-usedtime-ms',
    family: 'coherence',
    description: 'Car stats usedtime is summed in milliseconds (the value outgrows the range it covers)',
    breaks: 'P-REC-CAR-STAT',
  },
  {
    name: 'trip-list-dates-shifted',
    family: 'coherence',
    description: 'GET /cars/{carId}/trips lists each trip with beginDate one hour earlier than GET /trips/{tripId} says',
    breaks: 'P-REC-TRIP-SUMMARY',
  },
  {
    name: 'trip-stats-usedtime-minutes',
    family: 'coherence',
    description: 'GET /trips/{tripId}/stats gives USED_TIME in minutes while the trip record and stats/usedtime give seconds',
    breaks: 'P-REC-TRIP-STAT',
  },
  {
    name: 'trip-signals-unfiltered',
    family: 'coherence',
    description: "Trip signals return the car's whole signal history, not only during the trip",
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'me-cars-only-with-device',
    family: 'coherence',
    description: 'GET /users/me/cars lists only the cars that have a device',
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  { name: 'user-by-id-names-swapped', family: 'coherence', description: 'GET /users/{userId} swaps firstName and lastName', breaks: 'P-REC-USER' },
  {
    name: 'users-me-first-user',
    family: 'coherence',
    description: 'GET /users/me answers the first user of the store whoever the token belongs to',
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'created-car-no-owner-check',
    family: 'coherence',
    description: 'A car created through POST /users/{userId}/cars has no owner check: any token with the scope reads it and its sub-routes',
    breaks: 'P-ERR-FORBIDDEN',
  },
  {
    name: 'created-car-subroutes-unchecked',
    family: 'coherence',
    description: "A created car's sub-routes (status, locations, signals, trips, stats) have no owner check; GET /cars/{carId} keeps it",
    breaks: 'P-ERR-FORBIDDEN',
  },
  {
    name: 'me-cars-omit-created',
    family: 'coherence',
    description: 'GET /users/me/cars leaves out the cars created for the connected user (GET /users/{userId}/cars lists them)',
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'me-cars-all-users',
    family: 'coherence',
    description: "GET /users/me/cars lists every user's cars (the query has no user filter)",
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'trip-list-ids-uppercase',
    family: 'coherence',
    description: 'GET /cars/{carId}/trips writes trip ids in upper case, which GET /trips/{tripId} does not find',
    breaks: 'S-TRIPS-OF-CAR',
  },
  {
    name: 'car-by-id-first-car',
    family: 'coherence',
    description:
      "GET /cars/{carId} answers the first car of the asked car's owner, whichever of their cars is asked (the lookup keeps the owner and drops the id)",
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'trip-by-id-latest-trip',
    family: 'coherence',
    description: "GET /trips/{tripId} answers the latest trip of the asked trip's car, whichever of its trips is asked",
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'car-trips-all-user-cars',
    family: 'coherence',
    description: "GET /cars/{carId}/trips lists the trips of every car of the car's owner (the query filters on the user, not the car)",
    breaks: 'S-TRIPS-OF-CAR',
  },

  // devices
  { name: 'dissociate-leaves-deviceId', family: 'devices', description: "Dissociation leaves the car's deviceId set", breaks: 'S-CAR-DEVICE-ID' },
  { name: 'pin-lockout-never', family: 'devices', description: 'Pin association never locks out after 3 failed attempts', breaks: 'P-DEV-403' },
  {
    name: 'device-404-type-not-found',
    family: 'devices',
    description: 'Unknown device answers type "NOT_FOUND" instead of PARAMETERS_ERROR',
    breaks: 'S-ERRORS-TYPES',
  },
  {
    name: 'device-already-associated-400',
    family: 'devices',
    description: 'Associating an already associated device answers 400 instead of 409',
    breaks: 'P-DEV-409-ASSOCIATE',
  },
  { name: 'associate-leaves-deviceId-null', family: 'devices', description: "Car association does not set the car's deviceId", breaks: 'S-CAR-DEVICE-ID' },
  { name: 'pin-not-checked', family: 'devices', description: 'Any well-formed pin associates the device', breaks: 'P-DEV-400' },
  {
    name: 'dissociate-unknown-device-409',
    family: 'devices',
    description: 'Dissociating a device that does not exist answers 409 instead of 404',
    breaks: 'P-DEV-404',
  },
  {
    name: 'dissociate-unassociated-204',
    family: 'devices',
    description: 'Dissociating a device that is not associated answers 204 instead of 409',
    breaks: 'P-DEV-409-DISSOCIATE',
  },
  {
    name: 'pin-associate-200',
    family: 'devices',
    description: 'Associating a device by pin answers 200 with a body instead of 204',
    breaks: 'P-ROUTE-SUCCESS',
  },
  {
    name: 'malformed-carid-404',
    family: 'devices',
    description: 'A malformed carId when associating a device answers 404 "Car not found" instead of 400',
    breaks: 'P-DEV-400',
  },
  {
    name: 'device-owner-not-checked',
    family: 'devices',
    description: "Another user's token can dissociate a device associated with alice's car (403 expected)",
    breaks: 'P-DEV-403',
  },
  { name: 'malformed-device-id-500', family: 'devices', description: 'A malformed device id answers 500 instead of 400', breaks: 'P-DEV-400' },
  { name: 'malformed-pin-500', family: 'devices', description: 'A malformed pin answers 500 instead of 400', breaks: 'P-DEV-400' },
  { name: 'unknown-device-400', family: 'devices', description: 'A well-formed device id that does not exist answers 400 instead of 404', breaks: 'P-DEV-404' },
  {
    name: 'device-id-case-insensitive',
    family: 'devices',
    description:
      "A device id is looked up whatever its case: the serial with its letters' case changed names that device (dissociating vdsref0101 dissociates VDSREF0101)",
    breaks: 'P-DEV-404',
  },
  {
    name: 'pin-failures-per-user',
    family: 'devices',
    description: "Failed pin attempts are counted per device and user: another user's wrong pins never count towards a device's lock, so two accounts guess on",
    breaks: 'P-DEV-403',
  },
  {
    name: 'pin-lockout-right-pin-accepted',
    family: 'devices',
    description: 'After 3 failed pin attempts only wrong pins are refused (403); the right pin still associates',
    breaks: 'P-DEV-403',
  },
  {
    name: 'associate-check-then-act',
    family: 'devices',
    description:
      'Car association waits for its audit write between the "already associated?" check and the write: two concurrent associations of one free device both succeed',
    breaks: 'P-DEV-409-ASSOCIATE',
  },
  {
    name: 'pin-failures-lost-update',
    family: 'devices',
    description:
      'A wrong pin is counted read-modify-write around an awaited audit write: wrong pins sent together count once, and the lock after three failures does not come',
    breaks: 'P-DEV-403',
  },
  {
    name: 'pin-compared-as-number',
    family: 'devices',
    description: 'The pin is read as a number (any digits) and compared numerically: the pin with a leading zero associates the device',
    breaks: 'P-DEV-400',
  },
  {
    name: 'pin-association-500',
    family: 'devices',
    description: 'Associating a device by its right pin fails with 500 (the user link is never saved)',
    breaks: 'S-DEVICES-OPERATIONS',
  },
  {
    name: 'dissociate-check-then-act',
    family: 'devices',
    description:
      'Dissociation waits for its audit write between the "is it associated?" check and the write: two concurrent dissociations of one device both answer 204',
    breaks: 'P-DEV-409-DISSOCIATE',
  },
  {
    name: 'associate-conflict-same-car-only',
    family: 'devices',
    description:
      'Car association refuses a device already on a car only when the request names that same car: naming another car of the user moves the device there (204)',
    breaks: 'P-DEV-409-ASSOCIATE',
  },
  {
    name: 'pin-associate-ignores-car-link',
    family: 'devices',
    description: "Pin association looks for an earlier pin link only: a device already on the user's car is linked to the user again by its right pin (204)",
    breaks: 'P-DEV-409-ASSOCIATE',
  },

  // car creation
  { name: 'created-car-missing-timezone', family: 'car-creation', description: 'The created-car answer has no timezone field', breaks: 'P-REC-CREATED-CAR' },
  {
    name: 'created-car-ignores-timezone',
    family: 'car-creation',
    description: "The body's timezone is validated but ignored: the created car always has Europe/Paris",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'created-car-default-timezone-utc',
    family: 'car-creation',
    description: 'The default timezone of a created car is UTC instead of Europe/Paris',
    breaks: 'P-REC-CREATED-CAR',
  },
  { name: 'car-create-short-make-accepted', family: 'car-creation', description: 'A make shorter than 3 characters is accepted', breaks: 'P-CREATE-BODY' },
  {
    name: 'car-create-bad-timezone-accepted',
    family: 'car-creation',
    description: 'A timezone that is not an IANA zone name is accepted',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'created-car-not-listed',
    family: 'car-creation',
    description: "A created car does not appear in the user's car lists",
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'car-create-array-body-500',
    family: 'car-creation',
    description: 'A JSON body that is not an object answers 500 instead of 400',
    breaks: 'P-ERR-CREATE-BODY',
  },
  { name: 'car-create-model-optional', family: 'car-creation', description: 'A car without model is accepted', breaks: 'P-CREATE-BODY' },
  {
    name: 'car-text-latin1',
    family: 'car-creation',
    description: 'The car creation body is decoded as Latin-1: accents and emoji come back garbled',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-create-64-refused',
    family: 'car-creation',
    description: 'A make, model, name or numberPlate of exactly 64 characters is refused (the maximum compared with >=)',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'created-car-id-reused',
    family: 'car-creation',
    description: 'Every created car gets the same id (the id counter is never moved on): the second replaces the first',
    breaks: 'S-CAR-ID',
  },
  {
    name: 'created-car-id-race',
    family: 'car-creation',
    description:
      'A new car takes the next id before an awaited car-type lookup and is stored after it: two cars created together get one id, the second replacing the first',
    breaks: 'S-CAR-ID',
  },
  {
    name: 'car-create-make-3-refused',
    family: 'car-creation',
    description: "A make of exactly 3 characters is refused (make's minimum compared with >)",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-create-model-64-refused',
    family: 'car-creation',
    description: "A model of exactly 64 characters is refused (model's maximum compared with >=; the other fields keep theirs)",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-create-empty-name-refused',
    family: 'car-creation',
    description: 'An empty name is refused (name validated as 1..64 when present)',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-create-empty-plate-refused',
    family: 'car-creation',
    description: 'An empty numberPlate is refused (a blank plate fails the plate check)',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-create-body-user-id',
    family: 'car-creation',
    description: "Car creation takes a userId member of the body over the path's user: a car offered another user's id is created for that user",
    breaks: 'S-ENDPOINT-PURPOSE',
  },
  {
    name: 'car-create-body-id',
    family: 'car-creation',
    description: "Car creation takes an id member of the body as the new car's id: a car offered another car's id replaces that car (another user's too)",
    breaks: 'S-CAR-ID',
  },
  {
    name: 'car-create-body-members',
    family: 'car-creation',
    description:
      "Car creation copies the body's other members of the car record onto the new car (cardbId, creationDate, lastUpdateDate), setting id, userId and deviceId itself",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-create-body-device',
    family: 'car-creation',
    description:
      "Car creation writes a deviceId member of the body into the new car's device column: a car gets a device (another user's too) without the device routes or their restricted scope",
    breaks: 'S-CAR-DEVICE-ID',
  },
  {
    name: 'car-text-utf8mb3',
    family: 'car-creation',
    description:
      "Car texts are stored in a utf8mb3 column behind a utf8mb4 connection: each character outside the Basic Multilingual Plane (an emoji, a CJK Extension B ideograph) is kept as '?'",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-text-astral-stripped',
    family: 'car-creation',
    description:
      'An emoji filter in front of a utf8mb3 column removes the characters outside the Basic Multilingual Plane from car texts before they are validated: a name of 64 of them is stored empty, one of 65 taken',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-text-markup-escaped',
    family: 'car-creation',
    description: 'Car texts are HTML-escaped on the way in (htmlspecialchars on input): & < > " \' are stored and answered as &amp; &lt; &gt; &quot; &#039;',
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-text-length-utf16',
    family: 'car-creation',
    description:
      "Car text lengths are counted in UTF-16 code units (JavaScript's and Java's String length): 64 characters outside the Basic Multilingual Plane are refused as 128, a make of 2 of them taken",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-text-length-bytes',
    family: 'car-creation',
    description:
      "Car text lengths are counted in UTF-8 bytes (Go's len, a byte-length column): 64 accented, CJK or emoji characters are refused, a make of one emoji taken",
    breaks: 'P-CREATE-BODY',
  },
  {
    name: 'car-text-controls-stripped',
    family: 'car-creation',
    description:
      "Car texts pass a sanitizer that deletes control characters (C0 and DEL, as PHP's FILTER_FLAG_STRIP_LOW): a name with a tab or a NUL inside is stored without it",
    breaks: 'P-CREATE-BODY',
  },

  // token endpoint
  { name: 'auth-code-reusable', family: 'token-endpoint', description: 'An authorization code can be exchanged more than once', breaks: 'P-DEC-AUTH-CODES' },
  {
    name: 'refresh-answer-without-refresh-token',
    family: 'token-endpoint',
    description: 'The refresh_token grant answers a token record without refresh_token',
    breaks: 'P-REC-TOKEN',
  },
  {
    name: 'invalid-code-array-body',
    family: 'token-endpoint',
    description: 'An invalid code answers an error array instead of the legacy {"message"} body',
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'invalid-refresh-array-body',
    family: 'token-endpoint',
    description: 'An invalid refresh token answers an error array instead of the legacy {"message"} body',
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'oidc-token-without-expires-at',
    family: 'token-endpoint',
    variant: 'authorization-server-oidc',
    description: "The authorization server's adapter passes oidc-provider's token answer on as it is: expires_in, but no expires_at",
    breaks: 'P-REC-TOKEN',
  },
  {
    name: 'oidc-invalid-grant-passed-through',
    family: 'token-endpoint',
    variant: 'authorization-server-oidc',
    description:
      'The authorization server\'s adapter leaves oidc-provider\'s invalid_grant as it is: an invalid code or refresh token answers 400 {"error": "invalid_grant", ...}',
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'jwt-refresh-signature-not-verified',
    family: 'token-endpoint',
    description:
      'The refresh grant reads the grant from the JWT refresh token without verifying it: one whose claims were edited (more scopes, another user) is refreshed',
    breaks: 'P-TOKEN-INVALID',
    variant: 'jwt-access-tokens',
  },
  { name: 'token-expires-at-ms', family: 'token-endpoint', description: 'expires_at is in milliseconds instead of unix seconds', breaks: 'P-REC-TOKEN' },
  { name: 'token-type-mac', family: 'token-endpoint', description: 'token_type is "mac" instead of "bearer"', breaks: 'P-REC-TOKEN' },
  {
    name: 'client-basic-raw-only',
    family: 'token-endpoint',
    description:
      "HTTP Basic client credentials are compared as they come, never form-urldecoded: a secret holding what RFC 6749 § 2.3.1's form encodes is taken only raw",
    breaks: 'P-TOKEN-REQUEST',
    variant: 'encoded-credentials',
  },
  { name: 'client-secret-not-checked', family: 'token-endpoint', description: 'The token endpoint accepts any client secret', breaks: 'P-DEC-TOKEN-CLIENT' },
  {
    name: 'client-secret-prefix-compare',
    family: 'token-endpoint',
    description:
      'The client secret is compared on the characters given (strncmp with the presented length): the secret with its last character dropped is taken',
    breaks: 'P-DEC-TOKEN-CLIENT',
  },
  {
    name: 'client-credentials-from-query',
    family: 'token-endpoint',
    description: "The token endpoint reads client_id and client_secret from the request URI's query too (parameters merged from the URI and the body)",
    breaks: 'P-DEC-TOKEN-CLIENT',
  },
  {
    name: 'code-compared-case-insensitively',
    family: 'token-endpoint',
    description: "Authorization codes are looked up in a column whose collation ignores case: a code with its letters' case flipped is exchanged",
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'refresh-compared-on-first-20',
    family: 'token-endpoint',
    description: 'Refresh tokens are looked up by an index on their first 20 characters: one changed further on, or one more, still refreshes',
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'grant-kinds-one-table',
    family: 'token-endpoint',
    description: 'One table of tokens, their kind never read: an access token presented as a refresh token is refreshed',
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'refresh-scope-param-granted',
    family: 'token-endpoint',
    description: 'A scope asked with the refresh grant is granted as far as the application has it: the token is widened beyond its original grant',
    breaks: 'P-SIGNIN-SCOPE',
  },
  {
    name: 'code-grant-widens-earlier-tokens',
    family: 'token-endpoint',
    description:
      "Every token of a user and application reads the scopes of their grant, which a later code exchange widens: an earlier token gains the later one's scopes",
    breaks: 'P-SIGNIN-SCOPE',
  },
  {
    name: 'token-superseded-expires',
    family: 'token-endpoint',
    description:
      'One session per user and application: a code exchange makes the earlier access tokens of the user and application expire, though their expires_in said an hour',
    breaks: 'P-REC-TOKEN',
  },
  {
    name: 'missing-code-403',
    family: 'token-endpoint',
    description: 'A missing code answers 403 "Invalid authentication" instead of 400 "Missing parameter"',
    breaks: 'P-TOKEN-MISSING-PARAM',
  },
  {
    name: 'missing-grant-type-500',
    family: 'token-endpoint',
    description: 'A token request without grant_type answers 500 instead of 400 PARAMETERS_ERROR "Missing parameter"',
    breaks: 'P-TOKEN-MISSING-PARAM',
  },
  {
    name: 'token-no-client-400',
    family: 'token-endpoint',
    description: 'A token request without any client credentials answers 400 "Missing parameter" instead of 401 AUTHENTICATION_ERROR',
    breaks: 'P-DEC-TOKEN-CLIENT',
  },
  {
    name: 'refresh-missing-token-403',
    family: 'token-endpoint',
    description: 'A refresh_token grant without refresh_token answers 403 {"message":"Invalid authentication"} instead of 400 "Missing parameter"',
    breaks: 'P-TOKEN-MISSING-PARAM',
  },
  {
    name: 'refresh-grants-all-app-scopes',
    family: 'token-endpoint',
    description: 'A refreshed token gets every scope of the application, not those of the grant it refreshes',
    breaks: 'P-SIGNIN-SCOPE',
  },
  {
    name: 'code-grant-answers-other-token',
    family: 'token-endpoint',
    description: 'The authorization-code grant answers an access token that was never stored (the API refuses it)',
    breaks: 'S-AUTH-ROUTES',
  },
  {
    name: 'code-client-not-checked',
    family: 'token-endpoint',
    description: 'An authorization code is looked up by its value alone: another registered application exchanges it for tokens',
    breaks: 'P-DEC-CLIENT-BINDING',
  },
  {
    name: 'refresh-client-not-checked',
    family: 'token-endpoint',
    description: 'A refresh token is looked up by its value alone: another registered application refreshes it',
    breaks: 'P-DEC-CLIENT-BINDING',
  },
  {
    name: 'password-grant-accepted',
    family: 'token-endpoint',
    description: "The token endpoint issues tokens for grant_type=password (the client application holds the user's password)",
    breaks: 'S-AUTH-NO-PASSWORDS',
  },
  {
    name: 'token-endpoint-get-accepted',
    family: 'token-endpoint',
    description: 'The token endpoint also answers GET, its parameters read from the query: a code exchanged in a URL that proxies and logs keep',
    breaks: 'P-TOKEN-REQUEST',
  },
  {
    name: 'code-grant-scope-param-granted',
    family: 'token-endpoint',
    description:
      "A scope sent with the authorization_code grant replaces the code's scopes (as the application has them): a code for users_read buys a token for every scope",
    breaks: 'P-SIGNIN-SCOPE',
  },
  {
    name: 'grant-param-of-other-grant',
    family: 'token-endpoint',
    description:
      'A grant without its own credential takes the other grant\'s (one lookup for both kinds): a refresh grant carrying a code, or a code grant carrying a refresh token, issues tokens instead of 400 "Missing parameter"',
    breaks: 'P-TOKEN-MISSING-PARAM',
  },
  {
    name: 'token-repeated-param-first-wins',
    family: 'token-endpoint',
    description:
      'A parameter sent twice to the token endpoint is read as its first value (the others dropped) instead of refused: a code sent beside another is exchanged',
    breaks: 'P-TOKEN-REQUEST',
  },
  {
    name: 'client-empty-secret-skips-check',
    family: 'token-endpoint',
    description:
      "The client's secret is compared only when one was given: a confidential client's id alone (client_id in the form without a secret, HTTP Basic with an empty password) is taken as the client",
    breaks: 'P-DEC-TOKEN-CLIENT',
  },

  // sign-in page
  {
    name: 'signin-csrf-field-missing',
    family: 'sign-in',
    description:
      'The sign-in POST demands a CSRF token that the page no longer renders: signing in with the right credentials answers 403 "Invalid CSRF token"',
    breaks: 'S-AUTH-WEB-SIGN-IN',
  },
  {
    name: 'signin-session-store-500',
    family: 'sign-in',
    description: 'Signing in with the right credentials answers 500 (the session cannot be written); a wrong password is still refused',
    breaks: 'S-AUTH-WEB-SIGN-IN',
  },
  { name: 'state-not-echoed', family: 'sign-in', description: 'The redirect after sign-in drops the state parameter', breaks: 'P-SIGNIN-REDIRECT' },
  {
    name: 'state-echoed-raw',
    family: 'sign-in',
    description: 'The redirect writes the state back as it came, not percent-encoded: a state with reserved characters comes back altered',
    breaks: 'P-SIGNIN-REDIRECT',
  },
  {
    name: 'signin-unknown-client-200',
    family: 'sign-in',
    description: 'An unknown client_id shows the sign-in page (200) instead of 404',
    breaks: 'P-SIGNIN-REJECTS',
  },
  { name: 'signin-redirect-uri-not-checked', family: 'sign-in', description: 'An unregistered redirect_uri is accepted', breaks: 'P-SIGNIN-REDIRECT-URI' },
  {
    name: 'redirect-uri-prefix-match',
    family: 'sign-in',
    description: 'A redirect_uri is accepted when it begins with a registered one (a longer path: an open redirect)',
    breaks: 'P-SIGNIN-REDIRECT-URI',
  },
  {
    name: 'token-gets-all-app-scopes',
    family: 'sign-in',
    description: "The token gets all of the application's scopes, ignoring the requested scope",
    breaks: 'P-SIGNIN-SCOPE',
  },
  {
    name: 'signin-long-scope-all-scopes',
    family: 'sign-in',
    description: "A scope list longer than 64 characters is not stored and the application's default scopes (all of them) are granted",
    breaks: 'P-SIGNIN-SCOPE',
  },
  {
    name: 'signin-any-users-password',
    family: 'sign-in',
    description:
      "The sign-in checks the password against every user's, not the named user's (a lookup by password hash): the second user's password signs the primary user in",
    breaks: 'S-AUTH-WEB-SIGN-IN',
  },
  {
    name: 'password-first-8-chars',
    family: 'sign-in',
    description: 'The sign-in checks a password on its first 8 characters, as DES crypt does: the password one shorter or one longer signs in',
    breaks: 'P-SIGNIN-REDIRECT',
  },
  { name: 'scope-split-on-comma', family: 'sign-in', description: 'The scope parameter is split on commas instead of spaces', breaks: 'P-SIGNIN-SCOPE' },
  {
    name: 'redirect-code-param-renamed',
    family: 'sign-in',
    description: 'The redirect carries the code as auth_code instead of code',
    breaks: 'P-SIGNIN-REDIRECT',
  },
  {
    name: 'redirect-empty-state',
    family: 'sign-in',
    description: 'The redirect after sign-in adds an empty state (&state=) when no state was sent',
    breaks: 'P-SIGNIN-REDIRECT',
  },
  {
    name: 'redirect-uri-trailing-slash',
    family: 'sign-in',
    description: 'The redirect goes to the redirect_uri with "/" appended to its path',
    breaks: 'P-SIGNIN-REDIRECT',
  },
  {
    name: 'keycloak-redirect-drops-state',
    family: 'sign-in',
    description: "The Keycloak-style page's redirect after sign-in carries session_state, iss and the code, but not the state",
    breaks: 'P-SIGNIN-REDIRECT',
    variant: 'signin-keycloak',
  },
  {
    name: 'signin-banner-form-dead',
    family: 'sign-in',
    description:
      'Behind the cookie banner, submitting the sign-in form with the right credentials shows the sign-in page again (200, no message): it never signs in',
    breaks: 'P-SIGNIN-REDIRECT',
    variant: 'signin-cookie-banner',
  },
  {
    name: 'signin-page-no-form',
    family: 'sign-in',
    description: 'The sign-in page (200, HTML) shows a notice instead of the sign-in form',
    breaks: 'P-SIGNIN-PAGE',
  },

  // content type
  {
    name: 'geojson-content-type-text-plain',
    family: 'content-type',
    description: 'GeoJSON routes answer with content-type text/plain',
    breaks: 'P-DEC-GEOJSON-CONTENT-TYPE',
  },
  {
    name: 'signin-page-text-plain',
    family: 'content-type',
    description: 'The sign-in page is served as text/plain instead of text/html',
    breaks: 'S-AUTH-ROUTES',
  },
  {
    name: 'signin-page-frameable',
    family: 'sign-in',
    description:
      'The sign-in page says X-Frame-Options: ALLOW-FROM a partner portal, a form no current browser reads, and no frame-ancestors: any site may frame the page that takes the password',
    breaks: 'P-SIGNIN-PAGE',
  },
  {
    name: 'signin-form-get',
    family: 'sign-in',
    description:
      "The sign-in form's method is GET, and GET /auth/auth signs in with the credentials in its query: the password in a URL that proxies, logs and the history keep",
    breaks: 'P-SIGNIN-PAGE',
  },
  {
    name: 'signin-credentials-from-query',
    family: 'sign-in',
    description: 'The form posts, but GET /auth/auth also signs in with username and password in its query (a legacy sign-in link left working)',
    breaks: 'P-SIGNIN-PAGE',
  },

  // sandbox
  {
    name: 'sandbox-requires-auth',
    family: 'sandbox',
    description: 'The sandbox requires a token on the read routes addressed by id',
    mode: 'sandbox',
    breaks: 'S-HOSTS-SANDBOX',
  },
  {
    name: 'sandbox-trips-require-auth',
    family: 'sandbox',
    description: 'The sandbox requires a token on the trip routes',
    mode: 'sandbox',
    breaks: 'S-HOSTS-SANDBOX',
  },
  {
    name: 'sandbox-geojson-requires-auth',
    family: 'sandbox',
    description: 'The sandbox requires a token on the .geojson routes',
    mode: 'sandbox',
    breaks: 'S-HOSTS-SANDBOX',
  },

  // blind red-team round 1: classes written from the documents and the RFCs alone (docs/red-team/round-1.md)
  {
    name: 'blind-head-skips-auth',
    family: 'authentication',
    description:
      "HEAD on a protected read route skips authentication (the auth hook is bound to GET and POST; the framework's generated HEAD route runs the handler without it): 200 and the GET's headers without a token, instead of the GET's 401",
    breaks: 'S-AUTH-CLOUD-ONLY',
  },
  {
    name: 'blind-sandbox-by-host-header',
    family: 'authentication',
    description:
      'The environment is read per request from the Host (or X-Forwarded-Host) header, as one deployment serving both hostnames does: a cloud request naming a sandbox.* host is served the read routes without a token',
    breaks: 'S-HOSTS-CLOUD',
  },
  {
    name: 'blind-sso-cookie-authenticates-api',
    family: 'authentication',
    description:
      "The sign-in sets a session cookie (single sign-on for the web dashboard) that the API takes in place of a missing Authorization header: a request with the user's cookie and no header is served",
    breaks: 'S-AUTH-CLOUD-ONLY',
  },
  {
    name: 'blind-bearer-scheme-case-sensitive',
    family: 'authentication',
    description:
      'The Bearer scheme is matched case-sensitively (startsWith("Bearer ")): "bearer <token>", as a client writes it from the token record\'s token_type, is refused 401 "Authorization is malformed"',
    breaks: 'P-HOSTS-BASE',
  },
  {
    name: 'blind-query-carid-overrides-path',
    family: 'cross-user',
    description:
      "The car's history routes read the car id through a helper that prefers a legacy carId query parameter over the path: the owner check passes on the token's own car in the path, the answer is the data of the car in the query (another user's)",
    breaks: 'P-ERR-FORBIDDEN',
  },
  {
    name: 'blind-user-record-password',
    family: 'records',
    description: "GET /users/{userId} serializes the whole user row (the ORM entity's default toJSON): the user's password comes with the record",
    breaks: 'S-AUTH-NO-PASSWORDS',
  },
  {
    name: 'me-record-password-hash',
    family: 'records',
    description:
      "GET /users/me serializes the account row, its passwordHash column with it (the connected user's serializer copies the entity): every application reading the user gets the hash",
    breaks: 'S-AUTH-NO-PASSWORDS',
  },
  {
    name: 'blind-signin-state-xss',
    family: 'sign-in',
    description:
      "The sign-in page writes the state into its hidden field unescaped (a template's raw interpolation): a sign-in link whose state closes the attribute runs its script on the page where the user types the password",
    breaks: 'P-SIGNIN-REDIRECT',
  },
  {
    name: 'blind-signin-post-redirect-unchecked',
    family: 'sign-in',
    description:
      "The sign-in form's POST trusts its hidden redirect_uri (only GET /auth/auth checks it against the registered ones): a form posted with another redirect_uri sends the code there",
    breaks: 'P-SIGNIN-REDIRECT-URI',
  },
  {
    name: 'blind-token-answer-cacheable',
    family: 'token-endpoint',
    description:
      'The token answer goes out without Cache-Control: no-store and Pragma: no-cache (its handler builds the reply with the framework defaults), as RFC 6749 § 5.1 requires of any answer holding tokens',
    breaks: 'P-REC-TOKEN',
  },
  {
    name: 'blind-code-exchange-race',
    family: 'token-endpoint',
    description:
      'A code is marked used only after the tokens are persisted (an awaited write after the validity check): two exchanges of one code sent together both get tokens',
    breaks: 'P-DEC-AUTH-CODES',
  },
  {
    name: 'blind-token-redirect-uri-unchecked',
    family: 'token-endpoint',
    description:
      "A code exchange's redirect_uri is never compared with the sign-in's (RFC 6749 § 4.1.3): a code obtained for one redirect URI is exchanged naming another",
    breaks: 'P-TOKEN-INVALID',
  },
  {
    name: 'blind-api-cache-public',
    family: 'caches',
    description:
      "Every successful read of the API is sent Cache-Control: public, max-age=300 (a CDN-friendly default): a shared cache may keep one user's answer and serve it to others, without a token (RFC 9111 § 3.5)",
    // The spec states no caching header: what an answer declares to caches is the profile's decision
    // (D-SHARED-CACHE-DECLARED), as for personal-data-cache-public.
    breaks: 'P-HOSTS-BASE',
  },
  {
    name: 'blind-conditional-before-auth',
    family: 'caches',
    description:
      'An ETag layer in front of the routes answers a matching If-None-Match with 304 before authentication: a caller without a token learns that the resource exists and is unchanged (RFC 9110 § 13.2.1: a 401 ignores preconditions)',
    breaks: 'P-ERR-AUTH-MISSING',
  },
  {
    name: 'blind-json-bom',
    family: 'content-type',
    description:
      'Every successful JSON answer of the API starts with a UTF-8 byte order mark (a response helper written for the CSV export, which Excel needs, reused): RFC 8259 § 8.1 forbids it, strict JSON parsers refuse it',
    breaks: 'S-USER-CARS-SUCCESS',
  },
  {
    name: 'blind-created-car-local-time',
    family: 'car-creation',
    description:
      "A created car's creationDate and lastUpdateDate are the wall-clock time of the car's timezone labelled +00:00 (a local date-time stored in a column without zone, read back as UTC): an hour or two off",
    breaks: 'S-CAR-CREATION-DATE',
  },

  // per-route faults (see the header), narrowest first: a check-level top-up runs them in this order
  // after the plain faults, so each check is credited to the narrowest defect that breaks it.
  {
    name: 'route-token-prefix-match',
    family: 'authentication',
    description: "One route looks the bearer token up as a prefix (a LIKE 'token%' query): the token with its last character dropped is taken (per route)",
    routes: 'all',
    breaks: 'S-AUTH-BEARER',
  },
  {
    name: 'route-token-from-query',
    family: 'authentication',
    description: 'One route also takes the token from the access_token query parameter, without an Authorization header (per route)',
    routes: 'all',
    breaks: 'S-AUTH-CLOUD-ONLY',
  },
  {
    name: 'route-scope-overdemanding',
    family: 'scopes',
    description: 'One read route demands every scope, not only its own (per route)',
    routes: 'get',
    breaks: 'P-ROUTE-SCOPES',
  },
  {
    name: 'route-scope-unchecked',
    family: 'scopes',
    description: 'One route does not check its scopes: any valid token is served (per route)',
    routes: 'all',
    breaks: 'S-AUTH-SCOPES-PER-ROUTE',
  },
  {
    name: 'route-sandbox-closed',
    family: 'sandbox',
    description: 'The sandbox requires a token on one read route addressed by id (per route)',
    mode: 'sandbox',
    routes: 'by-id',
    breaks: 'S-HOSTS-SANDBOX',
  },
  {
    name: 'scope-tip-names-held-scopes',
    family: 'scopes',
    description: 'One route names in its missing-scope tip the scopes the token holds instead of the missing one (per route)',
    routes: 'all',
    breaks: 'S-AUTH-MISSING-SCOPE-TIP',
  },
  {
    name: 'route-query-id-overrides-path',
    family: 'cross-user',
    description:
      "One read route addressed by id reads its parameters through a helper merging the query over the path: the owner check passes on the token's own resource in the path, the answer is the resource a same-named query parameter names (another user's) (per route)",
    routes: 'by-id',
    breaks: 'P-ERR-FORBIDDEN',
  },
  {
    name: 'route-answers-500',
    family: 'status',
    description: 'One read route fails with 500 and an error array where its record should be (per route)',
    routes: 'get',
    breaks: 'S-ENDPOINT-PURPOSE',
  },
] as const satisfies readonly FaultInfo[];

export type FaultName = (typeof FAULTS)[number]['name'];

/** The registry seen through FaultInfo, so optional members read as optional. */
const REGISTRY: readonly FaultInfo[] = FAULTS;
const NAMES: ReadonlySet<string> = new Set(FAULTS.map((f) => f.name));

export function isFaultName(value: string): value is FaultName {
  return NAMES.has(value);
}

export function faultNames(): FaultName[] {
  return FAULTS.map((f) => f.name);
}

/** A fault's registry entry, seen through FaultInfo (optional members read as optional). */
export function faultInfo(name: FaultName): FaultInfo {
  return REGISTRY.find((f) => f.name === name)!;
}
