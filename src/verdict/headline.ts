// The run's verdict in one line, the first thing every report says (the console, the certificate's
// three forms, JUnit, the Allure report's quality gate, verify): PASS, FAIL or INCOMPLETE over the
// classes the gate judged, and the one reason, e.g. "FAIL: 4 requirements not run (certification needs
// every one): AUTH-EXPIRED, ...". Decided once here from the class verdicts and the gate, so that no
// report words it its own way. A run that did not complete has no verdict.
import type { ConformanceClass } from '../catalogue/catalogue';
import { plural } from '../util/words';
import { CLASSES, type Certificate, type Headline } from './model';
import { counted, NOT_SELECTED } from './verdict';

/** At most this many requirement ids in the reason; the rest counted. */
const SHOWN = 6;

export function headlineOf(c: Pick<Certificate, 'run' | 'requirements' | 'gate' | 'certification'>): Headline {
  if (c.run.errors.length) return { verdict: 'NO VERDICT', reason: `the run did not complete: ${c.run.errors[0].split('\n')[0]}` };
  const certify = c.certification !== undefined || c.gate?.rule === 'certification';
  const classes: ConformanceClass[] = !certify && c.gate?.classes === 'core' ? ['core'] : CLASSES;
  const scope = classes.length === 1 ? ' of the spec (--gate core)' : '';
  const judged = c.requirements.filter((r) => classes.includes(r.class) && counted(r));
  const failed = judged.filter((r) => r.status === 'failed').map((r) => r.id);
  const notRunAll = judged.filter((r) => r.status === 'not-run');
  // A requirement whose checks were all left out by the selection (--grep, a file filter) was not asked for.
  const leftOut = notRunAll.filter((r) => r.notRun.every((n) => n.reason.includes(NOT_SELECTED))).length;
  const notRun = notRunAll.filter((r) => !r.notRun.every((n) => n.reason.includes(NOT_SELECTED))).map((r) => r.id);
  const unselected = leftOut ? `${notRun.length ? '; ' : ''}${plural(leftOut, 'requirement')} not selected in this run` : '';
  if (failed.length) {
    const also = notRun.length ? `; ${plural(notRun.length, 'requirement')} not run` : '';
    return {
      verdict: 'FAIL',
      reason: `${plural(failed.length, 'requirement')}${scope} failed: ${ids(failed)}${also}${leftOut ? `; ${plural(leftOut, 'requirement')} not selected in this run` : ''}`,
    };
  }
  const everyOne = certify ? 'certification needs every one' : c.gate?.rule === 'completeness' ? '--require-complete needs every one' : undefined;
  if (notRun.length || leftOut) {
    return {
      verdict: everyOne ? 'FAIL' : 'INCOMPLETE',
      reason: `${notRun.length ? `${plural(notRun.length, 'requirement')}${scope} not run${everyOne ? ` (${everyOne})` : ''}: ${ids(notRun)}` : ''}${unselected}`,
    };
  }
  return { verdict: 'PASS', reason: `every requirement${scope ? scope : ' of the spec and the profile'} ran and passed (${judged.length})` };
}

function ids(list: string[]): string {
  return list.length > SHOWN ? `${list.slice(0, SHOWN).join(', ')} (+${list.length - SHOWN} more)` : list.join(', ');
}
