// Variant registry of the reference server.
//
// A variant is the opposite of a fault: it makes the reference take ONE choice the spec and the
// profile allow (or one thing they leave open) differently from its default. A variant server is
// still fully conforming, so the conformance suite must pass against each of them: that is how the
// suite is shown not to fail an implementation for what the documents do not require (precision).
// Each variant is implemented where its behaviour lives, guarded by `variants.has('<name>')`
// (grep the name to find its code path). Variants combine: `--variant a,b` takes both choices.
//
// This module is the list only: the active variant of an app instance is switches.ts, the
// --list-variants table is registry-tables.ts.

export interface VariantInfo {
  readonly name: string;
  /** One line: what changes. */
  readonly description: string;
  /** The document line or section that allows the variant's behaviour. */
  readonly allowedBy: string;
  /** The mode in which the variant shows (default cloud). */
  readonly mode?: 'cloud' | 'sandbox';
  /** The variant is of the sign-in page: it shows only where tokens are minted through that page. */
  readonly signIn?: boolean;
  /**
   * The variant replaces what other variants change (another implementation of a part), or is a load
   * whose proof is the run's own pace (dense-history): it runs alone, never combined.
   */
  readonly alone?: boolean;
  /**
   * What a target file of a server with this variant says under `data` (the ids its data has, where
   * they are not the seeded ones fixtures/targets name), for the runs that prove it.
   */
  readonly targetData?: Readonly<Record<string, string | number>>;
}

