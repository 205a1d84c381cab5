// The verdict summary printed at the end of a run: short, plain text (CI logs), pointing to the files
// with the details. Its last line is the plain "N passed, N failed, N not run" that CI reads.
import path from 'node:path';
import { CLASSES } from '../verdict/model';
import { countsLine, headlineLine, plural, reconnectedLine, renewalsLine, shortList, STATUS_MARK, suiteBrokeLine, targetLine } from './format';
import { RUN_STOPPED, type Certificate, type Triage } from '../verdict/model';
import { REPORT_FILES } from '../options/paths';
import { commandLine } from '../options/options';
import { renderChangesText } from './render-changes';
import { itemsLines, notRunItems } from './render-readiness';

const MAX_FAILED_CHECKS = 12;

/**
 * `more`: lines to print after the reports' (the trend --history drew), before the closing counts line.
 * `replay`: a replay's own tally (verify), whose exit status is verify's to say, not this run's.
 */
export function renderConsole(c: Certificate, reportsDir: string, more: string[] = [], replay = false): string {
  if (c.run.errors.length) {
    // A broken run: Playwright has just printed the error; repeating it, or counts of checks that
    // never ran, would bury it. A stopped run (Ctrl-C, a timeout) has no other message: say what it kept.
    const stopped = c.run.errors.length === 1 && (Object.values(RUN_STOPPED) as string[]).includes(c.run.errors[0]);
    const why = stopped ? `${c.run.errors[0]} (${countsLine(c)}; the reports keep what ran)` : 'see the error above';
    return (
      `\nVDS ${c.specVersion} conformance of ${targetLine(c)}: no verdict, the run did not complete: ${why}.\n` +
      `  Reports: ${rel(path.join(reportsDir, REPORT_FILES.certificateHtml))} (also .md, .json)\n${more.map((l) => `${l}\n`).join('')}`
    );
  }
  const out: string[] = ['', `VDS ${c.specVersion} conformance of ${targetLine(c)}`];
  const headline = headlineLine(c);
  if (headline && !replay) out.push(`  ${headline}`);
  const notRunFirst = replay ? [] : notRunItems(c);
  if (notRunFirst.length) out.push('  What did not run, by what it lacked (a certification needs every requirement):', ...itemsLines(notRunFirst, '    '));
  for (const k of CLASSES) {
    const n = c.counts.classes[k];
    const parts = [`${n.passed} passed`, n.failed ? `${n.failed} failed` : '', n.notRun ? `${n.notRun} not run` : ''].filter(Boolean);
    const uncounted = [n.advisory ? `${n.advisory} advisory` : '', n.notApplicable ? `${n.notApplicable} not applicable to this target` : ''].filter(Boolean);
    const advisory = uncounted.length ? ` (+${uncounted.join(', ')}: not counted)` : '';
    out.push(`  ${k.padEnd(8)} ${c.verdict[k].padEnd(11)} ${plural(n.requirements, 'requirement')}: ${parts.join(', ')}${advisory}`);
  }
  for (const w of c.run.warnings) out.push(`  run warning: ${w}`);
  if (c.run.throttledRequests)
    out.push(`  throttled: ${plural(c.run.throttledRequests, 'answer')} 429 Too Many Requests waited out and retried (not failures)`);
  const reconnected = reconnectedLine(c);
  if (reconnected) out.push(`  reconnected: ${reconnected}`);
  const renewals = renewalsLine(c);
  if (renewals) out.push(`  renewed: ${renewals}`);
  const suiteBroke = suiteBrokeLine(c);
  if (suiteBroke) out.push(`  suite: ${suiteBroke}; see Not run`);

  const failed = c.requirements.filter((r) => r.failures.length);
  if (failed.length) {
    // With a triage, its causes come first and the list by requirement shows the other failures.
    const explained = new Set(c.triage?.causes.flatMap((k) => k.checks) ?? []);
    if (c.triage) out.push(...triageLines(c.triage));
    const rest = failed.map((r) => ({ r, failures: r.failures.filter((f) => !explained.has(f.check)) }));
    const covered = rest.filter((x) => !x.failures.length).map((x) => x.r.id);
    if (c.triage && rest.some((x) => x.failures.length)) out.push('  Other failures, by requirement:');
    else if (!c.triage) out.push('  Failed:');
    let shown = 0;
    for (const { r, failures } of rest) {
      if (!failures.length) continue;
      out.push(`    ${STATUS_MARK.failed} ${r.id} (${r.class}, ${r.severity}): ${r.title}`, `        cite: ${r.cite}`);
      for (const f of failures) {
        if (shown++ >= MAX_FAILED_CHECKS) continue;
        out.push(`        ${f.check}`, `          expected: ${oneLine(f.expected)}`, `          actual:   ${oneLine(f.actual)}`);
        if (f.curl) out.push(`          curl:     ${f.curl}`);
        if (f.rerun) out.push(`          rerun:    ${f.rerun}`);
      }
    }
    if (shown > MAX_FAILED_CHECKS) out.push(`    … ${shown - MAX_FAILED_CHECKS} more failing checks in conformance.md`);
    if (covered.length) out.push(`  Requirements failed only by the causes above: ${covered.join(', ')} (every failing check in conformance.md)`);
  }
  const notRun = c.requirements.filter((r) => r.status === 'not-run' && r.applicable !== false);
  const elsewhere = c.requirements.filter((r) => r.applicable === false);
  if (elsewhere.length) {
    out.push(`  Not applicable to this target (${c.target.env}; why: conformance.md): ${elsewhere.map((r) => r.id).join(', ')}`);
  }
  if (notRun.length) {
    out.push(`  Not run: ${plural(notRun.length, 'requirement')}`);
    const reasons = new Map<string, number>();
    for (const r of notRun) for (const n of r.notRun) reasons.set(n.reason, (reasons.get(n.reason) ?? 0) + Math.max(1, n.checks.length));
    const lines = [...reasons.entries()].map(([reason, n]) => `${reason} (${plural(n, 'check')})`);
    for (const line of shortList(lines, 6)) out.push(`    ${STATUS_MARK['not-run']} ${line}`);
  }
  const b = c.baseline;
  if (b) {
    out.push(
      `  Baseline ${rel(b.path)}${b.written ? ' (written by this run)' : ''}: ${plural(b.regressions.length, 'regression')}, ${plural(b.known.length, 'known failure')}`,
    );
    for (const r of b.regressions) out.push(`    regression (${r.class}${r.class === 'core' ? '' : ', not gating'}): ${r.check}`);
    for (const f of b.fixed) out.push(`    fixed: remove from the baseline: ${f.wholeEntry ? `the whole ${f.requirement} entry` : f.checks.join('; ')}`);
  }
  if (c.comparison) out.push(...renderChangesText(c.comparison).map((l) => `  ${l}`));
  if (c.certification && !replay) out.push(`  Certification: ${c.certification.rule}`);
  if (c.gate && !replay) out.push(`  Exit status ${c.gate.exitCode ?? ''}: ${c.gate.status} (${c.gate.rule}): ${c.gate.reasons.join('; ')}`);
  out.push(
    `  Reports: ${rel(path.join(reportsDir, REPORT_FILES.certificateHtml))} (also .md, .json), ${REPORT_FILES.junit}, ${REPORT_FILES.html}/, ${REPORT_FILES.allureResults}/ (${commandLine('report')})`,
  );
  out.push(...more);
  out.push(countsLine(c));
  return `${out.join('\n')}\n`;
}

/** The triage: each likely cause in a few lines, most checks first. */
function triageLines(t: Triage): string[] {
  const out = [`  Failed: ${plural(t.failed, 'check')}; likely causes first (${t.explained} of them explained, each by one cause):`];
  for (const k of t.causes) {
    out.push(`    ${STATUS_MARK.failed} ${k.title}: ${plural(k.explains, 'check')}`);
    out.push(`        routes:  ${shortList(k.routes, 4).join(', ')}`);
    if (k.example) {
      out.push(`        example: ${oneLine(k.example.request)}${k.example.body ? ` ${oneLine(k.example.body, 120)}` : ''}`);
      if (k.example.curl) out.push(`                 ${k.example.curl}`);
    }
    out.push(`        fix:     ${k.fix}`);
  }
  return out;
}

function oneLine(text: string, max = 240): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function rel(file: string): string {
  const r = path.relative(process.cwd(), file);
  return r && !r.startsWith('..') ? r : file;
}
