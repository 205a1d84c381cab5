// Every contract accepts the documents' examples and rejects one known-bad variant per rule it
// enforces, with exactly one violation at the expected place (which also checks error collapsing).
import fs from 'node:fs';
import path from 'node:path';
import { test, expect } from '@playwright/test';
import YAML from 'yaml';
import { checkContract, contractNames, describeViolations, SCHEMA_BASE, SCHEMA_DIR } from '../../../src/schemas/validate';
import * as ex from './examples';

const CONTRACTS = [
  'user',
  'userById',
  'car',
  'createdCar',
  'carCreationBody',
  'location',
  'signal',
  'accelerometer',
  'status',
  'tripSummary',
  'trip',
  'carStatMileage',
  'carStatUsedTime',
  'tripStat',
  'tripStatMileage',
  'tripStatUsedTime',
  'tripStats',
  'geojsonPoint',
  'geojsonLineString',
  'token',
  'tokenRequest',
  'errorArray',
  'legacyError',
  'dates',
];

test('the catalogue names and the schema files are the same set', () => {
  expect(contractNames().sort()).toEqual([...CONTRACTS].sort());
});

test.describe('schema files', () => {
  for (const name of CONTRACTS) {
    test(`${name}.yaml: 2020-12, $id, title, cited description, no additionalProperties: false`, () => {
      const text = fs.readFileSync(path.join(SCHEMA_DIR, `${name}.yaml`), 'utf8');
      const schema = YAML.parse(text);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe(`${SCHEMA_BASE}${name}.yaml`);
      expect(typeof schema.title).toBe('string');
      expect(schema.description).toMatch(/(vehicle-data-service-v3|v3-profile)\.md § /);
      // Members the documents do not show must never be failures.
      expect(text).not.toMatch(/additionalProperties|unevaluatedProperties/);
    });
  }

  test('nested records are cross-file $refs', () => {
    const refs = (name: string) => fs.readFileSync(path.join(SCHEMA_DIR, `${name}.yaml`), 'utf8');
    expect(refs('status')).toMatch(/\$ref: accelerometer\.yaml/);
    expect(refs('status')).toMatch(/\$ref: location\.yaml/);
    expect(refs('status')).toMatch(/\$ref: signal\.yaml/);
    expect(refs('tripSummary')).toMatch(/\$ref: location\.yaml/);
    expect(refs('geojsonLineString')).toMatch(/geojsonPoint\.yaml#\/\$defs\/position/);
    expect(refs('car')).toMatch(/dates\.yaml#\/\$defs\/carDate/);
  });
});

test.describe("accepts the documents' examples", () => {
  const covered = new Set(ex.ACCEPTED.map((e) => e.contract.replace(/\[\]$/, '')));
  test('every record contract has at least one example', () => {
    expect(CONTRACTS.filter((c) => c !== 'dates' && !covered.has(c))).toEqual([]);
  });
  for (const { contract, label, body } of ex.ACCEPTED) {
    test(`${contract}: ${label}`, () => {
      const violations = checkContract(contract, body);
      expect(violations, describeViolations(violations)).toEqual([]);
    });
  }
  test('members the documents do not show are not failures', () => {
    expect(checkContract('car', { ...ex.car, internalDbId: 7, extra: { a: 1 } })).toEqual([]);
    expect(checkContract('status', { ...ex.status, location: { ...ex.location, speed: 3 } })).toEqual([]);
  });
});

// One known-bad variant per rule: [contract, what is wrong, base payload, mutation, pointer, keyword].
type Mutation = [string, string, unknown, (body: any) => void, string, string];
const set = (p: string, v: unknown) => (b: any) => {
  const keys = p.split('/').slice(1);
  const last = keys.pop()!;
  const parent = keys.reduce((o, k) => o[k], b);
  parent[last] = v;
};
const del = (p: string) => (b: any) => {
  const keys = p.split('/').slice(1);
  const last = keys.pop()!;
  delete keys.reduce((o, k) => o[k], b)[last];
};

const REJECTED: Mutation[] = [
  // car (vehicle-data-service-v3.md § Car record)
  ['car', 'creationDate with Z', ex.car, set('/creationDate', '2026-11-02T10:00:00Z'), '/creationDate', 'format'],
  ['car', 'creationDate 2026-02-30', ex.car, set('/creationDate', '2026-02-30T10:00:00+01:00'), '/creationDate', 'format'],
  ['car', 'creationDate with a fraction', ex.car, set('/creationDate', ex.DATES.fraction6), '/creationDate', 'format'],
  ['car', 'creationDate 24:00:00', ex.car, set('/creationDate', '2016-03-01T24:00:00+00:00'), '/creationDate', 'format'],
  ['car', 'lastUpdateDate hour 25', ex.car, set('/lastUpdateDate', '2016-03-01T25:00:00+00:00'), '/lastUpdateDate', 'format'],
  ['car', 'lastUpdateDate offset +24:00', ex.car, set('/lastUpdateDate', '2016-03-01T10:00:00+24:00'), '/lastUpdateDate', 'format'],
  ['car', 'lastUpdateDate offset without colon', ex.car, set('/lastUpdateDate', '2016-03-01T10:00:00+0100'), '/lastUpdateDate', 'format'],
  ['car', 'creationDate as a number', ex.car, set('/creationDate', 1456799060), '/creationDate', 'type'],
  ['car', 'missing deviceId', ex.car, del('/deviceId'), '/deviceId', 'required'],
  ['car', 'missing model (null is fine, absent is not)', ex.bareCar, del('/model'), '/model', 'required'],
  ['car', 'year "2019"', ex.car, set('/year', '2019'), '/year', 'type'],
  ['car', 'id 1.5', ex.car, set('/id', 1.5), '/id', 'type'],
  ['car', 'make null', ex.car, set('/make', null), '/make', 'type'],
  ['car', 'name null', ex.car, set('/name', null), '/name', 'type'],
  ['car', 'cardbId "210"', ex.car, set('/cardbId', '210'), '/cardbId', 'type'],
  ['car', 'deviceId a number', ex.car, set('/deviceId', 1234), '/deviceId', 'type'],
  [
    'car[]',
    'element 3 with a Z date',
    [ex.car, { ...ex.car, id: 5 }, ex.bareCar, { ...ex.car, id: 6 }],
    set('/3/creationDate', '2026-11-02T10:00:00Z'),
    '/3/creationDate',
    'format',
  ],
  ['createdCar', 'missing userId', ex.createdCar, del('/userId'), '/userId', 'required'],
  ['createdCar', 'timezone 1', ex.createdCar, set('/timezone', 1), '/timezone', 'type'],
  ['createdCar', 'car rule still applies', ex.createdCar, set('/creationDate', '2016-03-01T02:24:20Z'), '/creationDate', 'format'],
  // car creation body (v3-profile.md § Query parameters)
  ['carCreationBody', 'make of 2 chars', ex.carCreationBody, set('/make', 'VW'), '/make', 'minLength'],
  ['carCreationBody', 'make of 65 chars', ex.carCreationBody, set('/make', 'M'.repeat(65)), '/make', 'maxLength'],
  ['carCreationBody', 'missing make', ex.carCreationBody, del('/make'), '/make', 'required'],
  ['carCreationBody', 'empty model', ex.carCreationBody, set('/model', ''), '/model', 'minLength'],
  ['carCreationBody', 'model of 65 chars', ex.carCreationBody, set('/model', 'm'.repeat(65)), '/model', 'maxLength'],
  ['carCreationBody', 'missing model', ex.carCreationBody, del('/model'), '/model', 'required'],
  ['carCreationBody', 'name of 65 chars', ex.carCreationBody, set('/name', 'n'.repeat(65)), '/name', 'maxLength'],
  ['carCreationBody', 'numberPlate of 65 chars', ex.carCreationBody, set('/numberPlate', 'P'.repeat(65)), '/numberPlate', 'maxLength'],
  ['carCreationBody', 'year "2019"', ex.carCreationBody, set('/year', '2019'), '/year', 'type'],
  ['carCreationBody', 'timezone a number', ex.carCreationBody, set('/timezone', 2), '/timezone', 'type'],
  // user (v3-profile.md § Records)
  ['user', 'gender OTHER', ex.user, set('/gender', 'OTHER'), '/gender', 'enum'],
  ['user', 'gender null', ex.user, set('/gender', null), '/gender', 'enum'],
  ['user', 'birthDate 1990-02-29 (not a leap year)', ex.user, set('/birthDate', '1990-02-29T00:00:00+00:00'), '/birthDate', 'format'],
  ['user', 'birthDate a number', ex.user, set('/birthDate', 19870322), '/birthDate', 'type'],
  ['user', 'licenceDeliveryDate without offset', ex.user, set('/licenceDeliveryDate', '2006-05-10T00:00:00'), '/licenceDeliveryDate', 'format'],
  ['user', 'creationDate with a space', ex.user, set('/creationDate', '2016-03-01 02:24:20+00:00'), '/creationDate', 'format'],
  ['user', 'lastUpdateDate offset without colon', ex.user, set('/lastUpdateDate', '2016-03-01T02:24:20+0000'), '/lastUpdateDate', 'format'],
  ['user', 'missing nickName (null is fine, absent is not)', ex.bareUser, del('/nickName'), '/nickName', 'required'],
  ['user', 'id "42"', ex.user, set('/id', '42'), '/id', 'type'],
  ['user', 'isLocationEnabled "true"', ex.user, set('/isLocationEnabled', 'true'), '/isLocationEnabled', 'type'],
  ['user', 'role null', ex.user, set('/role', null), '/role', 'type'],
  ['userById', 'missing email', ex.userById, del('/email'), '/email', 'required'],
  ['userById', 'user rule still applies', ex.userById, set('/gender', 'F'), '/gender', 'enum'],
  // location, signal, accelerometer (v3-profile.md § Records)
  ['location', 'latitude 91', ex.location, set('/latitude', 91), '/latitude', 'maximum'],
  ['location', 'latitude -90.5', ex.location, set('/latitude', -90.5), '/latitude', 'minimum'],
  ['location', 'longitude 200', ex.location, set('/longitude', 200), '/longitude', 'maximum'],
  ['location', 'longitude "2.29"', ex.location, set('/longitude', '2.29'), '/longitude', 'type'],
  ['location', 'satellites 7.5', ex.location, set('/satellites', 7.5), '/satellites', 'type'],
  ['location', 'heading missing', ex.location, del('/heading'), '/heading', 'required'],
  [
    'location',
    'satCount instead of satellites',
    ex.location,
    (b) => {
      b.satCount = b.satellites;
      delete b.satellites;
    },
    '/satellites',
    'required',
  ],
  ['location', 'date without offset', ex.location, set('/date', '2016-03-01T02:24:20.000000'), '/date', 'format'],
  ['signal', 'value "1"', ex.signals[1], set('/value', '1'), '/value', 'type'],
  ['signal', 'missing name', ex.signals[0], del('/name'), '/name', 'required'],
  ['signal', 'status signal LockSts = 2', ex.signals[0], set('/value', 2), '/value', 'enum'],
  ['signal', 'date month 13', ex.signals[0], set('/date', '2016-13-01T00:00:00Z'), '/date', 'format'],
  ['accelerometer', 'x 1.5', ex.accelerometer, set('/x', 1.5), '/x', 'type'],
  ['accelerometer', 'missing z', ex.accelerometer, del('/z'), '/z', 'required'],
  // status (v3-profile.md § Records, § Conflicts and decisions)
  ['status', 'accelerometer a string', ex.status, set('/accelerometer', 'x'), '/accelerometer', 'type'],
  ['status', 'nested accelerometer y missing', ex.status, del('/accelerometer/y'), '/accelerometer/y', 'required'],
  ['status', 'nested location latitude -91', ex.status, set('/location/latitude', -91), '/location/latitude', 'minimum'],
  ['status', 'signals null', ex.status, set('/signals', null), '/signals', 'type'],
  ['status', 'missing location (null is fine, absent is not)', ex.emptyStatus, del('/location'), '/location', 'required'],
  ['status', 'bad signal date', ex.status, set('/signals/1/date', '2016-07-15T12:34:30.447653854'), '/signals/1/date', 'format'],
  // trips
  ['tripSummary', 'id a number', ex.tripSummary, set('/id', 123), '/id', 'type'],
  ['tripSummary', 'missing beginLocation', ex.tripSummary, del('/beginLocation'), '/beginLocation', 'required'],
  ['tripSummary', 'endLocation longitude 200', ex.tripSummary, set('/endLocation/longitude', 200), '/endLocation/longitude', 'maximum'],
  ['tripSummary', 'endDate 2016-02-30', ex.tripSummary, set('/endDate', '2016-02-30T10:00:00Z'), '/endDate', 'format'],
  ['trip', 'usedTime 12.5', ex.trip, set('/usedTime', 12.5), '/usedTime', 'type'],
  ['trip', 'missing mileage', ex.trip, del('/mileage'), '/mileage', 'required'],
  ['trip', 'summary rule still applies', ex.trip, del('/endDate'), '/endDate', 'required'],
  // statistics
  ['carStatMileage', 'type USED_TIME', ex.carStatMileage, set('/type', 'USED_TIME'), '/type', 'const'],
  ['carStatMileage', 'value "12"', ex.carStatMileage, set('/value', '12'), '/value', 'type'],
  ['carStatMileage', 'missing beginDate', ex.carStatMileage, del('/beginDate'), '/beginDate', 'required'],
  ['carStatUsedTime', 'type MILEAGE', ex.carStatUsedTime, set('/type', 'MILEAGE'), '/type', 'const'],
  ['carStatUsedTime', 'endDate hour 24', ex.carStatUsedTime, set('/endDate', '2016-01-29T24:00:00Z'), '/endDate', 'format'],
  ['tripStat', 'type DURATION', ex.tripStatMileage, set('/type', 'DURATION'), '/type', 'enum'],
  ['tripStat', 'value null', ex.tripStatMileage, set('/value', null), '/value', 'type'],
  ['tripStatMileage', 'type USED_TIME', ex.tripStatMileage, set('/type', 'USED_TIME'), '/type', 'const'],
  ['tripStatUsedTime', 'type DURATION', ex.tripStatUsedTime, set('/type', 'DURATION'), '/type', 'const'],
  ['tripStats', 'without USED_TIME', ex.tripStats, (b) => b.pop(), '', 'contains'],
  ['tripStats', 'without MILEAGE', ex.tripStats, (b) => b.shift(), '', 'contains'],
  ['tripStats', 'an item with value "x"', ex.tripStats, set('/1/value', 'x'), '/1/value', 'type'],
  // GeoJSON (RFC 7946)
  [
    'geojsonPoint',
    '[lat, lon] puts latitude out of range',
    { type: 'Point', coordinates: [-122.42, 37.77] },
    (b) => b.coordinates.reverse(),
    '/coordinates/1',
    'minimum',
  ],
  ['geojsonPoint', 'longitude 200', ex.geojsonPoint, set('/coordinates/0', 200), '/coordinates/0', 'maximum'],
  ['geojsonPoint', 'type "point"', ex.geojsonPoint, set('/type', 'point'), '/type', 'const'],
  ['geojsonPoint', 'one number', ex.geojsonPoint, set('/coordinates', [2.29]), '/coordinates', 'minItems'],
  ['geojsonPoint', 'four numbers', ex.geojsonPoint, set('/coordinates', [2.29, 48.85, 35, 1]), '/coordinates', 'maxItems'],
  ['geojsonPoint', 'coordinates as strings', ex.geojsonPoint, set('/coordinates/0', '2.29'), '/coordinates/0', 'type'],
  ['geojsonLineString', 'a position out of range', ex.geojsonLineString, set('/coordinates/1/1', 95), '/coordinates/1/1', 'maximum'],
  ['geojsonLineString', 'type Point', ex.geojsonLineString, set('/type', 'Point'), '/type', 'const'],
  ['geojsonLineString', 'a bare number among positions', ex.geojsonLineString, set('/coordinates/1', 2.29), '/coordinates/1', 'type'],
  // token (v3-profile.md § Records, RFC 6749 § 5.1)
  ['token', 'token_type "mac"', ex.token, set('/token_type', 'mac'), '/token_type', 'pattern'],
  ['token', 'expires_in "3600"', ex.token, set('/expires_in', '3600'), '/expires_in', 'type'],
  ['token', 'expires_at 1.5', ex.token, set('/expires_at', 1469500000.5), '/expires_at', 'type'],
  ['token', 'missing refresh_token', ex.token, del('/refresh_token'), '/refresh_token', 'required'],
  // errors (vehicle-data-service-v3.md § Errors, v3-profile.md § Conflicts and decisions)
  ['errorArray', 'type NOT_FOUND', ex.errorArrays.userNotFound, set('/0/type', 'NOT_FOUND'), '/0/type', 'enum'],
  ['errorArray', 'type PARAMETER_ERROR', ex.errorArrays.userNotFound, set('/0/type', 'PARAMETER_ERROR'), '/0/type', 'enum'],
  ['errorArray', 'tip a number', ex.errorArrays.userNotFound, set('/0/tip', 3), '/0/tip', 'type'],
  ['errorArray', 'message a number', ex.errorArrays.userNotFound, set('/0/message', 7), '/0/message', 'type'],
  ['errorArray', 'missing tip', ex.errorArrays.userNotFound, del('/0/tip'), '/0/tip', 'required'],
  ['errorArray', 'empty array', ex.errorArrays.userNotFound, (b) => b.pop(), '', 'minItems'],
  ['legacyError', 'message a number', ex.legacyError, set('/message', 403), '/message', 'type'],
  ['legacyError', 'missing message', ex.legacyError, del('/message'), '/message', 'required'],
];

// The token request is one branch per grant (oneOf): a bad one breaks both branches, each its own way, so
// it is held to being refused, not to one violation. The suite never judges a request body by it.
test.describe('tokenRequest refuses a request of no documented grant', () => {
  const bad: Array<[string, unknown]> = [
    ['missing grant_type', { code: ex.codeGrant.code }],
    ['grant_type password', { grant_type: 'password', username: 'alice', password: 'secret' }],
    ['code grant without code', { grant_type: 'authorization_code' }],
    ['empty code (RFC 6749 § 3.2: a parameter without a value is omitted)', { ...ex.codeGrant, code: '' }],
    ['refresh grant without refresh_token', { grant_type: 'refresh_token' }],
  ];
  for (const [label, body] of bad) test(label, () => expect(checkContract('tokenRequest', body).length).toBeGreaterThan(0));
});

test.describe('rejects one known-bad variant per rule', () => {
  for (const [contract, label, base, mutate, pointer, keyword] of REJECTED) {
    test(`${contract}: ${label} -> ${pointer || '(root)'} ${keyword}`, () => {
      const body = structuredClone(base);
      expect(checkContract(contract, body), 'the base payload is valid').toEqual([]);
      mutate(body);
      const violations = checkContract(contract, body);
      expect(
        violations.map((v) => ({ pointer: v.pointer, keyword: v.keyword })),
        describeViolations(violations),
      ).toEqual([{ pointer, keyword }]);
    });
  }
});