export const VARIANTS = [
  {
    name: 'quiet-month',
    description: 'No car has data since the 1st of the current month 00:00 UTC: every seeded history ends 2 h before the month start',
    allowedBy:
      'vehicle-data-service-v3.md § Resources and their fields (no amount of data is stated) and v3-profile.md § Conflicts and decisions (status with no data yet)',
  },
  {
    name: 'many-cars',
    description:
      'The primary user has twelve more cars, listed before the others: the tenth was driven a few times in the last three days, the rest never (a test account with many cars)',
    allowedBy:
      'vehicle-data-service-v3.md § GET /users/{userId}/cars (detailed) ("a JSON array of car records": neither their number nor their order is stated) and § Resources and their fields (no amount of data is stated)',
  },
  {
    name: 'fleet-account',
    description:
      'The primary user has 32 more cars, never driven and without a device, listed before every other: the cars with data come last (a fleet account)',
    allowedBy:
      'vehicle-data-service-v3.md § GET /users/{userId}/cars (detailed) ("a JSON array of car records": neither their number nor their order is stated) and § Resources and their fields (no amount of data is stated)',
  },
  {
    name: 'dense-history',
    alone: true,
    description:
      "The primary user's car with data recorded a position every second of its trips in the last 32 days: a month of its locations or signals is a 10 to 20 MB answer",
    allowedBy: 'vehicle-data-service-v3.md § Resources and their fields and § Limits (neither an amount of data nor a page size is stated)',
  },
  {
    name: 'short-lived-tokens',
    description: 'Access tokens expire 8 s after they are issued (expires_in 8, the refresh token renews them): shorter than a run of the suite',
    allowedBy:
      'vehicle-data-service-v3.md § Authentication ("token lifetime: not shown") and v3-profile.md § Records (token: expires_at, expires_in, refresh_token)',
  },
  {
    name: 'expired-tokens-forgotten',
    description: 'An access token is forgotten 5 s after it expired (a purge of expired tokens): it is then unknown, 401 AUTHENTICATION_ERROR "Invalid token"',
    allowedBy:
      'vehicle-data-service-v3.md § Authentication ("token lifetime: not shown") and v3-profile.md § Errors (token expired: 403; token unknown: 401: how long an expired token is remembered is not stated)',
  },
  {
    name: 'jwt-access-tokens',
    description:
      "Access and refresh tokens are JWTs signed RS256 (sub, client_id, scope, exp, jti), the key published as a JWKS that OpenID Connect Discovery names; verified with jose, whose base64url decoding is lenient (base64's alphabet, padding, a last character's unused bits)",
    allowedBy:
      'vehicle-data-service-v3.md § Authentication (an OAuth 2 access token: its format is not stated) and v3-profile.md § Records (token: access_token string, refresh_token string)',
  },
  {
    name: 'token-answer-keycloak',
    description:
      'The token endpoint answers as Keycloak does: token_type "Bearer", and refresh_expires_in, not-before-policy, session_state and scope (OpenID\'s profile and email among them) beside the profile\'s members',
    allowedBy:
      'v3-profile.md § Records (token: its fields are listed, other members are not excluded) and RFC 6749 § 5.1 (token_type is case insensitive; a server may add parameters)',
  },
  {
    name: 'same-token-reissued',
    description:
      'A code grant answers the access token it issued earlier to the same user, application and scopes while that one is valid (expires_in the seconds it has left, a refresh token of its own), as Spring Security OAuth reuses tokens',
    allowedBy:
      'v3-profile.md § Token endpoint (a code is exchanged for a token: that it is a new one is not stated) and RFC 6749 § 4.1.4, § 5.1 (expires_in: the lifetime of the access token)',
  },
  {
    name: 'sandbox-other-data',
    mode: 'sandbox',
    alone: true,
    targetData: { userId: 7302 },
    description:
      "Another sandbox's data: other ids for every user, car and trip (users 7302 and 7305, cars from 210044), the primary user's first car (lowest id) one without a device or any data",
    allowedBy:
      'v3-profile.md § Hosts and environments ("sandbox ... serves fake data": which data, under which ids, is not stated) and vehicle-data-service-v3.md § GET /users/{userId}/cars (no order of the cars is stated)',
  },
  {
    name: 'stats-no-data-404',
    description: 'Car stats over a range with no trips answer 404 PARAMETERS_ERROR "Statistics not found" instead of 0 (+initialValue)',
    allowedBy: 'v3-profile.md § Conflicts and decisions (car stats over a range with no trips)',
  },
  {
    name: 'dissociate-cars-only',
    description: 'Dissociating a device associated only with a user (by pin, no car) answers 409 and keeps the association',
    allowedBy:
      'vehicle-data-service-v3.md § Devices ("Dissociate the device from its car") and v3-profile.md § Errors, Devices (dissociate a device that is not associated: 409)',
  },
  {
    name: 'dissociate-keeps-user-link',
    description:
      "Dissociating a device from its car keeps the device's link to the user: once associated (by car or by pin) the device stays the user's, so a later pin association answers 409 and a dissociation without a car answers 409",
    allowedBy:
      'vehicle-data-service-v3.md § Devices ("Dissociate the device from its car": the user link is not said to go) and § States and transitions (not shown), and v3-profile.md § Errors, Devices (associate a device that is already associated: 409; dissociate a device that is not associated: 409)',
  },
  {
    name: 'empty-scope-as-absent',
    signIn: true,
    description: "On the sign-in page a present but empty scope is read as absent: the token gets all of the application's scopes",
    allowedBy: 'v3-profile.md § Errors, Sign-in page ("scope (space-separated list, optional; ...)": an empty list is not defined)',
  },
  {
    name: 'signin-form-scripted',
    signIn: true,
    description: 'The sign-in form is inserted by a script 400 ms after the page loaded, as a single-page application renders it',
    allowedBy: 'v3-profile.md § Errors, Sign-in page (how the page is built is not stated: only its parameters and the redirect)',
  },
  {
    name: 'signin-form-unlabelled',
    signIn: true,
    description:
      'The sign-in form has no label: a text field named login with a placeholder only, a password field with a "Show" button, a field for bots hidden off-screen, and a "Continue" button',
    allowedBy: 'v3-profile.md § Errors, Sign-in page (a sign-in web page: its markup, field names and labels are not stated)',
  },
  {
    name: 'signin-two-step',
    signIn: true,
    description: 'Signing in takes two pages: the e-mail and "Next", then the password (the account shown, "Not you?") and "Sign in"',
    allowedBy:
      'v3-profile.md § Errors, Sign-in page (a sign-in web page: how many pages it takes is not stated, only its parameters and the redirect after sign-in)',
  },
  {
    name: 'signin-consent-page',
    signIn: true,
    description:
      'After the password, a page asks the user to allow the application (its scopes listed; Deny, then Allow); Allow redirects with the code, Deny with error=access_denied',
    allowedBy:
      'v3-profile.md § Errors, Sign-in page ("After sign-in the browser is redirected": the pages of signing in are not stated) and RFC 6749 section 4.1 (the authorization server asks the resource owner)',
  },
  {
    name: 'signin-continue-page',
    signIn: true,
    description: 'After the password, a page says the user is signed in and only offers "Continue", which redirects with the code',
    allowedBy: 'v3-profile.md § Errors, Sign-in page ("After sign-in the browser is redirected": the pages of signing in are not stated)',
  },
  {
    name: 'signin-page-redirected',
    signIn: true,
    description: 'GET /auth/auth sends the browser (303) to the login page at a URL of its own, which answers the page, as authorization servers do',
    allowedBy:
      'vehicle-data-service-v3.md § Authentication ("Sign-in is done by the user on a web page served at GET /auth/auth": the spec states the page, not how many answers lead a browser to it) and v3-profile.md § Sign-in page ("200 HTML sign-in page": what the browser is shown)',
  },
  {
    name: 'signin-keycloak',
    signIn: true,
    alone: true,
    description:
      "Keycloak's login page: a language menu and form above the login form, which posts to login-actions/authenticate with session codes in its URL and a hidden CSRF field; the session in a cookie; wrong credentials answer the page again (200); the redirect adds session_state and iss",
    allowedBy:
      'v3-profile.md § Sign-in page (its parameters and the redirect with code and state are stated; the page, its form and other parameters are not) and RFC 9207 (iss on the authorization response)',
  },
  {
    name: 'signin-ory',
    signIn: true,
    alone: true,
    description:
      'Ory\'s login flow: the sign-in link answers 303 to the login UI of a new flow (its CSRF field matched to a cookie), whose one form holds a "Sign in with GitHub" submit above the E-Mail and Password fields and the password method\'s "Sign in"',
    allowedBy: 'v3-profile.md § Sign-in page (its parameters and the redirect with code and state are stated; the pages and the form are not)',
  },
  {
    name: 'signin-authentik',
    signIn: true,
    alone: true,
    description:
      'Authentik\'s flow executor: the sign-in link answers 302 to a page of web components that render each stage in their shadow roots from a JSON flow API (identification and "Log in", then the password and "Continue"), with a form for password managers off screen',
    allowedBy: 'v3-profile.md § Sign-in page (a sign-in web page: how it is built is not stated, only its parameters and the redirect)',
  },
  {
    name: 'signin-okta',
    signIn: true,
    alone: true,
    description:
      'Okta\'s sign-in widget: a script renders the username, "Keep me signed in" and "Next", then the password and "Verify", in place (JSON to its identity engine, no page load), then sends the browser on',
    allowedBy: 'v3-profile.md § Sign-in page (a sign-in web page: how many steps and how it is built are not stated, only its parameters and the redirect)',
  },
  {
    name: 'signin-cookie-banner',
    signIn: true,
    description:
      'Every sign-in page shows, a moment after it loaded, a cookie banner (a modal dialog over a backdrop: Customize, Reject all, Accept all) that takes every click until a choice is made',
    allowedBy: 'v3-profile.md § Sign-in page (a sign-in web page: what else it shows is not stated)',
  },
  {
    name: 'signin-lockout',
    signIn: true,
    description:
      "Three wrong passwords in a row lock the user's sign-in for two minutes, the right password refused meanwhile; a right password clears the failures (Keycloak's brute-force detection)",
    allowedBy:
      'v3-profile.md § Sign-in page (what a wrong password gets is not stated; decision D-PASSWORD-NEAR-MISS: no code, and a lock is not excluded) and RFC 6749 § 10.10 (the authorization server guards against guessing)',
  },
  {
    name: 'signin-csrf-cookie',
    signIn: true,
    description:
      'The sign-in form carries a hidden CSRF field matched to a cookie set with the page; a form posted without both, or with another value, is refused (403)',
    allowedBy: 'v3-profile.md § Sign-in page (a sign-in web page: its fields beyond the credentials are not stated) and RFC 6749 § 10.12 (CSRF protection)',
  },
  {
    name: 'redirect-form-encoded',
    signIn: true,
    description:
      "The redirect after sign-in writes its query as application/x-www-form-urlencoded: the state's spaces as '+', its other reserved characters percent-encoded",
    allowedBy:
      'v3-profile.md § Errors, Sign-in page ("After sign-in the browser is redirected" with the code and the state) and RFC 6749 § 4.1.2 (the parameters added "using the application/x-www-form-urlencoded format")',
  },
  {
    name: 'encoded-credentials',
    signIn: true,
    description:
      "The applications' client secrets and the users' passwords hold what HTTP Basic and forms must encode (a space, + % & : /, non-ASCII letters); the token endpoint reads HTTP Basic as RFC 6749 § 2.3.1 writes it (each part form-urlencoded)",
    allowedBy:
      'v3-profile.md § Scopes per route (POST /auth/access_token: "HTTP Basic (client id : client secret)"; no character of a secret or a password is excluded) and RFC 6749 § 2.3.1 (the client id and secret are encoded with application/x-www-form-urlencoded before HTTP Basic)',
  },
  {
    name: 'authorization-server-oidc',
    signIn: true,
    alone: true,
    description:
      "The sign-in page and the token endpoint are run by oidc-provider (a certified OpenID Connect / OAuth 2 server) mounted at /v3/auth, with its login and consent interaction (our pages on its interaction API) and a thin adapter to the profile's answers; the resource routes accept its tokens",
    allowedBy:
      'vehicle-data-service-v3.md § Authentication ("Sign-in is done by the user on a web page served at GET /auth/auth; the token is obtained from POST /auth/access_token") and v3-profile.md § Sign-in page and § Token endpoint (they state endpoints, parameters and answers, not who implements them; the pages of signing in are not stated)',
  },
  {
    name: 'limit-zero-means-all',
    description: 'limit=0 means no limit: every item of the range',
    allowedBy: 'v3-profile.md § Query parameters (limit: "max items returned; a negative value is an error"; 0 is not defined)',
  },
  {
    name: 'limit-keeps-oldest',
    description:
      'limit keeps the oldest items of the range (the first n in date order) instead of the most recent, while the default page of default-page-size still keeps the most recent',
    allowedBy: 'v3-profile.md § Query parameters (limit: "max items returned": which items are kept is not stated, nor the order of the lists)',
  },
  {
    name: 'errors-text-plain',
    description: 'Error arrays and the legacy error body are sent with content-type text/plain; charset=utf-8 (body unchanged)',
    allowedBy: 'vehicle-data-service-v3.md § Errors, Body (the body is stated, its content type is not)',
  },
  {
    name: 'records-text-plain',
    description:
      'Every JSON record of the API (users, cars, histories, stats, status; not GeoJSON, not the token) is labelled text/plain; charset=utf-8 (body unchanged)',
    allowedBy:
      'vehicle-data-service-v3.md § Resources and their fields and v3-profile.md § Records (the records are stated, their content type is not; rule 3: such a gap may only warn)',
  },
  {
    name: 'token-answer-text-plain',
    description: "The token endpoint's JSON answer is labelled text/plain; charset=utf-8 (body unchanged)",
    allowedBy: 'v3-profile.md § Records (token: the fields are stated, the content type is not)',
  },
  {
    name: 'token-answer-no-pragma',
    description: "The token endpoint's answers say Cache-Control: no-store and no Pragma",
    allowedBy:
      'v3-profile.md § Token endpoint (its headers are not stated); RFC 9111 § 5.4 (Pragma is deprecated); decision D-TOKEN-NO-STORE (no-store is required, Pragma: no-cache only warned of)',
  },
  {
    name: 'reads-cache-declared',
    description:
      "The read routes declare how their answers may be kept: the users' Cache-Control: private, max-age=60; the cars' and trips' max-age=0, must-revalidate (storable by any cache, asked again of the server before each use)",
    allowedBy: "v3-profile.md § Scopes per route (the answers' headers are not stated); RFC 9111 § 3.5, § 4.3, § 5.2.2; decision D-SHARED-CACHE-DECLARED",
  },
  {
    name: 'token-clock-skew',
    description: 'expires_at is computed from a clock 10 minutes ahead: now + expires_in + 600 (unix seconds)',
    allowedBy: 'v3-profile.md § Records (token: expires_at int (unix seconds); its relation to expires_in is not stated)',
  },
  {
    name: 'trip-record-rounded',
    description: 'GET /trips/{tripId} gives mileage rounded to 1 decimal (the stats routes keep full precision)',
    allowedBy: 'v3-profile.md § Records (trip: mileage number (km); no precision is stated)',
  },
  {
    name: 'geojson-geo-json',
    description: 'Both .geojson routes answer with content-type application/geo+json',
    allowedBy: 'v3-profile.md § Conflicts and decisions (GeoJSON content type)',
  },
  {
    name: 'car-body-strict',
    description:
      'A car creation body with a member the profile does not list for it (an id, a userId, a deviceId, dates) is refused: 400 PARAMETERS_ERROR naming the member',
    allowedBy:
      'v3-profile.md § Query parameters (car creation body: its members listed, other members not stated) and § Errors (car creation body invalid: 400); docs/REQUIREMENTS.md § Decisions of the suite (members the creation body does not take: refused or ignored)',
  },
  {
    name: 'car-body-user-id-checked',
    description:
      "A car creation body whose userId names another user than the path's is refused as that user's (403 AUTHORIZATION_ERROR \"Token can't access this user\"); its other unknown members are ignored",
    allowedBy:
      'vehicle-data-service-v3.md § Authentication (a token unable to access a given user: 403 AUTHORIZATION_ERROR); docs/REQUIREMENTS.md § Decisions of the suite (members the creation body does not take: refused or ignored)',
  },
  {
    name: 'car-text-nfc',
    description: 'Car texts are stored in Unicode normalization form NFC: a letter and its combining accent sent apart come back as the one precomposed letter',
    allowedBy:
      'v3-profile.md § Query parameters (car creation body: strings; how they are stored is not stated); docs/REQUIREMENTS.md § Decisions of the suite (D-TEXT-CHARACTERS: canonically equivalent text is the same text, Unicode conformance clause C6)',
  },
  {
    name: 'car-text-trimmed',
    description:
      "White space at either end of a car text is trimmed before it is validated and stored, as Django REST framework's CharField and Laravel's TrimStrings do",
    allowedBy:
      'v3-profile.md § Query parameters (car creation body: strings; white space at their ends is not mentioned); docs/REQUIREMENTS.md § Decisions of the suite (D-TEXT-CHARACTERS: white space at either end is left open)',
  },
  {
    name: 'car-text-controls-refused',
    description: 'A car text holding a control character (C0 or DEL: a tab, a NUL) is refused: 400 PARAMETERS_ERROR, as PostgreSQL refuses a NUL in text',
    allowedBy:
      'v3-profile.md § Errors (car creation body invalid: 400); docs/REQUIREMENTS.md § Decisions of the suite (D-TEXT-CHARACTERS: a control character is refused or kept exactly)',
  },
  {
    name: 'associate-unknown-car-400',
    description: 'Associating a device with a well-formed carId that does not exist answers 400 PARAMETERS_ERROR instead of 404',
    allowedBy: 'v3-profile.md § Conflicts and decisions (unknown carId when associating a device)',
  },
  {
    name: 'default-page-size',
    description:
      'Without limit, car locations, locations.geojson, signals and trips answer their 25 most recent items (a default limit of 25: the 25 an explicit limit=25 keeps)',
    allowedBy: 'vehicle-data-service-v3.md § Limits (page sizes: not shown) and v3-profile.md § Query parameters (no default limit is stated)',
  },
  {
    name: 'newest-first',
    description: 'Every history list (car and trip locations, signals, car trips, the trip LineString) is in descending date order',
    allowedBy: 'v3-profile.md § Records and § Query parameters (no order of the lists is stated)',
  },
  {
    name: 'cars-newest-first',
    description: "A user's cars are listed most recently created first (the seeded cars with data come last)",
    allowedBy: 'vehicle-data-service-v3.md § GET /users/{userId}/cars (detailed) ("a JSON array of car records": no order is stated)',
  },
  {
    name: 'geojson-path-order',
    description: 'The plain history lists (locations, signals, trips) are newest first while both .geojson routes keep the order driven (oldest first)',
    allowedBy: 'v3-profile.md § Records (GeoJSON of car and trip locations: no order of the positions is stated, nor of the lists)',
  },
  {
    name: 'extra-fields',
    description:
      'Every JSON record (user, car, location, signal, trip, stat, status, token, error element) carries an extra "vendorExtension" member, its value different in every answer (a serial number)',
    allowedBy: 'vehicle-data-service-v3.md § Resources and their fields and v3-profile.md § Records (fields are listed; other members are not excluded)',
  },
  {
    name: 'error-array-two-elements',
    description: 'Every error array has an extra first element {type (same), message "Request refused", tip}, then the documented one',
    allowedBy: 'vehicle-data-service-v3.md § Errors, Body ("a JSON array of objects"; the number of elements is not stated)',
  },
  {
    name: 'dates-fraction-zulu',
    description: 'Dates of locations, signals, accelerometer, trips and car stats end in milliseconds and Z (2026-11-01T02:24:20.000Z)',
    allowedBy: 'v3-profile.md § Records ("date" is RFC 3339 with an offset; fractions and Z occur in the examples of these records)',
  },
  {
    name: 'dates-paris-offset',
    description: 'Every date (users, cars, locations, signals, trips, stats) is written as Paris wall-clock time with its offset (+01:00 or +02:00)',
    allowedBy:
      'vehicle-data-service-v3.md § Car record (creationDate: "with UTC offset", shape YYYY-MM-DDThh:mm:ss+hh:mm) and v3-profile.md § Records ("date" is RFC 3339 with an offset)',
  },
  {
    name: 'tips-reworded',
    description: 'Every tip is worded differently ("Please check that ..."); the missing-scope tip still names the missing scope(s)',
    allowedBy: 'v3-profile.md § Conflicts and decisions (tip wording)',
  },
  {
    name: 'malformed-pin-counts',
    description: 'A malformed pin counts as a failed attempt towards the 3-attempt lock (still 400 PARAMETERS_ERROR)',
    allowedBy: 'v3-profile.md § Errors, Devices ("pin association failed 3 times already": which failures count is not stated)',
  },
  {
    name: 'pin-lock-before-format',
    description:
      'A locked device answers every pin association 403 AUTHORIZATION_ERROR before its pin is read: a malformed pin to a locked device is 403, not 400',
    allowedBy:
      'v3-profile.md § Conflicts and decisions (order of checks: where the pin lock comes is not stated) and § Errors, Devices (malformed pin 400; pin association failed 3 times already 403)',
  },
  {
    name: 'idle-connection-close',
    description:
      'A kept-alive connection idle for more than 100 ms is closed without announcing it (no Keep-Alive header), as a load balancer may: a request sent on it meanwhile gets no answer',
    allowedBy: 'vehicle-data-service-v3.md § Limits ("time-outs: not shown"; RFC 9112 § 9.3: either side may close an idle connection at any time)',
  },
  {
    name: 'idle-sockets-closed',
    description:
      "A connection with no request in progress for 300 ms, since it was accepted or since its last answer, is closed by a timer without announcing it (no Keep-Alive header), as a server's idle time-out does: a request written on it later gets no answer",
    allowedBy: 'vehicle-data-service-v3.md § Limits ("time-outs: not shown"; RFC 9112 § 9.3: either side may close an idle connection at any time)',
  },
  {
    name: 'range-limit-31-days-23-hours',
    description: 'begin and end up to 31 days and 23 hours apart are accepted (the default: up to exactly 31 days); more is 416',
    allowedBy: 'v3-profile.md § Conflicts and decisions ("at most one month apart": a suite probes 28 days or less and 32 days or more)',
  },
  {
    name: 'blindp-gzip-answers',
    description:
      'Answers of 1 KiB or more are gzip-compressed (Content-Encoding: gzip, Vary: Accept-Encoding) when the request accepts gzip, as @fastify/compress or a proxy does',
    allowedBy:
      "vehicle-data-service-v3.md § Endpoints (no content coding is stated) and RFC 9110 § 8.4.1 and § 12.5.3 (a server may apply a content coding the request's Accept-Encoding accepts)",
  },
  {
    name: 'blindp-etag-revalidation',
    description:
      "The API's successful reads carry a weak ETag, and a read whose If-None-Match names it answers 304 without a body, once the route has authorized it (as Express does)",
    allowedBy:
      "vehicle-data-service-v3.md § Endpoints (the answers' headers and conditional requests are not stated) and RFC 9110 § 8.8.3, § 13.1.2 and § 15.4.5 (an origin server may send an entity tag and answer 304 to a matching If-None-Match)",
  },
  {
    name: 'blindp-json-escaped-php',
    description:
      'Every JSON answer is written as PHP\'s json_encode writes it by default: "/" as "\\/" and every non-ASCII character as a \\uXXXX escape (same values)',
    allowedBy:
      'vehicle-data-service-v3.md § Resources and their fields (JSON; its text form is not stated) and RFC 8259 § 7 (any character may be escaped; "\\/" is an escape of "/")',
  },
  {
    name: 'blindp-json-members-sorted',
    description:
      "Every JSON object's members are written in key order (the error elements as message, tip, type), as Jackson's SORT_PROPERTIES_ALPHABETICALLY does",
    allowedBy:
      'vehicle-data-service-v3.md § Resources and their fields (the fields are a table: no order is stated) and RFC 8259 § 4 (an object is an unordered collection)',
  },
  {
    name: 'blindp-json-no-charset',
    description: 'JSON answers are labelled application/json (or application/geo+json) with no charset parameter',
    allowedBy:
      "vehicle-data-service-v3.md § Errors, Body (JSON; the content type's parameters are not stated) and RFC 8259 § 11 (\"No 'charset' parameter is defined for this registration\")",
  },
  {
    name: 'blindp-refresh-not-rotated',
    description:
      'The refresh grant answers a new access token and the same refresh token, which stays valid for later refreshes (no rotation, as Okta and Keycloak do by default for confidential clients)',
    allowedBy:
      'v3-profile.md § Token endpoint ("grant_type=refresh_token&refresh_token=..."; nothing says a refresh token is single use) and RFC 6749 § 6 ("The authorization server MAY issue a new refresh token")',
  },
  {
    name: 'blindp-tokens-base64-padded',
    description: 'Access and refresh tokens are 400 characters of plain base64 with its padding (+, / and a final =), not base64url',
    allowedBy:
      'v3-profile.md § Records (token: access_token string, refresh_token string) and RFC 6750 § 2.1 (b64token: ALPHA, DIGIT, "-._~+/" then "=" padding) and RFC 6749 Appendix A.12, A.17 (tokens are VSCHAR)',
  },
  {
    name: 'blindp-codes-base64-padded',
    signIn: true,
    description: 'Authorization codes are plain base64 with its padding (+, / and a final =), percent-encoded in the redirect after sign-in',
    allowedBy:
      'v3-profile.md § Sign-in page ("redirected to <redirect_uri>?code=<code>": the code\'s characters are not stated) and RFC 6749 Appendix A.11 (code = 1*VSCHAR) and § 4.1.2 (added to the query form-urlencoded)',
  },
  {
    name: 'blindp-options-answered',
    description:
      'OPTIONS on a path of the API answers 200 with Allow (its methods, HEAD and OPTIONS) and no body, without a token, as Spring MVC does by default',
    allowedBy:
      'vehicle-data-service-v3.md § Endpoints (only the listed methods are described; OPTIONS is not mentioned) and RFC 9110 § 9.3.7 (OPTIONS asks for the communication options of a resource; a successful answer sends Allow)',
  },
  {
    name: 'blindp-method-not-allowed',
    description:
      'A path of the API asked with a method it is not served with answers 405 with Allow and the error array (PARAMETERS_ERROR "Method not allowed") instead of 404',
    allowedBy:
      'vehicle-data-service-v3.md § Endpoints and § Errors (other methods are not mentioned; "Errors map onto HTTP status codes") and RFC 9110 § 15.5.6 (405: the method is not supported by the target resource, with Allow)',
  },
  {
    name: 'blindp-trip-stats-usedtime-first',
    description: 'GET /trips/{tripId}/stats lists the USED_TIME statistic before the MILEAGE one',
    allowedBy: 'v3-profile.md § Records ("/trips/{id}/stats answers both types in one array": their order is not stated)',
  },
  {
    name: 'blindp-dates-microseconds',
    description:
      "Dates of locations, signals, accelerometer, trips and car stats have six digits of fraction and +00:00, as Python's isoformat() writes them (2026-11-01T02:24:20.000000+00:00)",
    allowedBy:
      'v3-profile.md § Records ("date" means an RFC 3339 date-time with an offset; the profile\'s own example is 2016-03-01T02:24:20.000000+00:00) and RFC 3339 § 5.6 (time-secfrac = "." 1*DIGIT)',
  },
] as const satisfies readonly VariantInfo[];

export type VariantName = (typeof VARIANTS)[number]['name'];

/** The registry seen through VariantInfo, so optional members read as optional. */
const REGISTRY: readonly VariantInfo[] = VARIANTS;
const NAMES: ReadonlySet<string> = new Set(VARIANTS.map((v) => v.name));

export function isVariantName(value: string): value is VariantName {
  return NAMES.has(value);
}

export function variantNames(): VariantName[] {
  return VARIANTS.map((v) => v.name);
}

/** Whether a variant runs alone (it cannot combine with the variants of the part it replaces). */
export function variantRunsAlone(name: string): boolean {
  return REGISTRY.find((v) => v.name === name)?.alone === true;
}

/** The mode a run must use to see a variant. */
export function variantMode(name: string): 'cloud' | 'sandbox' {
  return REGISTRY.find((v) => v.name === name)?.mode ?? 'cloud';
}
