// --history: one summary per run in a folder, and the trend pages drawn from them (trend.html, one
// self-contained page with a chart per route; trend.md, the same as tables for a CI job summary).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { addToHistory, historyEntry, historyFileName, readHistory, type HistoryEntry } from '../../../src/monitoring/history';
import { routeLatency } from '../../../src/verdict/latency';
import type { Certificate } from '../../../src/verdict/model';
import { renderTrendHtml, renderTrendMarkdown } from '../../../src/rendering/render-trend';
import { latencyChart, niceCeiling, textSparkline } from '../../../src/rendering/svg-chart';
import { certificate, check, requirement } from './synthetic';

const reqs = [requirement('A'), requirement('B', { class: 'profile' }), requirement('ADV', { advisory: true })];

/** Night `n`: B fails from night 3 on; GET /slow is 200 ms slower on night 4; night 5 broke. */
function night(n: number): Certificate {
  const c = certificate(reqs, [check('A', 'GET /x', 'passed'), check('B', 'GET /x', n >= 3 ? 'failed' : 'passed'), check('ADV', 'GET /x', 'failed')]);
  const slow = n === 4 ? [205, 210, 208, 212, 215] : [5, 6, 5, 7, 6];
  return {
    ...c,
    run: { ...c.run, date: `2026-11-0${n}T03:17:00.000Z`, errors: n === 5 ? ['The target "synthetic" does not answer: connection refused'] : [] },
    gate: { status: n >= 3 ? 'failed' : 'passed', exitCode: n === 5 ? 3 : n >= 3 ? 1 : 0, rule: 'comparison', reasons: [] },
    serverLatency: {
      method: 'sampled <one at a time>',
      routes: {
        'GET /slow': routeLatency(n === 5 ? [] : slow, n === 5 ? { note: 'no answer' } : {}),
        'GET /fast': routeLatency(n === 5 ? [] : [1, 2, 1, 1, 2]),
      },
    },
  };
}

