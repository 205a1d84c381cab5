// Small wording helpers shared by the console, Markdown and HTML renderings of a certificate.
import { plural } from '../util/words';

export { plural, shortList } from '../util/words';
import type { Certificate, CheckFailure, CheckStatus } from '../verdict/model';
import type { ConformanceClass } from '../catalogue/catalogue';

export const STATUS_MARK: Record<CheckStatus, string> = { passed: '✔', failed: '✘', 'not-run': '○', 'not-applicable': '–' };
export const STATUS_WORD: Record<CheckStatus, string> = { passed: 'passed', failed: 'failed', 'not-run': 'not run', 'not-applicable': 'not applicable' };

/** What a class's verdict means in this run: a certification's FAIL may come from checks not run alone. */
export function verdictMeaning(c: Pick<Certificate, 'verdict' | 'counts'>, k: ConformanceClass): string {
  const n = c.counts.classes[k];
  switch (c.verdict[k]) {
    case 'PASS':
      return 'every requirement ran and passed';
    case 'INCOMPLETE':
      return 'no requirement failed, but some did not run';
    case 'FAIL':
      return n.failed ? `${plural(n.failed, 'requirement')} failed` : `${plural(n.notRun, 'requirement')} did not run, and a certification needs every one`;
  }
}

/** The run's verdict and its one reason, as every report's first line says it (src/verdict/headline.ts decides it). */
export function headlineLine(c: Pick<Certificate, 'headline'>): string | undefined {
  return c.headline ? `${c.headline.verdict}: ${c.headline.reason}` : undefined;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function targetLine(c: Certificate): string {
  const t = c.target;
  return `${t.name} (${t.baseUrl}, ${t.env}${t.allowWrites ? ', writes allowed' : ', read-only'})`;
}

/** A failing check's evidence, a line each: expected, actual, where, the request, how to reproduce it. */
export function failureLines(f: CheckFailure): string[] {
  return [
    `expected: ${f.expected}`,
    `actual:   ${f.actual}`,
    ...(f.pointer ? [`at:       ${f.pointer}`] : []),
    ...(f.request ? [`request:  ${f.request}`] : []),
    ...(f.body ? [`body:     ${f.body}`] : []),
    ...(f.curl ? [`curl:     ${f.curl}`] : []),
    ...(f.rerun ? [`rerun:    ${f.rerun}`] : []),
  ];
}

/** Requests sent again on a fresh connection (the kept-alive one closed before answering): never failures. */
export function reconnectedLine(c: Certificate): string | undefined {
  const n = c.run.reconnectedRequests ?? 0;
  return n
    ? `${plural(n, 'request')} sent again on a fresh connection: the kept-alive connection ${n === 1 ? 'it' : 'they'} went on was closed before any byte of answer (not failures)`
    : undefined;
}

/** The suite's tokens renewed within the run (the server's tokens expire sooner than a run): never failures. */
export function renewalsLine(c: Certificate): string | undefined {
  const n = c.run.tokenRenewals ?? 0;
  return n
    ? `${plural(n, 'token renewal')}: tokens the suite minted ran out within the run and were renewed (the refresh grant, else minted again); not failures`
    : undefined;
}

/**
 * The checks the suite itself broke under (a defect of the suite or of its inputs), counted apart
 * from the other checks not run: never a failure of the server, and never what a target file fixes.
 */
export function suiteBrokeLine(c: Certificate): string | undefined {
  const n = c.counts.checks.notRunBySuite ?? 0;
  return n
    ? `${plural(n, 'check')} did not run because the suite itself broke under ${n === 1 ? 'it' : 'them'} (a defect of the suite or of its inputs, not of the server: please report it)`
    : undefined;
}

/** The plain line CI reads: "N passed, N failed", then what did not run. */
export function countsLine(c: Certificate): string {
  const k = c.counts.checks;
  return `${k.passed} passed, ${k.failed} failed, ${k.notRun} not run`;
}
