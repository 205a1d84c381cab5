// reports/conformance.md: the certificate for people (a pull request, a ticket, an e-mail).
import { GROUPS } from '../catalogue/catalogue';
import { CLASSES } from '../verdict/model';
import {
  countsLine,
  plural,
  reconnectedLine,
  renewalsLine,
  seconds,
  shortList,
  STATUS_MARK,
  STATUS_WORD,
  suiteBrokeLine,
  targetLine,
  verdictMeaning,
  headlineLine,
} from './format';
import type { Certificate, CheckFailure, RequirementResult, Triage } from '../verdict/model';
import { notRunItems, readinessMarkdown } from './render-readiness';

export function renderMarkdown(c: Certificate): string {
  return (
    [header(c), verdictTable(c), gateSection(c), runSection(c), groupTable(c), failuresSection(c), notRunSection(c), warningsSection(c), latencySection(c)]
      .filter(Boolean)
      .join('\n\n') + '\n'
  );
}

function header(c: Certificate): string {
  const headline = headlineLine(c);
  return [
    `# VDS ${c.specVersion} conformance certificate`,
    '',
    ...(headline ? [`**${text(headline)}**`, ''] : []),
    ...(notRunItems(c).length
      ? ['What did not run, by what it lacked (a certification needs every requirement):', '', ...readinessMarkdown(notRunItems(c), text), '']
      : []),
    `- **Target:** ${text(targetLine(c))} — from \`${c.target.source}\``,
    `- **Suite:** ${c.suite.name} ${c.suite.version}, spec ${c.specVersion}`,
    `- **Run:** ${c.run.date}, ${seconds(c.run.durationMs)}${c.run.monitor ? ', monitoring (read-only)' : ''}`,
    `- **Checks:** ${countsLine(c)}`,
    ...(c.run.throttledRequests ? [`- **Throttled:** ${c.run.throttledRequests} answers 429 Too Many Requests waited out and retried (not failures)`] : []),
    ...(reconnectedLine(c) ? [`- **Reconnected:** ${text(reconnectedLine(c)!)}`] : []),
    ...(renewalsLine(c) ? [`- **Renewed:** ${text(renewalsLine(c)!)}`] : []),
    ...(suiteBrokeLine(c) ? [`- **Not run because of the suite:** ${text(suiteBrokeLine(c)!)}`] : []),
    ...certificationLines(c),
  ].join('\n');
}

function certificationLines(c: Certificate): string[] {
  const k = c.certification;
  if (!k) return [];
  const p = k.product;
  return [
    `- **Certification:** ${text(k.rule)}`,
    ...(p ? [`- **Product:** ${text([p.name, p.version].filter(Boolean).join(' '))}${p.vendor ? ` by ${text(p.vendor)}` : ''}`] : []),
    `- **Suite build:** commit \`${k.suite.commit}\`${k.suite.workingTreeModified === true ? ' (working tree modified)' : ''}, ` +
      `sha256 of ${k.suite.hashed.join(', ')} \`${k.suite.contentSha256}\``,
  ];
}

function verdictTable(c: Certificate): string {
  const rows = CLASSES.map((k) => {
    const n = c.counts.classes[k];
    return `| ${k} | **${c.verdict[k]}** | ${n.requirements} | ${n.passed} | ${n.failed} | ${n.notRun} | ${verdictMeaning(c, k)} |`;
  });
  const advisory = CLASSES.reduce((sum, k) => sum + c.counts.classes[k].advisory, 0);
  const notApplicable = CLASSES.reduce((sum, k) => sum + (c.counts.classes[k].notApplicable ?? 0), 0);
  return [
    '## Verdict',
    '',
    '| Class | Verdict | Requirements | Passed | Failed | Not run | Meaning |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '*core*: what the normative spec (vehicle-data-service-v3.md) states; *profile*: what the documented profile (v3-profile.md) adds.' +
      (advisory ? ` Advisory requirements (${advisory}) only warn and never count.` : '') +
      (notApplicable ? ` Requirements of another environment than this ${c.target.env} target (${notApplicable}) are listed but never count.` : ''),
  ].join('\n');
}

