// What each power or precision test proved, recorded as an annotation of the test (kept in
// Playwright's JSON report), and npm test's summary of them (scripts/self-test.ts): the gate power
// line and how each part was proven.
import fs from 'node:fs';
import { test } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { NOT_SELECTED } from '../../../src/verdict/verdict';

const POWER_ANNOTATION = 'vds-power';

type ProofKind = 'fault' | 'conforming' | 'command-fault' | 'command-conforming';

export interface ProofOutcome {
  kind: ProofKind;
  /** The fault spec, or the conforming server's label. */
  label: string;
  /** For a fault: caught (exit 1 on a failing check, core FAIL for a fault of the spec); for a conforming server: clean. */
  ok: boolean;
  exitCode: number | null;
  breaksSpec?: boolean;
  coreFailed?: boolean;
  /** The requirements whose checks failed. */
  failed: string[];
  /** How the fault was caught: by the requirements that caught it before, or by every check of its class. */
  how?: string;
  /** For a fault of the profile only: no core check failed against it. */
  coreCleanOnProfileFault?: boolean;
  /** How (core-reach.ts): every core check ran against it, those its code can reach, or none reaches its code. */
  coreProof?: 'all' | 'checks' | 'none';
}

export function recordOutcome(o: ProofOutcome): void {
  test.info().annotations.push({ type: POWER_ANNOTATION, description: JSON.stringify(o) });
}

/** The outcomes recorded in a Playwright JSON report (its last attempt of each test). */
export function readOutcomes(resultsFile: string): ProofOutcome[] {
  if (!fs.existsSync(resultsFile)) return [];
  const report = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { suites?: JsonSuite[] };
  const out: ProofOutcome[] = [];
  const walk = (s: JsonSuite) => {
    for (const spec of s.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const last = t.results?.[t.results.length - 1];
        const annotations = [...(last?.annotations ?? []), ...(t.annotations ?? [])];
        const found = annotations.find((a) => a.type === POWER_ANNOTATION && a.description);
        if (found) out.push(JSON.parse(found.description!) as ProofOutcome);
      }
    }
    for (const child of s.suites ?? []) walk(child);
  };
  for (const s of report.suites ?? []) walk(s);
  return out;
}

interface JsonAnnotation {
  type: string;
  description?: string;
}
interface JsonSuite {
  specs?: Array<{ tests?: Array<{ annotations?: JsonAnnotation[]; results?: Array<{ annotations?: JsonAnnotation[] }> }> }>;
  suites?: JsonSuite[];
}

/** The gate power, as npm test's summary prints it: what was proven, and how. */
export function powerLines(outcomes: ProofOutcome[]): string[] {
  const of = (kind: ProofKind) => outcomes.filter((o) => o.kind === kind);
  const faults = of('fault');
  const spec = faults.filter((f) => f.breaksSpec);
  const conforming = [...of('conforming'), ...of('command-conforming')];
  const sample = of('command-fault');
  const ok = (list: ProofOutcome[]) => list.filter((o) => o.ok).length;
  const profileOnly = faults.filter((f) => !f.breaksSpec);
  return [
    `gate power: ${ok(faults)}/${faults.length} reference faults caught by a non-advisory check, exit status 1; ` +
      `${spec.filter((f) => f.ok && f.coreFailed).length}/${spec.length} that break the spec fail the core class; ` +
      `${profileOnly.filter((f) => f.coreCleanOnProfileFault).length}/${profileOnly.length} that break only the profile fail no core check ` +
      `(against ${profileOnly.filter((f) => f.coreProof === 'all').length} every core check ran, against ${profileOnly.filter((f) => f.coreProof === 'checks').length} ` +
      `those whose requests reach its code, ${profileOnly.filter((f) => f.coreProof === 'none').length} reached by no core check on the clean reference) ` +
      '(each fault one test: one reference per worker switched to it, its checks run in-process through runCheck and the gate)',
    `precision: ${ok(conforming)}/${conforming.length} conforming servers exit 0 ` +
      `(${of('command-conforming').length} through npm run conformance, ${of('conforming').length} in-process, every check)`,
    `the command end to end: ${ok(sample)}/${sample.length} sampled faults (every route group, both classes, both targets) exit 1 through npm run conformance; ` +
      `${ok(of('command-conforming'))}/${of('command-conforming').length} conforming servers exit 0 through it`,
  ];
}

/** What keeps a conforming server's run from being clean: failing checks, and checks not run that it could show. */
export function falseAlarms(certificate: Certificate, mayNotRun: string[] = []): { failed: string[]; notRun: string[] } {
  const failed: string[] = [];
  const notRun: string[] = [];
  for (const r of certificate.requirements) {
    failed.push(...r.failures.map((f) => `${f.check}: expected ${f.expected}; actual ${f.actual}`.slice(0, 400)));
    if (!r.applicable || mayNotRun.includes(r.id)) continue;
    for (const n of r.notRun) {
      if (n.reason === NOT_SELECTED) continue;
      notRun.push(...(n.checks.length ? n.checks : [r.id]).map((c) => `${c}: ${n.reason}`.slice(0, 400)));
    }
  }
  return { failed, notRun };
}
