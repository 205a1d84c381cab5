// A fault hidden by a conforming choice: pin-failures-lost-update (wrong pins sent together count
// once) on a server that also counts malformed pins as failed attempts (variant malformed-pin-counts).
// Had the malformed pin come before the lock was decided, it would have made up for the failure the
// server lost and the device would have locked "in time". The pin attempts are ordered so that the
// lock is decided by wrong pins alone (DEV-PIN-WRONG, DEV-PIN-LOCKOUT, then DEV-PIN-MALFORMED), so the
// fault shows whatever a malformed pin counts for, and whether the lock comes before the pin's format
// (variant pin-lock-before-format). The same servers without the fault pass the three checks: the
// order takes nothing from a conforming server. One reference per set of variants (a variant is fixed
// when it starts), moved from no fault to the fault through its control API.
import { requirementsPattern } from '../../../src/catalogue/selection';
import { loadTarget } from '../../../src/setup/target';
import { startReference } from '../../../scripts/reference-process';
import { runInProcess } from '../../../src/engine/in-process';
import { expect, test } from './fixtures';

const PIN_CHECKS = ['DEV-PIN-WRONG', 'DEV-PIN-LOCKOUT', 'DEV-PIN-MALFORMED'];

for (const variant of ['malformed-pin-counts', 'malformed-pin-counts,pin-lock-before-format']) {
  test(`fault pin-failures-lost-update is caught beside variants ${variant}, which alone pass the pin checks`, async ({
    browserSession,
    browserChoice,
    catalogue,
  }) => {
    test.setTimeout(120_000);
    const reference = await startReference({ target: 'local', variant });
    try {
      const target = loadTarget(reference.targetFile);
      const run = () =>
        runInProcess({ target, catalogue, browser: browserSession, browserChoice, selection: { grep: new RegExp(requirementsPattern(PIN_CHECKS)) } });
      const outcomes = (r: Awaited<ReturnType<typeof run>>) =>
        Object.fromEntries(r.certificate.requirements.filter((q) => PIN_CHECKS.includes(q.id)).map((q) => [q.id, q.status]));

      await reference.setFault(null);
      const clean = await run();
      expect(outcomes(clean), 'the conforming server passes every pin check').toEqual(Object.fromEntries(PIN_CHECKS.map((id) => [id, 'passed'])));
      expect(clean.exitCode).toBe(0);

      await reference.setFault('pin-failures-lost-update');
      const faulty = await run();
      expect(outcomes(faulty), 'the lost update shows as a lock that never came; the other pin checks still pass').toEqual({
        'DEV-PIN-WRONG': 'passed',
        'DEV-PIN-LOCKOUT': 'failed',
        'DEV-PIN-MALFORMED': 'passed',
      });
      const failure = faulty.records.find((r) => r.requirement === 'DEV-PIN-LOCKOUT')?.failure;
      expect(failure?.actual, 'the right pin associated the device').toMatch(/status 204: the device was associated/);
      expect(faulty.exitCode).toBe(1);
    } finally {
      await reference.stop();
    }
  });
}
