// Example payloads for every contract, built from the tables of the spec
// (vehicle-data-service-v3.md) and the profile (v3-profile.md § Records, § Errors), using the
// example date strings the profile quotes. Values not given by the documents are plausible fakes.

/** The date strings the documents quote (v3-profile.md § Records), plus the spec's car shape. */
export const DATES = {
  fraction6: '2016-03-01T02:24:20.000000+00:00',
  zulu: '2016-01-29T18:36:17Z',
  fraction9: '2016-07-15T12:34:30.447653854Z',
  /** vehicle-data-service-v3.md § Car record: YYYY-MM-DDThh:mm:ss+hh:mm */
  car: '2016-03-01T02:24:20+00:00',
  carNegative: '2016-01-29T13:36:17-05:00',
};

export const car = {
  id: 1,
  name: 'My car',
  make: 'Renault',
  model: 'Clio',
  year: 2014,
  numberPlate: 'AB-123-CD',
  deviceId: 'E133FF00001',
  cardbId: 210,
  creationDate: DATES.car,
  lastUpdateDate: DATES.carNegative,
};

/** The nulls and the 0 the spec's car table allows. */
export const bareCar = { ...car, id: 2, make: 'Generic', model: null, year: 0, numberPlate: null, deviceId: null };

export const createdCar = { ...car, id: 3, userId: 42, timezone: 'Europe/Paris' };

export const carCreationBody = {
  make: 'Renault',
  model: 'Clio',
  name: 'My car',
  year: 2014,
  numberPlate: 'AB-123-CD',
  timezone: 'Europe/Paris',
};

// v3-profile.md § Records: the user record's dates use the car shape "in every example".
export const user = {
  id: 42,
  lastName: 'Doe',
  firstName: 'Jane',
  nickName: 'jdoe',
  gender: 'FEMALE',
  birthDate: '1987-03-22T00:00:00+00:00',
  licenceDeliveryDate: '2006-05-10T00:00:00+00:00',
  role: 'user',
  isLocationEnabled: true,
  creationDate: DATES.car,
  lastUpdateDate: DATES.car,
};

export const bareUser = { ...user, nickName: null, gender: 'MALE', birthDate: null, licenceDeliveryDate: null, role: 'dev' };

export const userById = { ...user, email: 'jane.doe@example.test' };

export const location = {
  latitude: 48.8584,
  longitude: 2.2945,
  altitude: 35.5,
  satellites: 8,
  heading: 182,
  date: DATES.fraction6,
};

export const signals = [
  { name: 'LockSts', value: 1, date: DATES.zulu },
  { name: 'Odometer', value: 34512.6, date: DATES.fraction9 },
  { name: 'VehiculeSpeed', value: 52, date: DATES.fraction6 },
];

export const accelerometer = { x: -12, y: 4, z: 1003, date: DATES.fraction9 };

export const status = { accelerometer, location, signals };

/** v3-profile.md § Conflicts and decisions: status with no data yet. */
export const emptyStatus = { accelerometer: null, location: null, signals: [] };

export const tripSummary = {
  id: '56b43a4f051f29071f14218d',
  beginLocation: location,
  endLocation: { ...location, latitude: 48.8566, longitude: 2.3522, date: DATES.fraction9 },
  beginDate: DATES.zulu,
  endDate: DATES.fraction9,
};

export const trip = { ...tripSummary, mileage: 12.4, usedTime: 1530 };

export const carStatMileage = { beginDate: DATES.fraction6, endDate: DATES.zulu, type: 'MILEAGE', value: 1432.5 };
export const carStatUsedTime = { beginDate: DATES.fraction6, endDate: DATES.zulu, type: 'USED_TIME', value: 86400 };

export const tripStatMileage = { type: 'MILEAGE', value: 12.4 };
export const tripStatUsedTime = { type: 'USED_TIME', value: 1530 };
export const tripStats = [tripStatMileage, tripStatUsedTime];

export const geojsonPoint = { type: 'Point', coordinates: [2.2945, 48.8584] };
export const geojsonLineString = {
  type: 'LineString',
  coordinates: [
    [2.2945, 48.8584],
    [2.3522, 48.8566],
  ],
};

export const token = {
  access_token: 'eyJhbGciOi.fake.token',
  expires_at: 1469500000,
  expires_in: 3600,
  refresh_token: 'fake-refresh-token',
  token_type: 'bearer',
};

