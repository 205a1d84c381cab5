// reports/conformance.html: the certificate as one self-contained page (inline CSS, no script, no
// external asset), so it opens from disk or as a mail attachment.
import { GROUPS } from '../catalogue/catalogue';
import { CLASSES } from '../verdict/model';
import {
  countsLine,
  plural,
  reconnectedLine,
  renewalsLine,
  seconds,
  STATUS_MARK,
  STATUS_WORD,
  suiteBrokeLine,
  targetLine,
  verdictMeaning,
  headlineLine,
} from './format';
import type { Certificate, CheckFailure, RequirementResult, Triage } from '../verdict/model';
import { notRunItems } from './render-readiness';

export const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:75rem;padding:0 1rem;color:#1d2330}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #d9dde5;padding-bottom:.2rem}
h3{font-size:1rem;margin:1.2rem 0 .3rem}table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #d9dde5;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f3f5f8}
td.c{text-align:center}code,pre{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;background:#f3f5f8;border-radius:3px}
code{padding:0 .2rem}pre{padding:.4rem .6rem;white-space:pre-wrap;word-break:break-word;margin:.2rem 0}
.PASS,.passed{color:#11713a}.FAIL,.failed{color:#b3261e}.INCOMPLETE,.not-run{color:#8a5a00}
.verdict{font-weight:700}.muted{color:#5c6475}.box{border:1px solid #d9dde5;border-radius:4px;padding:.5rem .8rem;margin:.5rem 0}
table.wide{width:100%}table.wide td{width:33%}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.3rem 0}dt{font-weight:600}dd{margin:0}
`;

export function renderHtml(c: Certificate): string {
  const body = [
    header(c),
    verdictTable(c),
    gateSection(c),
    runSection(c),
    groupTable(c),
    failuresSection(c),
    notRunSection(c),
    warningsSection(c),
    latencySection(c),
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>VDS ${esc(c.specVersion)} conformance: ${esc(c.target.name)}</title><style>${CSS}</style></head>
<body>
${body}
</body></html>
`;
}

function header(c: Certificate): string {
  const headline = headlineLine(c);
  return `<h1>VDS ${esc(c.specVersion)} conformance certificate</h1>
${headline ? `<p class="box verdict ${esc(c.headline!.verdict)}" id="headline">${esc(headline)}</p>\n` : ''}${notRunHead(c)}<dl>
<dt>Target</dt><dd>${esc(targetLine(c))} <span class="muted">from ${esc(c.target.source)}</span></dd>
<dt>Suite</dt><dd>${esc(c.suite.name)} ${esc(c.suite.version)}, spec ${esc(c.specVersion)}</dd>
<dt>Run</dt><dd>${esc(c.run.date)}, ${esc(seconds(c.run.durationMs))}${c.run.monitor ? ', monitoring (read-only)' : ''}</dd>
<dt>Checks</dt><dd>${esc(countsLine(c))}</dd>
${runCountRows(c)}${certificationRows(c)}</dl>`;
}

/** A certification's checks not run, first, by what they lacked and how to get it (render-readiness.ts). */
function notRunHead(c: Certificate): string {
  const items = notRunItems(c);
  if (!items.length) return '';
  const li = items.map(
    (item) =>
      `<li class="not-run">${esc(item.input ? `${item.input}: ${item.why}` : item.why)}<br>keeps from running: ${esc(item.requirements.map((r) => `${r.id} (${plural(r.checks, 'check')})`).join(', '))}${item.how ? `<br>how: ${esc(item.how)}` : ''}</li>`,
  );
  return `<div class="box" id="not-run-first"><p>What did not run, by what it lacked (a certification needs every requirement):</p><ul>${li.join('')}</ul></div>\n`;
}

/** What the run counted apart from the checks' outcomes: retried answers, checks the suite broke under. */
function runCountRows(c: Certificate): string {
  const suiteBroke = suiteBrokeLine(c);
  const reconnected = reconnectedLine(c);
  const renewed = renewalsLine(c);
  return (
    (c.run.throttledRequests
      ? `<dt>Throttled</dt><dd>${c.run.throttledRequests} answers 429 Too Many Requests waited out and retried (not failures)</dd>\n`
      : '') +
    (reconnected ? `<dt>Reconnected</dt><dd>${esc(reconnected)}</dd>\n` : '') +
    (renewed ? `<dt>Renewed</dt><dd>${esc(renewed)}</dd>\n` : '') +
    (suiteBroke ? `<dt>Not run because of the suite</dt><dd class="not-run">${esc(suiteBroke)}</dd>\n` : '')
  );
}

function certificationRows(c: Certificate): string {
  const k = c.certification;
  if (!k) return '';
  const p = k.product;
  return (
    `<dt>Certification</dt><dd>${esc(k.rule)}</dd>\n` +
    (p ? `<dt>Product</dt><dd>${esc([p.name, p.version].filter(Boolean).join(' '))}${p.vendor ? ` by ${esc(p.vendor)}` : ''}</dd>\n` : '') +
    `<dt>Suite build</dt><dd>commit <code>${esc(k.suite.commit)}</code>${k.suite.workingTreeModified === true ? ' (working tree modified)' : ''}, ` +
    `sha256 of ${esc(k.suite.hashed.join(', '))} <code>${esc(k.suite.contentSha256)}</code></dd>\n`
  );
}

function verdictTable(c: Certificate): string {
  const rows = CLASSES.map((k) => {
    const n = c.counts.classes[k];
    const v = c.verdict[k];
    return `<tr><td>${k}</td><td class="verdict ${v}">${v}</td><td>${n.requirements}</td><td>${n.passed}</td><td>${n.failed}</td><td>${n.notRun}</td><td>${esc(verdictMeaning(c, k))}</td></tr>`;
  });
  const advisory = CLASSES.reduce((sum, k) => sum + c.counts.classes[k].advisory, 0);
  const notApplicable = CLASSES.reduce((sum, k) => sum + (c.counts.classes[k].notApplicable ?? 0), 0);
  return `<h2>Verdict</h2>
<table><tr><th>Class</th><th>Verdict</th><th>Requirements</th><th>Passed</th><th>Failed</th><th>Not run</th><th>Meaning</th></tr>
${rows.join('\n')}</table>
<p class="muted"><em>core</em>: what the normative spec (vehicle-data-service-v3.md) states; <em>profile</em>: what the documented profile (v3-profile.md) adds.${advisory ? ` Advisory requirements (${advisory}) only warn and never count.` : ''}${notApplicable ? ` Requirements of another environment than this ${esc(c.target.env)} target (${notApplicable}) are listed but never count.` : ''}</p>`;
}

function gateSection(c: Certificate): string {
  const parts: string[] = [];
  if (c.gate)
    parts.push(
      `<p><strong>Exit status: ${c.gate.exitCode ?? ''} <span class="${c.gate.status}">${c.gate.status}</span></strong> (${esc(c.gate.rule)}): ${esc(c.gate.reasons.join('; '))}</p>`,
    );
  const b = c.baseline;
  if (b) {
    const items = [
      ...b.regressions.map((r) => `<li class="failed">regression (${esc(r.class)}): <code>${esc(r.check)}</code></li>`),
      ...b.fixed.map(
        (f) =>
          `<li class="passed">fixed: remove from the baseline: ${f.wholeEntry ? `the whole ${esc(f.requirement)} entry` : `${esc(f.requirement)}: ${f.checks.map((k) => `<code>${esc(k)}</code>`).join(', ')}`}</li>`,
      ),
      ...b.unverified.map((u) => `<li class="not-run">not judged (did not run now): <code>${esc(u.check)}</code></li>`),
    ];
    parts.push(
      `<p>Baseline <code>${esc(b.path)}</code>${b.written ? ' (written by this run)' : ''}: ${esc(plural(b.regressions.length, 'regression'))}, ${esc(plural(b.known.length, 'known failure'))}.</p>${items.length ? `<ul>${items.join('')}</ul>` : ''}`,
    );
  }
  if (c.comparison) parts.push(`<p>Compared with <code>${esc(c.comparison.previous.path)}</code> (${esc(c.comparison.previous.date)}): see changes.md.</p>`);
  if (c.triage) {
    const causes = c.triage.causes.map((k, i) => `<li><a href="#cause-${i + 1}">${esc(k.title)}</a>: ${esc(plural(k.explains, 'check'))}</li>`);
    parts.push(`<p>Likely causes of the ${esc(plural(c.triage.failed, 'failing check'))} (details under Failures):</p><ol>${causes.join('')}</ol>`);
  }
  return parts.length ? `<h2>Exit status</h2>\n${parts.join('\n')}` : '';
}

function runSection(c: Certificate): string {
  if (!c.run.errors.length && !c.run.warnings.length) return '';
  const items = [
    ...c.run.errors.map((e) => `<li class="failed"><strong>error:</strong> <pre>${esc(e)}</pre></li>`),
    ...c.run.warnings.map((w) => `<li>warning: ${esc(w)}</li>`),
  ];
  return `<h2>Run</h2><ul>${items.join('\n')}</ul>`;
}

function groupTable(c: Certificate): string {
  const rows = c.requirements.map((r) => {
    const cells = GROUPS.map((g) => {
      const s = r.groups[g];
      return s ? `<td class="c ${s}" title="${STATUS_WORD[s]}">${STATUS_MARK[s]}</td>` : '<td></td>';
    });
    const id = r.failures.length || r.notRun.length ? `<a href="#${anchor(r.id)}">${esc(r.id)}</a>` : esc(r.id);
    return `<tr><td>${id}${r.advisory ? ' <span class="muted">(advisory)</span>' : ''}</td><td>${r.class}</td>${cells.join('')}<td class="${r.status}">${STATUS_WORD[r.status]}</td></tr>`;
  });
  const totals = GROUPS.map((g) => {
    const k = c.counts.groups[g].checks;
    return `<td class="c">${k.passed}/${k.passed + k.failed + k.notRun}</td>`;
  });
  return `<h2>Requirements by route group</h2>
<p class="muted">${STATUS_MARK.passed} passed · ${STATUS_MARK.failed} failed · ${STATUS_MARK['not-run']} not run · blank: no check of it in that group</p>
<table><tr><th>Requirement</th><th>Class</th>${GROUPS.map((g) => `<th>${g}</th>`).join('')}<th>Status</th></tr>
${rows.join('\n')}
<tr><td colspan="2"><em>checks passed</em></td>${totals.join('')}<td></td></tr></table>`;
}

/** The anchor goes on the requirement's first heading: Failures for a failed one, else Not run. */
function requirementHead(r: RequirementResult, mark: string, withAnchor = true): string {
  return `<h3${withAnchor ? ` id="${anchor(r.id)}"` : ''} class="${r.status}">${mark} ${esc(r.id)}: ${esc(r.title)}</h3>
<p class="muted">${r.class}${r.advisory ? ' (advisory)' : ''}, ${esc(r.severity)} — cite: ${esc(r.cite)}</p>`;
}

function failuresSection(c: Certificate): string {
  const failed = c.requirements.filter((r) => r.failures.length);
  if (!failed.length) return '<h2>Failures</h2><p>None.</p>';
  const causeOf = new Map(c.triage?.causes.flatMap((k, i) => k.checks.map((check) => [check, i + 1] as const)) ?? []);
  const blocks = failed.map(
    (r) => `<div class="box">${requirementHead(r, STATUS_MARK.failed)}
<table class="wide"><tr><th>Check</th><th>Expected</th><th>Actual</th></tr>
${r.failures.map((f) => failureRow(f, causeOf.get(f.check))).join('\n')}</table></div>`,
  );
  return `<h2>Failures</h2>\n${c.triage ? triageSection(c.triage) : ''}${blocks.join('\n')}`;
}

/** The likely causes first (src/verdict/triage.ts), numbered: a failing check below names its cause's number. */
function triageSection(t: Triage): string {
  const items = t.causes.map(
    (k, i) => `<li id="cause-${i + 1}"><strong>${esc(k.title)}</strong>: ${esc(plural(k.explains, 'failing check'))}
<dl><dt>Routes</dt><dd>${k.routes.map((r) => `<code>${esc(r)}</code>`).join(', ')}</dd>
${k.example ? `<dt>Example</dt><dd><code>${esc(k.example.request)}</code>${k.example.body ? ` answered <code>${esc(k.example.body)}</code>` : ''}${k.example.curl ? `<pre>${esc(k.example.curl)}</pre>` : ''}</dd>` : ''}
<dt>Fix</dt><dd>${esc(k.fix)}</dd><dt>Checks</dt><dd>${checkList(k.checks)}</dd></dl></li>`,
  );
  return `<div class="box"><h3 id="triage">Likely causes (triage)</h3>
<p>${esc(plural(t.failed, 'failing check'))}; ${t.explained} of them explained by the causes below, each by one cause, most checks first. Every failing check is still listed by requirement below, with its cause's number.</p>
<ol>${items.join('\n')}</ol></div>\n`;
}

/** One failing check: expected vs actual side by side; the request and body folded under them (the registry's results pages too). */
export function failureRow(f: CheckFailure, cause?: number): string {
  const evidence = [
    f.request && `request: ${f.request}`,
    f.body && `body: ${f.body}`,
    f.curl && `reproduce: ${f.curl}`,
    f.rerun && `rerun the check: ${f.rerun}`,
  ]
    .filter(Boolean)
    .join('\n');
  return (
    `<tr><td><code>${esc(f.check)}</code>${cause ? ` <a class="muted" href="#cause-${cause}">likely cause ${cause}</a>` : ''}</td><td><pre>${esc(f.expected)}</pre></td><td><pre>${esc(f.actual)}</pre>` +
    `${f.pointer ? `<div class="muted">at ${esc(f.pointer)}</div>` : ''}` +
    `${evidence ? `<details><summary>request</summary><pre>${esc(evidence)}</pre></details>` : ''}</td></tr>`
  );
}

function notRunSection(c: Certificate): string {
  const elsewhere = c.requirements.filter((r) => r.applicable === false);
  const notApplicable = elsewhere.length
    ? `\n<h2>Not applicable to this target (${esc(c.target.env)})</h2><ul>${elsewhere.map((r) => `<li>${esc(r.id)}: ${esc(r.title)} <span class="muted">(${r.class}; cite: ${esc(r.cite)})</span><br>Why: ${esc([...new Set((r.notApplicable ?? []).map((n) => n.reason))].join('; '))}</li>`).join('')}</ul>`
    : '';
  const notRun = c.requirements.filter((r) => r.notRun.length && r.applicable !== false);
  if (!notRun.length) return `<h2>Not run</h2><p>Every check ran.</p>${notApplicable}`;
  const blocks = notRun.map((r) => {
    const head = requirementHead(r, STATUS_MARK['not-run'], r.failures.length === 0);
    const items = r.notRun.map((n) => `<li><strong>What would make it run:</strong> ${esc(n.reason)}${n.checks.length ? checkList(n.checks) : ''}</li>`);
    return `<div class="box">${head}<ul>${items.join('')}</ul></div>`;
  });
  return `<h2>Not run</h2>\n${blocks.join('\n')}${notApplicable}`;
}

function checkList(keys: string[]): string {
  const list = `<ul>${keys.map((k) => `<li><code>${esc(k)}</code></li>`).join('')}</ul>`;
  return keys.length > 5 ? `<details><summary>${esc(plural(keys.length, 'check'))}</summary>${list}</details>` : list;
}

function warningsSection(c: Certificate): string {
  const warned = c.requirements.filter((r) => r.warnings.length);
  if (!warned.length) return '';
  const items = warned.flatMap((r) => r.warnings.map((w) => `<li>${esc(r.id)}: ${esc(w.message)}${checkList(w.checks)}</li>`));
  return `<h2>Warnings</h2><ul>${items.join('\n')}</ul>`;
}

function latencySection(c: Certificate): string {
  const l = c.serverLatency;
  if (!l) return '';
  return `<h2>Latency per route (ms)</h2>
<p class="muted">How it was measured: ${esc(l.method)}</p>
<table><tr><th>Route</th><th>Samples</th><th>median</th><th>p90</th><th>max</th><th>Note</th></tr>
${Object.entries(l.routes)
  .map(([route, s]) => `<tr><td>${esc(route)}</td><td>${s.count}</td><td>${s.p50}</td><td>${s.p90}</td><td>${s.max}</td><td>${esc(s.note ?? '')}</td></tr>`)
  .join('\n')}</table>`;
}

/** A requirement's anchor in the certificate's page (and in the registry's results pages). */
export function anchor(id: string): string {
  return `req-${id.replace(/[^A-Za-z0-9-]/g, '-')}`;
}

export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}
