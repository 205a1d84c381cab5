// A small latency chart as static SVG text, for the trend page (render-trend.ts): one route's median
// answer time run after run, a band from its fastest answer to its p90 (cut at the top), a gap where a run has no
// samples, and each run's figures in a <title> (the browser's own tooltip: the page has no script).
// Written by hand rather than with a chart library: the whole drawing is two linear scales, a
// polyline and a polygon, and the libraries that render SVG without a browser are either
// ES-module-only (d3-shape and d3-scale compute only the path; vega and vega-lite add dozens of
// packages to an installed test tool) in a CommonJS suite that supports Node 20 from 20.0, or
// draw a bare polyline without bands, gaps or labels. Every text goes through esc().
import { esc } from './render-html';

export interface ChartPoint {
  /** The run, as the tooltip names it. */
  label: string;
  /** Undefined: the run has no samples for the route (a gap). */
  median?: number;
  low?: number;
  high?: number;
  count?: number;
}

export interface ChartSize {
  width: number;
  height: number;
}

const PAD = { left: 34, right: 6, top: 6, bottom: 6 };

/** The smallest 1, 2 or 5 times a power of ten at least `v` (at least 1 ms). */
export function niceCeiling(v: number): number {
  if (!(v > 1)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((c) => c >= v)!;
}

/** Runs of consecutive points that have a value: each is drawn apart, so a missing run leaves a gap. */
function segments(points: ChartPoint[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  points.forEach((p, i) => {
    if (p.median === undefined) {
      if (current.length) out.push(current);
      current = [];
    } else current.push(i);
  });
  if (current.length) out.push(current);
  return out;
}

const fmt = (n: number) => (Math.round(n * 10) / 10).toString();

export function latencyChart(points: ChartPoint[], size: ChartSize = { width: 280, height: 70 }): string {
  const { width, height } = size;
  // Scaled to the medians (twice the largest), not to the tail: one slow answer would flatten the line
  // that matters; a band higher than that is cut at the top.
  const top = niceCeiling(2 * Math.max(0, ...points.map((p) => p.median ?? 0)));
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length > 1 ? (i * plotW) / (points.length - 1) : plotW / 2);
  const y = (v: number) => PAD.top + plotH - (Math.min(v, top) / top) * plotH;
  const parts: string[] = [
    `<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="#f7f8fa" stroke="#d9dde5" stroke-width="0.5"/>`,
    `<text x="${PAD.left - 3}" y="${PAD.top + 8}" text-anchor="end" font-size="9" fill="#5c6475">${esc(fmt(top))}</text>`,
    `<text x="${PAD.left - 3}" y="${PAD.top + plotH}" text-anchor="end" font-size="9" fill="#5c6475">0 ms</text>`,
  ];
  for (const seg of segments(points)) {
    const band = [
      ...seg.map((i) => `${fmt(x(i))},${fmt(y(points[i].high ?? points[i].median!))}`),
      ...[...seg].reverse().map((i) => `${fmt(x(i))},${fmt(y(points[i].low ?? points[i].median!))}`),
    ];
    if (seg.length > 1) {
      parts.push(`<polygon points="${band.join(' ')}" fill="#9fc3e7" fill-opacity="0.45" stroke="none"/>`);
      parts.push(
        `<polyline points="${seg.map((i) => `${fmt(x(i))},${fmt(y(points[i].median!))}`).join(' ')}" fill="none" stroke="#1f5fa8" stroke-width="1.5"/>`,
      );
    }
  }
  points.forEach((p, i) => {
    if (p.median === undefined) {
      parts.push(
        `<g><title>${esc(`${p.label}: no samples`)}</title><line x1="${fmt(x(i))}" y1="${PAD.top + plotH - 4}" x2="${fmt(x(i))}" y2="${PAD.top + plotH}" stroke="#b3261e" stroke-width="1.5"/></g>`,
      );
      return;
    }
    const tip =
      `${p.label}: median ${fmt(p.median)} ms, fastest ${fmt(p.low ?? p.median)} ms, p90 ${fmt(p.high ?? p.median)} ms` +
      (p.count !== undefined ? ` (${p.count} samples)` : '');
    const last = i === points.length - 1;
    parts.push(
      `<circle cx="${fmt(x(i))}" cy="${fmt(y(p.median))}" r="${last ? 3 : 2}" fill="${last ? '#0b3d75' : '#1f5fa8'}"><title>${esc(tip)}</title></circle>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" font-family="system-ui,sans-serif">${parts.join('')}</svg>`;
}

/** The same as a line of block characters, for Markdown (· for a run without samples), scaled from 0 ms. */
export function textSparkline(values: Array<number | undefined>): string {
  const blocks = '▁▂▃▄▅▆▇█';
  const defined = values.filter((v): v is number => v !== undefined);
  if (!defined.length) return '';
  // From 0, not from the smallest value: 1 ms against 3 ms must not look like a cliff.
  const hi = Math.max(...defined);
  return values.map((v) => (v === undefined ? '·' : blocks[hi === 0 ? 0 : Math.round((v / hi) * (blocks.length - 1))])).join('');
}