// v3-profile.md § Errors, Token endpoint: the two grants, form fields read as an object.
export const codeGrant = { grant_type: 'authorization_code', code: 'SplxlOBeZQQYbYS6WxSbIA', redirect_uri: 'https://client.example.com/cb' };
const refreshGrant = { grant_type: 'refresh_token', refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA' };

// vehicle-data-service-v3.md § Errors of GET /users/{userId}/cars, and v3-profile.md § Errors.
export const errorArrays = {
  missingScope: [
    {
      type: 'AUTHORIZATION_ERROR',
      message: 'Token does not have the required scope',
      tip: 'Add the `cars_read` scope to the app scopes and reconnect the user',
    },
  ],
  noAccess: [
    {
      type: 'AUTHORIZATION_ERROR',
      message: "Token can't access this user",
      tip: 'Make sure the user is accessible with this token',
    },
  ],
  userNotFound: [{ type: 'PARAMETERS_ERROR', message: 'User not found', tip: 'Check that the user exists' }],
  missingAuthorization: [{ type: 'AUTHENTICATION_ERROR', message: 'Authorization is missing', tip: 'Send a Bearer token' }],
};

export const legacyError = { message: 'Invalid authentication' };

export interface Example {
  contract: string;
  label: string;
  body: unknown;
}

/** Every payload a conforming server may answer; each must pass its contract. */
export const ACCEPTED: Example[] = [
  { contract: 'car', label: 'spec car table', body: car },
  { contract: 'car', label: 'nulls and year 0', body: bareCar },
  { contract: 'car[]', label: 'GET /users/{userId}/cars', body: [car, bareCar] },
  { contract: 'car[]', label: 'no cars', body: [] },
  { contract: 'createdCar', label: 'POST answer', body: createdCar },
  { contract: 'carCreationBody', label: 'full body', body: carCreationBody },
  {
    contract: 'carCreationBody',
    label: 'bounds: make 3, model 1, name/numberPlate empty, 64 chars',
    body: {
      make: 'Kia',
      model: 'X',
      name: '',
      numberPlate: '',
      timezone: 'America/New_York',
      year: 2020,
    },
  },
  { contract: 'carCreationBody', label: 'make 64 chars', body: { make: 'M'.repeat(64), model: 'm'.repeat(64) } },
  { contract: 'user', label: 'profile user', body: user },
  { contract: 'user', label: 'nulls', body: bareUser },
  { contract: 'userById', label: 'user + email', body: userById },
  { contract: 'location', label: 'fraction6 date', body: location },
  { contract: 'location', label: 'zulu date, extremes', body: { ...location, latitude: -90, longitude: 180, date: DATES.zulu } },
  { contract: 'location[]', label: 'history', body: [location, { ...location, date: DATES.fraction9 }] },
  { contract: 'signal[]', label: 'history', body: signals },
  { contract: 'accelerometer', label: 'fraction9 date', body: accelerometer },
  { contract: 'status', label: 'full', body: status },
  { contract: 'status', label: 'no data yet', body: emptyStatus },
  { contract: 'tripSummary', label: 'hex id', body: tripSummary },
  { contract: 'tripSummary', label: 'non-hex id (24 hex is only an example)', body: { ...tripSummary, id: 'trip-42' } },
  { contract: 'tripSummary[]', label: 'GET /cars/{carId}/trips', body: [tripSummary] },
  { contract: 'trip', label: 'full trip', body: trip },
  { contract: 'carStatMileage', label: 'km', body: carStatMileage },
  { contract: 'carStatMileage', label: 'zero', body: { ...carStatMileage, value: 0 } },
  { contract: 'carStatUsedTime', label: 'seconds', body: carStatUsedTime },
  { contract: 'tripStat', label: 'mileage', body: tripStatMileage },
  { contract: 'tripStat', label: 'used time', body: tripStatUsedTime },
  { contract: 'tripStatMileage', label: 'mileage', body: tripStatMileage },
  { contract: 'tripStatUsedTime', label: 'used time', body: tripStatUsedTime },
  { contract: 'tripStats', label: 'both types', body: tripStats },
  { contract: 'tripStats', label: 'both types, other order', body: [tripStatUsedTime, tripStatMileage] },
  { contract: 'geojsonPoint', label: '[lon, lat]', body: geojsonPoint },
  { contract: 'geojsonPoint', label: 'with altitude (RFC 7946 § 3.1.1)', body: { type: 'Point', coordinates: [-180, -90, 35.5] } },
  { contract: 'geojsonPoint[]', label: 'car locations.geojson', body: [geojsonPoint, geojsonPoint] },
  { contract: 'geojsonLineString', label: 'two positions', body: geojsonLineString },
  { contract: 'geojsonLineString', label: 'empty trip (not documented: accepted)', body: { type: 'LineString', coordinates: [] } },
  { contract: 'geojsonLineString', label: 'one position (not documented: accepted)', body: { type: 'LineString', coordinates: [[2.2945, 48.8584]] } },
  { contract: 'token', label: 'bearer', body: token },
  { contract: 'tokenRequest', label: 'authorization_code grant', body: codeGrant },
  { contract: 'tokenRequest', label: 'refresh_token grant, a narrower scope', body: { ...refreshGrant, scope: 'users_read' } },
  { contract: 'token', label: 'Bearer (case-insensitive, RFC 6749 § 5.1)', body: { ...token, token_type: 'Bearer' } },
  { contract: 'errorArray', label: 'missing scope', body: errorArrays.missingScope },
  { contract: 'errorArray', label: 'no access', body: errorArrays.noAccess },
  { contract: 'errorArray', label: 'user not found', body: errorArrays.userNotFound },
  { contract: 'errorArray', label: 'authentication', body: errorArrays.missingAuthorization },
  { contract: 'errorArray', label: 'several errors', body: [...errorArrays.noAccess, ...errorArrays.userNotFound] },
  { contract: 'legacyError', label: 'token endpoint', body: legacyError },
];
