// The validator's own behaviour: arrays, readable violations, collapsing, unknown members, singleton.
import { test, expect } from '@playwright/test';
import {
  compileAll,
  checkContract,
  contractRegistry,
  describeViolations,
  canonicalJson,
  documentedKey,
  documentedOnly,
  memberSchemas,
  unknownFields,
  validatorFor,
  type ContractViolation,
} from '../../../src/schemas/validate';
import * as ex from './examples';
import { serverMembers } from '../../../src/checks/car-members';

test.describe('checkContract', () => {
  test('"name[]" wants an array and prefixes pointers with the element index', () => {
    const cars = [ex.car, ex.bareCar, ex.car, { ...ex.car, creationDate: '2026-11-02T10:00:00Z' }];
    expect(checkContract('car[]', cars)).toEqual([
      {
        pointer: '/3/creationDate',
        keyword: 'format',
        expected: 'format vds-car-date (YYYY-MM-DDThh:mm:ss±hh:mm)',
        actual: '2026-11-02T10:00:00Z',
      },
    ]);
    expect(checkContract('car[]', ex.car)).toEqual([{ pointer: '', keyword: 'type', expected: 'array of car', actual: ex.car }]);
  });

  test('a body of the wrong type is one violation at the root', () => {
    expect(checkContract('createdCar', 'x')).toEqual([{ pointer: '', keyword: 'type', expected: 'object', actual: 'x' }]);
    expect(checkContract('errorArray', ex.errorArrays.userNotFound[0])).toMatchObject([{ pointer: '', keyword: 'type', expected: 'array' }]);
    expect(checkContract('car[]', [1])).toMatchObject([{ pointer: '/0', keyword: 'type', expected: 'object', actual: 1 }]);
  });

  test('a missing property points at where it should be, with actual undefined', () => {
    const { deviceId: _, ...car } = ex.car;
    expect(checkContract('car[]', [ex.car, car])).toEqual([
      { pointer: '/1/deviceId', keyword: 'required', expected: "required property 'deviceId'", actual: undefined },
    ]);
  });

  test('expectations are readable', () => {
    const expected = (contract: string, body: unknown) => checkContract(contract, body).map((v) => v.expected);
    expect(expected('errorArray', [{ ...ex.errorArrays.userNotFound[0], type: 'NOT_FOUND' }])).toEqual([
      'one of AUTHENTICATION_ERROR, AUTHORIZATION_ERROR, PARAMETERS_ERROR',
    ]);
    expect(expected('car', { ...ex.car, year: '2019' })).toEqual(['integer']);
    expect(expected('car', { ...ex.car, deviceId: 5 })).toEqual(['string or null']);
    expect(expected('location', { ...ex.location, date: '2016-03-01' })).toEqual(['format vds-date-time (RFC 3339 date-time with offset)']);
    expect(expected('location', { ...ex.location, longitude: 200 })).toEqual(['longitude in [-180, 180]']);
    expect(expected('token', { ...ex.token, token_type: 'mac' })).toEqual(['"bearer" (compared case-insensitively)']);
    expect(expected('tripStats', [ex.tripStatMileage])).toEqual(['an item with type "USED_TIME"']);
    expect(expected('carStatMileage', { ...ex.carStatMileage, type: 'USED_TIME' })).toEqual(['exactly "MILEAGE"']);
    expect(expected('errorArray', [{ ...ex.errorArrays.userNotFound[0], tip: 3 }])).toEqual(['string']);
    expect(expected('carCreationBody', { ...ex.carCreationBody, make: 'VW' })).toEqual(['a string of at least 3 characters']);
  });

  test('collapses the noise of nullable alternatives', () => {
    // Wrong type for "accelerometer or null": one violation naming both types.
    expect(checkContract('status', { ...ex.status, accelerometer: 7 })).toEqual([
      { pointer: '/accelerometer', keyword: 'type', expected: 'object or null', actual: 7 },
    ]);
    // Present but broken: only the real problem inside, no "must be null", no "anyOf".
    expect(checkContract('status', { ...ex.status, location: { ...ex.location, satellites: 'eight' } })).toMatchObject([
      { pointer: '/location/satellites', keyword: 'type', expected: 'integer' },
    ]);
    expect(checkContract('user', { ...ex.user, birthDate: '1987-02-29T00:00:00Z' })).toMatchObject([{ pointer: '/birthDate', keyword: 'format' }]);
    // `contains` does not list why every other item failed to match.
    expect(checkContract('tripStats', [ex.tripStatMileage, ex.tripStatMileage])).toMatchObject([{ pointer: '', keyword: 'contains' }]);
  });

  test('reports every independent problem (allErrors)', () => {
    const v = checkContract('car', { ...ex.car, year: '2019', creationDate: 'today', cardbId: null });
    expect(v.map((x) => x.pointer).sort()).toEqual(['/cardbId', '/creationDate', '/year']);
  });

  test('an unknown contract name is a programming error', () => {
    expect(() => checkContract('garage', {})).toThrow(/unknown contract 'garage'/);
    expect(() => unknownFields('garage[]', [])).toThrow(/unknown contract/);
  });
});

