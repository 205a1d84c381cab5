// The registry's static site, page by page: the index of implementations, the matrix of requirement
// by implementation (the requirements most implementations fail first: the interop view), what
// changed between two certifications of one product, and each implementation's results. Every page
// is one self-contained file (inline CSS, links relative to the site's folder), so that the site
// opens from disk and publishes as it is; only the matrix has a script, and only to filter rows:
// without it every row shows.
import { GROUPS, type Group } from '../catalogue/catalogue';
import { anchor, CSS, esc, failureRow } from '../rendering/render-html';
import { plural, STATUS_MARK, STATUS_WORD } from '../rendering/format';
import { CLASSES, type Certificate, type RequirementResult, type StatusChange } from '../verdict/model';
import { productLabel, type CellStatus, type Implementation, type Registry, type RequirementRow } from './registry';

export const PAGES = { index: 'index.html', matrix: 'matrix.html', changes: 'changes.html', data: 'registry.json', schema: 'registry.schema.json' } as const;

const CELL_MARK: Record<CellStatus, string> = { ...STATUS_MARK, absent: '·' };
const CELL_WORD: Record<CellStatus, string> = { ...STATUS_WORD, absent: 'absent from its suite version' };

const SITE_CSS = `${CSS}
nav{margin:.2rem 0 1rem}nav a{margin-right:1rem}
.absent{color:#8b93a5}.not-applicable{color:#5c6475}
table.matrix th,table.matrix td{padding:.15rem .35rem}table.matrix td.cell{text-align:center;min-width:2.2rem}
table.matrix td.cell a{text-decoration:none;display:block;color:inherit}
td.cell.passed{background:#e6f4ea}td.cell.failed{background:#fbe9e7}td.cell.not-run{background:#fff4d6}
td.cell.not-applicable{background:#f3f5f8}td.cell.absent{background:#fff}
tr.section th{background:#e8ebf1;text-align:left}table.matrix thead th{position:sticky;top:0;z-index:1}
table.results{width:100%}tr:target{background:#fff8c5}
form.filters{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center;margin:.5rem 0}form.filters[hidden]{display:none}
td.n{text-align:right}
`;

