// The nights as a trend, from the summaries --history keeps (history.ts): reports/trend.html, one
// self-contained page (inline CSS and SVG, no script, opens from disk) with the verdicts, the failing
// requirements run by run and a small latency chart per route; reports/trend.md, the same as tables
// for a CI job summary.
import type { ConformanceClass } from '../catalogue/catalogue';
import type { History, HistoryEntry } from '../monitoring/history';
import { routeLatency } from '../verdict/latency';
import type { ClassVerdict, RouteLatency } from '../verdict/model';
import { CSS, esc } from './render-html';
import { text } from './render-md';
import { latencyChart, textSparkline, type ChartPoint } from './svg-chart';
import { CLASSES } from '../verdict/model';

/** Runs shown on the page (the latest); the folder keeps every one. */
const TREND_RUNS = 60;
/** Rows of the Markdown runs table, and latency columns (the latest runs). */
const MD_RUNS = 14;
const MD_LATENCY_RUNS = 7;

export interface TrendInput {
  history: History;
  /** The folder, as the reader knows it. */
  dir: string;
}

/** "YYYY-MM-DD hh:mm" (UTC) */
function runLabel(e: Pick<HistoryEntry, 'date'>): string {
  return e.date.replace('T', ' ').slice(0, 16);
}

function broken(e: HistoryEntry): boolean {
  return e.exitCode === 3 || e.errors.length > 0;
}

/** Every route sampled in any of the runs, in the order the runs list them. */
function routesOf(entries: HistoryEntry[]): string[] {
  const seen = new Set<string>();
  for (const e of entries) for (const r of Object.keys(e.latency?.routes ?? {})) seen.add(r);
  return [...seen];
}

function stats(e: HistoryEntry, route: string): (RouteLatency & { min: number }) | undefined {
  const r = e.latency?.routes[route];
  if (!r || !r.samples.length) return undefined;
  return { ...routeLatency(r.samples), min: Math.min(...r.samples) };
}

/** Requirement ids that failed in any of the runs, the most recently failing first. */
function failingIds(entries: HistoryEntry[]): string[] {
  const last = new Map<string, number>();
  entries.forEach((e, i) => e.failed.forEach((f) => last.set(f.id, i)));
  return [...last.keys()].sort((a, b) => last.get(b)! - last.get(a)! || a.localeCompare(b));
}

function newlyFailing(entries: HistoryEntry[], i: number): Set<string> {
  const before = new Set(i > 0 ? entries[i - 1].failed.map((f) => f.id) : []);
  return new Set(i > 0 ? entries[i].failed.map((f) => f.id).filter((id) => !before.has(id)) : []);
}

function summaryLine(entries: HistoryEntry[], input: TrendInput, shown: number): string {
  const h = input.history;
  const versions = [...new Set(entries.map((e) => e.suite.version))];
  return [
    `${shown} run(s) of ${entries.length} kept` +
      (entries.length ? `, ${runLabel(entries[entries.length - shown])} to ${runLabel(entries[entries.length - 1])} (UTC)` : ''),
    `from ${input.dir}`,
    ...(versions.length ? [`suite version${versions.length > 1 ? 's' : ''} ${versions.join(', ')}`] : []),
    ...(h.otherTargets ? [`${h.otherTargets} run(s) of other targets not shown`] : []),
    ...(h.unreadable.length ? [`${h.unreadable.length} file(s) that are not run summaries ignored`] : []),
  ].join('; ');
}

// ---------------------------------------------------------------------------------------------
// Markdown