test.describe('describeViolations', () => {
  const violations: ContractViolation[] = [
    { pointer: '/3/creationDate', keyword: 'format', expected: 'format vds-car-date (YYYY-MM-DDThh:mm:ss±hh:mm)', actual: '2026-11-02T10:00:00Z' },
    { pointer: '/0/deviceId', keyword: 'required', expected: "required property 'deviceId'", actual: undefined },
    { pointer: '', keyword: 'type', expected: 'array', actual: { a: 'x'.repeat(300) } },
  ];

  test('one readable line per violation', () => {
    const lines = describeViolations(violations).split('\n');
    expect(lines[0]).toBe('  at /3/creationDate: expected format vds-car-date (YYYY-MM-DDThh:mm:ss±hh:mm), got "2026-11-02T10:00:00Z"');
    expect(lines[1]).toBe("  at /0/deviceId: expected required property 'deviceId', got nothing (missing)");
    expect(lines[2]).toMatch(/^ {2}at \(root\): expected array, got \{"a":"x+…$/);
    expect(lines[2].length).toBeLessThan(160); // long values are cut
  });

  test('stops at max and says how many more', () => {
    expect(describeViolations(violations, 1).split('\n')).toEqual([
      '  at /3/creationDate: expected format vds-car-date (YYYY-MM-DDThh:mm:ss±hh:mm), got "2026-11-02T10:00:00Z"',
      '  … and 2 more violations',
    ]);
    expect(describeViolations([])).toBe('');
  });
});

test.describe('unknownFields', () => {
  test('finds a member neither document shows, in a car array', () => {
    expect(unknownFields('car[]', [ex.car, { ...ex.car, internalDbId: 9 }].reverse())).toEqual(['/0/internalDbId']);
  });

  test('nothing on clean records', () => {
    for (const { contract, body } of ex.ACCEPTED) expect(unknownFields(contract, body), contract).toEqual([]);
  });

  test('follows nested records, nullable alternatives, allOf and array items', () => {
    const status = {
      ...ex.status,
      accelerometer: { ...ex.accelerometer, t: 1 },
      signals: [ex.signals[0], { ...ex.signals[1], unit: 'km' }],
      updatedAt: ex.DATES.zulu,
    };
    expect(unknownFields('status', status).sort()).toEqual(['/accelerometer/t', '/signals/1/unit', '/updatedAt']);
    // createdCar = car + {userId, timezone}: members of both halves are known.
    expect(unknownFields('createdCar', { ...ex.createdCar, owner: 'x' })).toEqual(['/owner']);
    expect(unknownFields('trip', { ...ex.trip, endLocation: { ...ex.location, satCount: 8 } })).toEqual(['/endLocation/satCount']);
    expect(unknownFields('geojsonLineString', { ...ex.geojsonLineString, properties: {} })).toEqual(['/properties']);
    expect(unknownFields('errorArray', [{ ...ex.errorArrays.noAccess[0], code: 403 }])).toEqual(['/0/code']);
  });

  test('escapes pointer tokens and ignores bodies of the wrong shape', () => {
    expect(unknownFields('legacyError', { message: 'x', 'a/b~c': 1 })).toEqual(['/a~1b~0c']);
    expect(unknownFields('car[]', { not: 'an array' })).toEqual([]);
    expect(unknownFields('car', 'text')).toEqual([]);
  });

  test('unknown members are never failures', () => {
    expect(checkContract('car', { ...ex.car, internalDbId: 9 })).toEqual([]);
  });
});

test.describe('documentedOnly', () => {
  test('keeps the documented members at every depth and drops the others', () => {
    const summary = { ...ex.tripSummary, requestId: 'r-1', beginLocation: { ...ex.location, servedAt: ex.DATES.zulu } };
    expect(documentedOnly('tripSummary', summary)).toEqual(ex.tripSummary);
    // A full trip read through the summary's contract: its summary fields only.
    expect(documentedOnly('tripSummary', ex.trip)).toEqual(ex.tripSummary);
    expect(
      documentedOnly('location[]', [
        { ...ex.location, serial: 1 },
        { ...ex.location, serial: 2 },
      ]),
    ).toEqual([ex.location, ex.location]);
    expect(documentedOnly('status', { ...ex.emptyStatus, extra: 1 })).toEqual(ex.emptyStatus);
  });

  test('clean records are unchanged; bodies of the wrong shape are returned as they are', () => {
    for (const { contract, body } of ex.ACCEPTED) expect(documentedOnly(contract, body), contract).toEqual(body);
    expect(documentedOnly('car[]', { not: 'an array' })).toEqual({ not: 'an array' });
    expect(documentedOnly('car', 'text')).toBe('text');
  });
});

test('schemas are compiled once per process, each when first used; compileAll compiles every one', () => {
  const registry = contractRegistry();
  checkContract('car', ex.car);
  unknownFields('status', ex.status);
  expect(contractRegistry()).toBe(registry);
  expect(validatorFor('car')).toBe(validatorFor('car[]'));
  expect(validatorFor('car')).toBe(registry.validators.get('car'));
  compileAll();
  expect(registry.validators.size).toBe(registry.schemas.size);
});

test.describe('documentedKey', () => {
  /** The same members in the reverse order, at every depth. */
  const reversed = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(reversed)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .reverse()
              .map(([k, x]) => [k, reversed(x)]),
          )
        : v;

  test('is documentedOnly as JSON with the members in name order: the same whatever order the answer lists them in', () => {
    for (const { contract, body } of ex.ACCEPTED) {
      expect(documentedKey(contract, body), contract).toBe(canonicalJson(documentedOnly(contract, body)));
      expect(documentedKey(contract, reversed(body)), contract).toBe(documentedKey(contract, body));
    }
    expect(JSON.parse(documentedKey('trip', ex.trip))).toEqual(documentedOnly('trip', ex.trip));
  });

  test('members the documents do not show do not change it; a documented one does, at any depth', () => {
    const summary = { ...ex.tripSummary, requestId: 'r-1', beginLocation: { ...ex.location, servedAt: ex.DATES.zulu } };
    expect(documentedKey('tripSummary', summary)).toBe(documentedKey('tripSummary', ex.tripSummary));
    expect(documentedKey('tripSummary', { ...ex.tripSummary, beginLocation: { ...ex.location, latitude: 1.5 } })).not.toBe(
      documentedKey('tripSummary', ex.tripSummary),
    );
    expect(documentedKey('location[]', [{ ...ex.location, serial: 1 }])).toBe(documentedKey('location[]', [ex.location]));
    expect(documentedKey('car', 'text')).toBe('"text"');
  });

  test('canonicalJson: members in name order at every depth, arrays in their order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: null }], a: 'x' })).toBe('{"a":"x","b":[{"c":null,"d":1}]}');
    expect(canonicalJson([2, 1])).toBe('[2,1]');
  });
});

test.describe('members a client must not set', () => {
  test("derived from the contracts: the created car's members its creation body does not take, with their types (allOf and $ref followed)", () => {
    const members = serverMembers('createdCar', 'carCreationBody');
    expect([...members.keys()].sort()).toEqual(['cardbId', 'creationDate', 'deviceId', 'id', 'lastUpdateDate', 'userId']);
    expect(members.get('creationDate')).toEqual({ types: ['string'], format: 'vds-car-date' });
    expect(members.get('deviceId')).toEqual({ types: ['string', 'null'] });
    expect(memberSchemas('carCreationBody').has('timezone')).toBe(true);
  });
});