function page(title: string, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${SITE_CSS}</style></head>
<body>
${body}
${script ? `<script>${script}</script>\n` : ''}</body></html>
`;
}

/** The site's navigation; `up` leads from an implementation's folder back to the site's. */
function nav(up = ''): string {
  return `<nav><a href="${up}${PAGES.index}">Implementations</a><a href="${up}${PAGES.matrix}">Requirements matrix</a><a href="${up}${PAGES.changes}">Changes between releases</a><a href="${up}${PAGES.data}">registry.json</a></nav>`;
}

function productName(i: Implementation): string {
  return [i.product.name, i.product.version].filter(Boolean).join(' ');
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

function short(hash: string | undefined): string {
  return hash ? hash.slice(0, 12) : 'unrecorded';
}

/** The archive's checks as its replay verified them: reproduced, and (a browser's) from the record only. */
function verifiedChecks(i: Implementation): string {
  const v = i.verification;
  return `${v.replayed}: ${v.reproduced} reproduced${v.recordOnly ? `, ${v.recordOnly} from the record` : ''}`;
}

function generatedLine(r: Registry): string {
  return `<p class="muted">Built ${esc(r.generatedAt)} by ${esc(r.generatedBy.name)} ${esc(r.generatedBy.version)} from ${esc(plural(r.implementations.length, 'verified certification archive'))}: each replayed offline by the suite version that made it before it was published (<code>vds-conformance verify</code>). Requirement ids are stable: an archive of another suite version is matched by id.</p>`;
}

// ---------------------------------------------------------------------------------------------
// The index: no script.

export function renderIndex(r: Registry): string {
  const rows = r.implementations.map((i) => {
    const verdicts = CLASSES.map((k) => `<td class="verdict ${i.verdict[k]}">${i.verdict[k]}</td>`).join('');
    const n = i.requirements;
    return `<tr id="${esc(i.id)}"><td><a href="${esc(i.pages.results)}">${esc(i.product.name)}</a>${i.product.vendor ? `<div class="muted">${esc(i.product.vendor)}</div>` : ''}</td>
<td>${esc(i.product.version ?? '')}</td><td title="${esc(i.date)}">${esc(day(i.date))}</td><td>${esc(i.environment)}</td>
<td>${esc(i.suite.version)}<div class="muted" title="content sha256">${esc(short(i.suite.contentSha256))}</div></td>
<td>${i.requirementSet.count}<div class="muted" title="sha256 of its requirement ids">${esc(short(i.requirementSet.sha256))}</div></td>
${verdicts}<td class="n passed">${n.passed}</td><td class="n failed">${n.failed}</td><td class="n not-run">${n.notRun}</td><td class="n not-applicable">${n.notApplicable}</td>
<td>${verifiedChecks(i)}</td>
<td><a href="${esc(i.pages.certificate)}">certificate</a></td></tr>`;
  });
  const table = r.implementations.length
    ? `<table class="index"><thead><tr><th>Product</th><th>Version</th><th>Certified</th><th>Environment</th><th>Suite</th><th>Requirements</th>${CLASSES.map((k) => `<th>${k}</th>`).join('')}<th>Passed</th><th>Failed</th><th>Not run</th><th>Not applicable</th><th>Verified checks</th><th>Certificate</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
<p class="muted">Passed, failed, not run: the requirements of both classes that count (advisory ones only warn); not applicable: requirements of another environment than the target's. A class is <span class="PASS">PASS</span> when every requirement of it ran and passed; in a certification anything not run makes it <span class="FAIL">FAIL</span>. Verified checks: the archive's checks, those its replay reproduced offline and those verified from the record only (the sign-in page's: a replay drives no browser).</p>`
    : '<p>No implementation yet: no archive was verified.</p>';
  return page(
    'VDS v3 certified implementations',
    `<h1>VDS v3 certified implementations</h1>
${nav()}
${generatedLine(r)}
${table}`,
  );
}

// ---------------------------------------------------------------------------------------------
// The matrix: every requirement by every implementation, the interop view first.

/** Where a requirement's row goes: its one route group, or "several route groups". */
function sectionOf(row: RequirementRow): Group | 'several' {
  return row.groups.length === 1 ? row.groups[0] : 'several';
}

const SECTION_WORD: Record<Group | 'several', string> = {
  users: 'users',
  cars: 'cars',
  trips: 'trips',
  devices: 'devices',
  auth: 'auth',
  several: 'several route groups',
};

function cell(row: RequirementRow, i: Implementation): string {
  const s = row.results[i.id];
  const title = `${row.id} in ${productName(i)}: ${CELL_WORD[s]}${s === 'absent' ? ` (${i.suite.version})` : ''}`;
  const inner = s === 'absent' ? esc(CELL_MARK[s]) : `<a href="${esc(`${i.pages.results}#${anchor(row.id)}`)}">${esc(CELL_MARK[s])}</a>`;
  return `<td class="cell ${s}" data-impl="${esc(i.id)}" data-status="${s}" title="${esc(title)}">${inner}</td>`;
}

function matrixRow(row: RequirementRow, r: Registry): string {
  const absent = r.implementations.filter((i) => row.results[i.id] === 'absent').length;
  return `<tr class="req" data-id="${esc(row.id)}" data-class="${row.class}" data-groups="${row.groups.join(' ')}" data-failed="${row.failedBy}" data-not-run="${row.notRunBy}" data-absent="${absent}">
<th scope="row" title="${esc(`${row.title} (cite: ${row.cite})`)}">${esc(row.id)}${row.advisory ? ' <span class="muted">(advisory)</span>' : ''}</th><td>${row.class}</td><td class="n failed">${row.failedBy || ''}</td><td class="n not-run">${row.notRunBy || ''}</td>${r.implementations.map((i) => cell(row, i)).join('')}</tr>`;
}

function sectionHead(title: string, width: number): string {
  return `<tr class="section"><th colspan="${width}">${esc(title)}</th></tr>`;
}

export function renderMatrix(r: Registry): string {
  const width = 4 + r.implementations.length;
  const interop = r.requirements
    .filter((row) => row.failedBy + row.notRunBy > 0)
    .sort((a, b) => b.failedBy - a.failedBy || b.notRunBy - a.notRunBy || a.id.localeCompare(b.id));
  const bodies = [
    `<tbody data-section="interop">${sectionHead(`Interop: the requirements some implementation fails or did not run, those most implementations fail first (${interop.length})`, width)}
${interop.length ? interop.map((row) => matrixRow(row, r)).join('\n') : `<tr><td colspan="${width}">Every implementation passes every requirement it ran and ran every one.</td></tr>`}</tbody>`,
  ];
  for (const k of CLASSES) {
    for (const section of [...GROUPS, 'several'] as const) {
      const rows = r.requirements.filter((row) => row.class === k && sectionOf(row) === section);
      if (!rows.length) continue;
      bodies.push(
        `<tbody data-section="${k} ${section}">${sectionHead(`${k} · ${SECTION_WORD[section]} (${rows.length})`, width)}\n${rows.map((row) => matrixRow(row, r)).join('\n')}</tbody>`,
      );
    }
  }
  const heads = r.implementations
    .map(
      (i) =>
        `<th title="${esc(`${productLabel(i.product)}, certified ${i.date}, suite ${i.suite.version}`)}"><a href="${esc(i.pages.results)}">${esc(productName(i))}</a><div class="muted">${esc(day(i.date))}</div></th>`,
    )
    .join('');
  const legend = (['passed', 'failed', 'not-run', 'not-applicable', 'absent'] as CellStatus[])
    .map((s) => `<span class="${s}">${esc(CELL_MARK[s])} ${esc(CELL_WORD[s])}</span>`)
    .join(' · ');
  const filters = `<form class="filters" id="filters" hidden>
<label>Class <select name="class"><option value="">any</option>${CLASSES.map((k) => `<option>${k}</option>`).join('')}</select></label>
<label>Route group <select name="group"><option value="">any</option>${GROUPS.map((g) => `<option>${g}</option>`).join('')}</select></label>
<label>Show <select name="show"><option value="">every requirement</option><option value="failed">failed by some implementation</option><option value="not-run">not run by some implementation</option><option value="absent">absent from some suite version</option></select></label>
<label>Requirement <input name="id" type="search" placeholder="id, e.g. AUTH-"></label>
<span class="muted" id="shown"></span></form>`;
  return page(
    'VDS v3 certified implementations: requirements matrix',
    `<h1>Requirements by implementation</h1>
${nav()}
${generatedLine(r)}
<p>${legend}. Each cell links to that implementation's result for the requirement: its failing checks with expected vs actual, or what kept it from running.</p>
${filters}
<table class="matrix"><thead><tr><th>Requirement</th><th>Class</th><th title="implementations that fail it">Failed by</th><th title="implementations that did not run it">Not run by</th>${heads}</tr></thead>
${bodies.join('\n')}
</table>`,
    FILTER_SCRIPT,
  );
}

/** Shows the filters and applies them: a row shows when it matches every one; a section without rows hides. */
const FILTER_SCRIPT = `
(function () {
  var form = document.getElementById('filters');
  if (!form) return;
  form.hidden = false;
  function apply() {
    var cls = form.elements['class'].value, group = form.elements['group'].value, show = form.elements['show'].value;
    var id = form.elements['id'].value.trim().toUpperCase();
    var shown = 0;
    document.querySelectorAll('table.matrix tbody').forEach(function (body) {
      var visible = 0;
      body.querySelectorAll('tr.req').forEach(function (row) {
        var d = row.dataset;
        var ok = (!cls || d.class === cls) && (!group || d.groups.split(' ').indexOf(group) >= 0) &&
          (!show || Number(show === 'failed' ? d.failed : show === 'not-run' ? d.notRun : d.absent) > 0) &&
          (!id || d.id.indexOf(id) >= 0);
        row.hidden = !ok;
        if (ok) visible += 1;
      });
      body.hidden = visible === 0 && body.dataset.section !== 'interop';
      if (body.dataset.section !== 'interop') shown += visible;
    });
    document.getElementById('shown').textContent = shown + ' requirements shown';
  }
  form.addEventListener('input', apply);
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  apply();
})();
`;

// ---------------------------------------------------------------------------------------------
// What changed between two certifications of one product.

export function renderChanges(r: Registry): string {
  const byId = new Map(r.implementations.map((i) => [i.id, i]));
  const blocks = r.changes.map((c) => {
    const from = byId.get(c.from)!;
    const to = byId.get(c.to)!;
    const list = (title: string, cls: string, items: StatusChange[]) =>
      items.length
        ? `<h3 class="${cls}">${esc(title)} (${items.length})</h3><ul>${items
            .map(
              (s) =>
                `<li><a href="${esc(`${to.pages.results}#${anchor(s.id)}`)}">${esc(s.id)}</a> <span class="muted">(${s.class})</span>: ${esc(s.title)} <span class="muted">(was ${esc(CELL_WORD[s.was])})</span></li>`,
            )
            .join('')}</ul>`
        : '';
    const lists =
      list('Newly failing', 'failed', c.newlyFailing) + list('Newly not run', 'not-run', c.newlyNotRun) + list('Newly passing', 'passed', c.newlyPassing);
    return `<div class="box" id="${esc(`${c.from}--${c.to}`)}"><h2>${esc(c.product)}: ${link(from)} → ${link(to)}</h2>
<p class="${c.worse ? 'failed' : 'passed'}">${c.worse ? 'Worse: something fails or does not run that did before.' : 'Nothing got worse.'}${from.suite.version !== to.suite.version ? ` <span class="muted">Suite ${esc(from.suite.version)} → ${esc(to.suite.version)}: requirements new to the later version were absent before.</span>` : ''}</p>
${lists || '<p>No requirement changed status.</p>'}</div>`;
  });
  return page(
    'VDS v3 certified implementations: changes between releases',
    `<h1>Changes between releases</h1>
${nav()}
<p>Each product's certifications one after the other, by date: the requirements (advisory ones aside) whose status changed, matched by id, as <code>--compare</code> matches one target's nights. Answer times are not compared: certifications are run from other machines and networks.</p>
${blocks.length ? blocks.join('\n') : '<p>No product has two certifications yet.</p>'}`,
  );
}

function link(i: Implementation): string {
  return `<a href="${esc(i.pages.results)}">${esc(i.product.version ?? productName(i))}</a> <span class="muted">(${esc(day(i.date))})</span>`;
}

// ---------------------------------------------------------------------------------------------
// An implementation's results: every requirement, its failing checks with expected vs actual.

export function renderResults(i: Implementation, c: Certificate): string {
  const rows = c.requirements.map((req) => resultRow(req));
  const v = i.verification;
  return page(
    `${productName(i)}: VDS v3 conformance results`,
    `<h1>${esc(productName(i))}</h1>
${nav('../../')}
<dl>
<dt>Product</dt><dd>${esc(productLabel(i.product))}${i.product.version ? `, version ${esc(i.product.version)}` : ''}</dd>
<dt>Certified</dt><dd>${esc(i.date)}, against a ${esc(i.environment)} target</dd>
<dt>Verdict</dt><dd>${CLASSES.map((k) => `${k} <span class="verdict ${i.verdict[k]}">${i.verdict[k]}</span>`).join(', ')}${i.headline ? ` — ${esc(i.headline)}` : ''}</dd>
<dt>Suite</dt><dd>${esc(i.suite.name)} ${esc(i.suite.version)}${i.suite.commit ? `, commit <code>${esc(i.suite.commit)}</code>` : ''}${i.suite.contentSha256 ? `, content sha256 <code>${esc(i.suite.contentSha256)}</code>` : ''}; ${i.requirementSet.count} requirements</dd>
<dt>Archive</dt><dd><code>${esc(i.archive.file)}</code>, sha256 <code>${esc(i.archive.sha256)}</code></dd>
<dt>Verified</dt><dd>${esc(v.verifiedAt)} by ${esc(i.suite.name)} ${esc(v.suite.version)}${v.sameContent ? '' : ' (another content of that version)'}: ${v.reproduced} of ${v.replayed} checks reproduced offline from the archive's exchanges${v.recordOnly ? `, ${v.recordOnly} verified from the record only (a browser's)` : ''}</dd>
<dt>Certificate</dt><dd><a href="conformance.html">conformance.html</a> (also <a href="conformance.json">conformance.json</a>)</dd>
</dl>
<h2>Requirements</h2>
<table class="results"><thead><tr><th>Requirement</th><th>Class</th><th>Status</th><th>Checks</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>`,
  );
}

function resultRow(r: RequirementResult): string {
  const k = r.checks;
  const counts = [
    k.passed && `${k.passed} passed`,
    k.failed && `${k.failed} failed`,
    k.notRun && `${k.notRun} not run`,
    k.notApplicable && `${k.notApplicable} not applicable`,
  ]
    .filter(Boolean)
    .join(', ');
  const head = `<tr id="${anchor(r.id)}"><td><strong>${esc(r.id)}</strong>${r.advisory ? ' <span class="muted">(advisory)</span>' : ''}<div class="muted">${esc(r.title)}</div></td><td>${r.class}</td><td class="${r.status}">${STATUS_MARK[r.status]} ${STATUS_WORD[r.status]}</td><td>${esc(counts)}</td></tr>`;
  const detail = [
    r.failures.length
      ? `<table class="wide"><tr><th>Check</th><th>Expected</th><th>Actual</th></tr>${r.failures.map((f) => failureRow(f)).join('\n')}</table>`
      : '',
    ...r.notRun.map((n) => `<p class="not-run">Not run: ${esc(n.reason)} <span class="muted">(${esc(plural(n.checks.length, 'check'))})</span></p>`),
    ...(r.notApplicable ?? []).map((n) => `<p class="not-applicable">Not applicable: ${esc(n.reason)}</p>`),
  ].join('');
  return detail ? `${head}\n<tr><td colspan="4">${detail}</td></tr>` : head;
}