export function renderTrendMarkdown(input: TrendInput): string {
  const all = input.history.entries;
  const target = all[all.length - 1]?.target.name ?? 'unknown';
  const lines = [`# Trend of ${text(target)}`, '', text(summaryLine(all, input, Math.min(all.length, TREND_RUNS))), ''];
  if (!all.length) return [...lines, 'No run kept yet.', ''].join('\n');
  lines.push(
    '## Runs (latest first)',
    '',
    '| Run (UTC) | core | profile | checks passed | failed | not run | exit | failing requirements, slower routes |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (let i = all.length - 1; i >= Math.max(0, all.length - MD_RUNS); i--) {
    const e = all[i];
    const fresh = newlyFailing(all, i);
    const failing = e.failed.map((f) => (fresh.has(f.id) ? `**${text(f.id)}** (new)` : text(f.id)));
    const k = e.counts.checks;
    lines.push(
      `| ${runLabel(e)}${e.selection ? ' (narrowed)' : ''} | ${verdictWord(e, 'core')} | ${verdictWord(e, 'profile')} | ${k.passed} | ${k.failed} | ${k.notRun} | ` +
        `${e.exitCode ?? ''} | ${broken(e) ? text(e.errors[0] ?? 'the run broke') : [...failing, ...(e.slower ?? []).map((r) => `slower: ${text(r)}`)].join(', ') || '—'} |`,
    );
  }
  const routes = routesOf(all);
  if (routes.length) {
    const recent = all.slice(-MD_LATENCY_RUNS);
    const shown = all.slice(-TREND_RUNS);
    lines.push(
      '',
      `## Latency per route: median of the sampled answer times, ms (the latest ${recent.length} runs; trend over ${shown.length})`,
      '',
      `| Route | ${recent.map((e) => runLabel(e).slice(5)).join(' | ')} | trend |`,
      `|---|${recent.map(() => '---:').join('|')}|---|`,
    );
    for (const route of routes) {
      const cells = recent.map((e) => stats(e, route)?.p50);
      lines.push(
        `| ${text(route)} | ${cells.map((v) => (v === undefined ? '—' : String(v))).join(' | ')} | ${textSparkline(shown.map((e) => stats(e, route)?.p50))} |`,
      );
    }
    const method = all[all.length - 1].latency?.method;
    if (method) lines.push('', `How: ${text(method)}`);
  }
  return `${lines.join('\n')}\n`;
}

function verdictWord(e: HistoryEntry, k: ConformanceClass): string {
  return broken(e) ? 'broken' : e.verdict[k];
}

// ---------------------------------------------------------------------------------------------
// HTML

const TREND_CSS = `
td.PASS{background:#e3f4e9}td.FAIL{background:#fbe4e2}td.INCOMPLETE{background:#fdf1dc}td.broken{background:#e8e9ec;color:#5c6475}
table.matrix td{text-align:center;min-width:1.1rem;padding:.1rem .2rem}table.matrix th.run{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:400;font-size:11px}
td.m-failed{background:#b3261e;color:#fff}td.m-not-run{background:#f3d9a4}td.m-passed{background:#e3f4e9}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:.6rem}
.chart{border:1px solid #d9dde5;border-radius:4px;padding:.4rem .5rem}.chart h3{margin:0 0 .2rem;font-size:.85rem}
.chart p{margin:.1rem 0;font-size:12px}.chart svg{width:100%;height:auto}
`;