function historyOf(nights: number[]): { dir: string; entries: HistoryEntry[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-history-'));
  for (const n of nights) addToHistory(dir, historyEntry(night(n)));
  return { dir, entries: readHistory(dir, 'synthetic').entries };
}

test("a run's summary: date, verdict per class, counts, failing and not-run requirements (advisory ones left out), samples, version", () => {
  const e = historyEntry(night(3), { VDS_GREP: '@core' });
  expect(e).toMatchObject({
    format: 'vds-conformance-history/1',
    date: '2026-11-03T03:17:00.000Z',
    suite: { name: 'vds-conformance', version: '9.9.9' },
    target: { name: 'synthetic', env: 'cloud' },
    verdict: { core: 'PASS', profile: 'FAIL' },
    exitCode: 1,
    errors: [],
    failed: [{ id: 'B', class: 'profile' }],
    notRun: [],
    selection: { VDS_GREP: '@core' },
    counts: { requirements: { core: { passed: 1, failed: 0, notRun: 0 }, profile: { passed: 0, failed: 1, notRun: 0 } } },
  });
  expect(e.latency?.routes['GET /slow']).toEqual({ samples: [5, 6, 5, 7, 6] });
  expect(historyFileName(e)).toBe('2026-11-03T03-17-00-000Z_synthetic.json');
});

test('the folder: one file per run (the same run written twice is one), other targets and stray files set aside', () => {
  const { dir } = historyOf([2, 1, 3]);
  addToHistory(dir, historyEntry(night(3)));
  const other = historyEntry(night(4));
  addToHistory(dir, { ...other, target: { ...other.target, name: 'elsewhere' } });
  fs.writeFileSync(path.join(dir, 'notes.json'), '{"hello": 1}');
  fs.writeFileSync(path.join(dir, 'README.txt'), 'kept by the CI cache');
  const h = readHistory(dir, 'synthetic');
  expect(h.entries.map((e) => e.date.slice(0, 10))).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
  expect(h).toMatchObject({ otherTargets: 1, unreadable: ['notes.json'] });
  expect(readHistory(path.join(dir, 'nowhere'), 'synthetic').entries).toEqual([]);
});

test('trend.md: the runs latest first with new failures and slower routes, latency per route as a table', () => {
  const { dir } = historyOf([1, 2, 3, 4, 5]);
  const h = readHistory(dir, 'synthetic');
  h.entries[3].slower = ['GET /slow'];
  const md = renderTrendMarkdown({ history: h, dir });
  expect(md).toContain('# Trend of synthetic');
  expect(md).toContain('5 run(s) of 5 kept, 2026-11-01 03:17 to 2026-11-05 03:17 (UTC)');
  const rows = md.split('\n').filter((l) => l.startsWith('| 2026-'));
  expect(rows.map((r) => r.split(' | ').slice(0, 3).join(' | '))).toEqual([
    '| 2026-11-05 03:17 | broken | broken',
    '| 2026-11-04 03:17 | PASS | FAIL',
    '| 2026-11-03 03:17 | PASS | FAIL',
    '| 2026-11-02 03:17 | PASS | PASS',
    '| 2026-11-01 03:17 | PASS | PASS',
  ]);
  expect(rows[0]).toContain('The target "synthetic" does not answer');
  expect(rows[1]).toContain('| 1 | B, slower: GET /slow |');
  expect(rows[2]).toContain('**B** (new)');
  expect(md).toContain('| GET /slow | 6 | 6 | 6 | 210 | — | ▁▁▁█· |');
  expect(md).toContain('How: sampled \\<one at a time\\>'); // Markdown-escaped
});

test('trend.html: self-contained and inert, verdicts, the failing requirements run by run, a chart per route', () => {
  const { dir } = historyOf([1, 2, 3, 4, 5]);
  const html = renderTrendHtml({ history: readHistory(dir, 'synthetic'), dir });
  expect(html).not.toMatch(/<script|<link|\bsrc=|href="http/i);
  expect(html).toContain('sampled &lt;one at a time&gt;');
  expect(html).not.toContain('<one at a time>');
  expect(html.match(/<svg /g)).toHaveLength(2);
  expect(html).toContain('<h3>GET /slow</h3>');
  expect(html).toContain('<title>2026-11-04 03:17: median 210 ms, fastest 205 ms, p90 215 ms (5 samples)</title>');
  expect(html).toContain('<title>2026-11-05 03:17: no samples</title>');
  // The matrix: B passed twice, then failed; the broken night is grey.
  const row = /<tr><td>B<\/td>(.*?)<\/tr>/.exec(html)![1];
  expect([...row.matchAll(/class="([\w-]+)"/g)].map((m) => m[1])).toEqual(['m-passed', 'm-passed', 'm-failed', 'm-failed', 'broken']);
  expect(renderTrendHtml({ history: { entries: [], otherTargets: 0, unreadable: [] }, dir })).toContain('No run kept yet.');
});

test('the chart: a nice scale from 0, a gap for a run without samples, one point alone', () => {
  expect([0, 0.5, 1, 3, 7, 12, 99, 180, 201].map(niceCeiling)).toEqual([1, 1, 1, 5, 10, 20, 100, 200, 500]);
  const svg = latencyChart([
    { label: 'a', median: 10, low: 8, high: 20 },
    { label: 'b', median: 12, low: 9, high: 15 },
    { label: 'c' },
    { label: 'd', median: 11 },
  ]);
  expect(svg.match(/<polyline /g)).toHaveLength(1); // a and b; d stands alone
  expect(svg.match(/<circle /g)).toHaveLength(3);
  expect(svg).toContain('<title>c: no samples</title>');
  expect(svg).toContain('>50</text>'); // twice the largest median (12), rounded up: the band is cut there
  expect(latencyChart([{ label: '<x>', median: 1 }])).toContain('&lt;x&gt;');
  expect(textSparkline([1, 2, undefined, 8])).toBe('▂▃·█');
  expect(textSparkline([0, 0])).toBe('▁▁');
});