function gateSection(c: Certificate): string {
  const lines: string[] = [];
  if (c.gate) lines.push(`**Exit status: ${c.gate.exitCode ?? ''} ${c.gate.status}** (${text(c.gate.rule)}): ${text(c.gate.reasons.join('; '))}`);
  const b = c.baseline;
  if (b) {
    lines.push(
      '',
      `Baseline \`${b.path}\`${b.written ? ' (written by this run)' : ''}: ${plural(b.regressions.length, 'regression')}, ${plural(b.known.length, 'known failure')}.`,
    );
    for (const r of b.regressions) lines.push(`- regression (${r.class}): \`${r.check}\``);
    for (const f of b.fixed) {
      lines.push(
        `- fixed: remove from the baseline: ${f.wholeEntry ? `the whole ${f.requirement} entry` : `${f.requirement}: ${f.checks.map((k) => `\`${k}\``).join(', ')}`}`,
      );
    }
    if (b.unverified.length) lines.push(`- not judged (did not run now): ${shortList(b.unverified.map((u) => `\`${u.check}\``)).join(', ')}`);
  }
  const cmp = c.comparison;
  if (cmp) lines.push('', `Compared with \`${cmp.previous.path}\` (${cmp.previous.date}): see changes.md.`);
  // Up here too, in a line each: a CI job summary shows this page from the top.
  if (c.triage) {
    lines.push('', `Likely causes of the ${plural(c.triage.failed, 'failing check')} (details under Failures):`, '');
    c.triage.causes.forEach((k, i) => lines.push(`${i + 1}. ${text(k.title)}: ${plural(k.explains, 'check')}`));
  }
  return lines.length ? ['## Exit status', '', ...lines].join('\n') : '';
}

function runSection(c: Certificate): string {
  if (!c.run.errors.length && !c.run.warnings.length) return '';
  return ['## Run', '', ...c.run.errors.map((e) => `- **error:** ${text(e)}`), ...c.run.warnings.map((w) => `- warning: ${text(w)}`)].join('\n');
}

function groupTable(c: Certificate): string {
  const head = `| Requirement | Class | ${GROUPS.join(' | ')} | Status |`;
  const rows = c.requirements.map((r) => {
    const cells = GROUPS.map((g) => (r.groups[g] ? STATUS_MARK[r.groups[g]!] : ''));
    return `| ${r.id}${r.advisory ? ' (advisory)' : ''} | ${r.class} | ${cells.join(' | ')} | ${STATUS_WORD[r.status]} |`;
  });
  const counts = GROUPS.map((g) => {
    const k = c.counts.groups[g].checks;
    return `${k.passed}/${k.passed + k.failed + k.notRun}`;
  });
  return [
    '## Requirements by route group',
    '',
    `${STATUS_MARK.passed} passed · ${STATUS_MARK.failed} failed · ${STATUS_MARK['not-run']} not run · blank: no check of it in that group`,
    '',
    head,
    `|---|---|${GROUPS.map(() => '---').join('|')}|---|`,
    ...rows,
    `| *checks passed* | | ${counts.join(' | ')} | |`,
  ].join('\n');
}

function failuresSection(c: Certificate): string {
  const failed = c.requirements.filter((r) => r.failures.length);
  if (!failed.length) return '## Failures\n\nNone.';
  const causeOf = new Map(c.triage?.causes.flatMap((k, i) => k.checks.map((check) => [check, i + 1] as const)) ?? []);
  return ['## Failures', '', ...(c.triage ? [triageSection(c.triage)] : []), ...failed.map((r) => failureBlock(r, causeOf))].join('\n');
}

/** The likely causes first (src/verdict/triage.ts), numbered: a failing check below names its cause's number. */
function triageSection(t: Triage): string {
  const causes = t.causes.map((k, i) =>
    [
      `${i + 1}. **${text(k.title)}**: ${plural(k.explains, 'failing check')}`,
      `   - routes: ${k.routes.map((r) => code(r)).join(', ')}`,
      ...(k.example ? [`   - example: ${code(k.example.request)}${k.example.body ? ` answered ${code(k.example.body)}` : ''}`] : []),
      ...(k.example?.curl ? [`   - reproduce: ${code(k.example.curl)}`] : []),
      `   - fix: ${text(k.fix)}`,
    ].join('\n'),
  );
  return [
    '### Likely causes (triage)',
    '',
    `${plural(t.failed, 'failing check')}; ${t.explained} of them explained by the causes below, each by one cause, most checks first. ` +
      "Every failing check is still listed by requirement below, with its cause's number.",
    '',
    ...causes,
    '',
  ].join('\n');
}