export function renderTrendHtml(input: TrendInput): string {
  const all = input.history.entries;
  const entries = all.slice(-TREND_RUNS);
  const target = all[all.length - 1]?.target.name ?? 'unknown';
  const body = [
    `<h1>Trend of ${esc(target)}</h1>`,
    `<p class="muted">${esc(summaryLine(all, input, entries.length))}</p>`,
    ...(entries.length ? [runsTable(entries), failingMatrix(entries), latencyCharts(entries)] : ['<p>No run kept yet.</p>']),
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>VDS conformance trend: ${esc(target)}</title><style>${CSS}${TREND_CSS}</style></head>
<body>
${body}
</body></html>
`;
}

function runsTable(entries: HistoryEntry[]): string {
  const rows: string[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    const fresh = newlyFailing(entries, i);
    const failing = broken(e)
      ? `<span class="muted">${esc(e.errors[0] ?? 'the run broke')}</span>`
      : [
          ...e.failed.map((f) => (fresh.has(f.id) ? `<strong class="failed">${esc(f.id)}</strong> (new)` : esc(f.id))),
          ...(e.slower ?? []).map((r) => `<span class="failed">slower: ${esc(r)}</span>`),
        ].join(', ') || '—';
    const k = e.counts.checks;
    const cell = (c: ConformanceClass) => {
      const v: ClassVerdict | 'broken' = broken(e) ? 'broken' : e.verdict[c];
      return `<td class="${v}">${v}</td>`;
    };
    rows.push(
      `<tr><td>${esc(runLabel(e))}${e.selection ? ' <span class="muted">(narrowed)</span>' : ''}</td>${CLASSES.map(cell).join('')}` +
        `<td>${k.passed}</td><td>${k.failed}</td><td>${k.notRun}</td><td>${e.exitCode ?? ''}</td><td>${esc(e.suite.version)}</td><td>${failing}</td></tr>`,
    );
  }
  return `<h2>Runs (latest first)</h2>
<table><tr><th>Run (UTC)</th>${CLASSES.map((c) => `<th>${c}</th>`).join('')}<th>checks passed</th><th>failed</th><th>not run</th><th>exit</th><th>suite</th><th>failing requirements, slower routes</th></tr>
${rows.join('\n')}</table>`;
}

function failingMatrix(entries: HistoryEntry[]): string {
  const ids = failingIds(entries);
  if (!ids.length) return '<h2>Failing requirements over time</h2><p>No requirement failed in these runs.</p>';
  const head = entries.map((e) => `<th class="run">${esc(runLabel(e))}</th>`).join('');
  const rows = ids.map((id) => {
    const cells = entries.map((e) => {
      if (broken(e)) return '<td class="broken" title="the run broke"></td>';
      const state = e.failed.some((f) => f.id === id) ? 'failed' : e.notRun.includes(id) ? 'not-run' : 'passed';
      const mark = state === 'failed' ? '✘' : state === 'not-run' ? '○' : '';
      return `<td class="m-${state}" title="${esc(`${id} ${runLabel(e)}: ${state.replace('-', ' ')}`)}">${mark}</td>`;
    });
    return `<tr><td>${esc(id)}</td>${cells.join('')}</tr>`;
  });
  return `<h2>Failing requirements over time</h2>
<p class="muted">Oldest run on the left. ✘ failed · ○ not run · green: passed.</p>
<table class="matrix"><tr><th>Requirement</th>${head}</tr>
${rows.join('\n')}</table>`;
}

function latencyCharts(entries: HistoryEntry[]): string {
  const routes = routesOf(entries);
  if (!routes.length) return '<h2>Latency per route</h2><p>No run kept latency samples.</p>';
  const method = entries[entries.length - 1].latency?.method;
  const cards = routes.map((route) => {
    const points: ChartPoint[] = entries.map((e) => {
      const s = stats(e, route);
      return s ? { label: runLabel(e), median: s.p50, low: s.min, high: s.p90, count: s.count } : { label: runLabel(e) };
    });
    const latest = stats(entries[entries.length - 1], route);
    const note = entries[entries.length - 1].latency?.routes[route]?.note;
    const caption = latest ? `latest: median ${latest.p50} ms, p90 ${latest.p90} ms (${latest.count} samples)` : 'latest run: no samples';
    return `<div class="chart"><h3>${esc(route)}</h3>${latencyChart(points)}<p class="muted">${esc(caption)}</p>${note ? `<p class="muted">${esc(note)}</p>` : ''}</div>`;
  });
  return `<h2>Latency per route</h2>
<p class="muted">Each chart: the median answer time run after run (line, oldest on the left), the band from the fastest answer to the p90 (cut at the top: the scale is twice the largest median); a red tick marks a run without samples. Hover a point for its figures.${method ? ` How: ${esc(method)}` : ''}</p>
<div class="charts">${cards.join('\n')}</div>`;
}
