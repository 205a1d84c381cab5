// The spec's error body judged on every error the run provokes (CORE-ERROR-BODY, `judges: errors-seen`):
// a 416 that only a profile check provokes (a reversed range) is judged by core, in that check's words,
// without a request more; alone, CORE-ERROR-BODY still sees it: the checks that provoke the errors it
// judges run as feeders, their outcomes unreported (selection.ts withFeeders). In-process against the reference.
import { expect, test } from '@playwright/test';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import { keysPattern } from '../../../src/catalogue/selection';
import { loadTarget } from '../../../src/setup/target';
import { startReference, type Reference } from '../../../scripts/reference-process';
import { runInProcess } from '../../../src/engine/in-process';

test.setTimeout(120_000);

let reference: Reference;
test.beforeAll(async () => {
  reference = await startReference({ target: 'local', fault: 'range-error-no-tip' });
});
test.afterAll(async () => reference?.stop());

const ROUTE = 'GET /cars/{carId}/locations';
const run = (keys: string[]) =>
  runInProcess({ target: loadTarget(reference.targetFile), catalogue: loadCatalogue(), selection: { grep: new RegExp(keysPattern(keys)) } });

test('a 416 without tip answered to a profile check fails CORE-ERROR-BODY on its route, naming the check; core FAILs', async () => {
  const { certificate, records } = await run([`CORE-ERROR-BODY ${ROUTE}`, `QUERY-RANGE-REVERSED ${ROUTE}`]);
  const judged = records.find((r) => r.key === `CORE-ERROR-BODY ${ROUTE}`)!;
  expect(judged.status).toBe('failed');
  expect(judged.failure!.actual).toMatch(/the 416 answered to QUERY-RANGE-[A-Z-]+ GET \/cars\/\{carId\}\/locations/);
  expect(judged.failure!.actual).toMatch(/tip/);
  // The judgement sent nothing more than its own provocations.
  expect(judged.exchanges.every((e) => !new URL(e.url).searchParams.has('begin'))).toBe(true);
  expect(certificate.verdict.core).toBe('FAIL');
});

test('alone, CORE-ERROR-BODY still judges the 416 only profile checks provoke: they run as feeders, unreported', async () => {
  const { certificate, records } = await run([`CORE-ERROR-BODY ${ROUTE}`]);
  expect(records.map((r) => `${r.key}: ${r.status}`)).toEqual([`CORE-ERROR-BODY ${ROUTE}: failed`]);
  expect(records[0].failure!.actual).toMatch(/the 416 answered to QUERY-RANGE-/);
  expect(certificate.requirements.filter((r) => r.class === 'profile' && r.checks.passed + r.checks.failed > 0)).toEqual([]);
});