function failureBlock(r: RequirementResult, causeOf: Map<string, number>): string {
  return [
    `### ${STATUS_MARK.failed} ${r.id}: ${text(r.title)}`,
    '',
    `${r.class}, ${r.severity} — cite: ${text(r.cite)}`,
    '',
    ...r.failures.map((f) => failureItem(f, causeOf.get(f.check))),
  ].join('\n');
}

function failureItem(f: CheckFailure, cause?: number): string {
  const lines = [`- \`${f.check}\`${cause ? ` (likely cause ${cause})` : ''}`, `  - expected: ${code(f.expected)}`, `  - actual: ${code(f.actual)}`];
  if (f.pointer) lines.push(`  - at: ${code(f.pointer)}`);
  if (f.request) lines.push(`  - request: ${code(f.request)}`);
  if (f.body) lines.push(`  - body: ${code(f.body)}`);
  if (f.curl) lines.push(`  - reproduce: ${code(f.curl)}`);
  if (f.rerun) lines.push(`  - rerun the check: ${code(f.rerun)}`);
  return `${lines.join('\n')}\n`;
}

/** Why a requirement does not apply to the target: each distinct reason its checks gave. */
const naReasons = (r: Certificate['requirements'][number]) => [...new Set((r.notApplicable ?? []).map((n) => n.reason))].join('; ');

function notRunSection(c: Certificate): string {
  const elsewhere = c.requirements.filter((r) => r.applicable === false);
  const notApplicable = elsewhere.length
    ? [
        '',
        `## Not applicable to this target (${c.target.env})`,
        '',
        ...elsewhere.map((r) => `- ${r.id}: ${text(r.title)} (${r.class}; cite: ${text(r.cite)}). Why: ${text(naReasons(r))}`),
      ].join('\n')
    : '';
  const notRun = c.requirements.filter((r) => r.applicable !== false && (r.status === 'not-run' || (r.status === 'failed' && r.notRun.length)));
  if (!notRun.length) return `## Not run\n\nEvery check ran.${notApplicable ? `\n${notApplicable}` : ''}`;
  const blocks = notRun.map((r) =>
    [
      `### ${STATUS_MARK['not-run']} ${r.id}: ${text(r.title)}`,
      '',
      `${r.class}${r.advisory ? ' (advisory)' : ''} — cite: ${text(r.cite)}`,
      '',
      ...r.notRun.map(
        (n) =>
          `- **What would make it run:** ${text(n.reason)}${n.checks.length ? `\n  - ${plural(n.checks.length, 'check')}: ${shortList(n.checks.map((k) => `\`${k}\``)).join(', ')}` : ''}`,
      ),
      '',
    ].join('\n'),
  );
  return ['## Not run', '', ...blocks].join('\n') + notApplicable;
}

function warningsSection(c: Certificate): string {
  const warned = c.requirements.filter((r) => r.warnings.length);
  if (!warned.length) return '';
  return [
    '## Warnings',
    '',
    ...warned.flatMap((r) =>
      r.warnings.map(
        (w) =>
          `- ${r.id}: ${text(w.message)} (${shortList(
            w.checks.map((k) => `\`${k}\``),
            3,
          ).join(', ')})`,
      ),
    ),
  ].join('\n');
}

function latencySection(c: Certificate): string {
  const l = c.serverLatency;
  if (!l) return '';
  return [
    '## Latency per route (ms)',
    '',
    `How it was measured: ${text(l.method)}`,
    '',
    '| Route | Samples | median | p90 | max | Note |',
    '|---|---|---|---|---|---|',
    ...Object.entries(l.routes).map(([route, s]) => `| ${text(route)} | ${s.count} | ${s.p50} | ${s.p90} | ${s.max} | ${text(s.note ?? '')} |`),
  ].join('\n');
}

/** Inline code that survives any content: Markdown and HTML in server answers stay inert. */
function code(value: string): string {
  const flat = value.replace(/\s*\n\s*/g, ' ⏎ ');
  const fence = flat.includes('`') ? '``' : '`';
  return `${fence} ${flat} ${fence}`;
}

/** Plain text in Markdown: characters that would format or break a table are escaped. */
export function text(value: string): string {
  return value.replace(/\s*\n\s*/g, ' ').replace(/([\\`*_[\]<>|])/g, '\\$1');
}
