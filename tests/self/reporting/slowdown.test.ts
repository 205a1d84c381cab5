// When a route counts as slower (src/monitoring/slowdown.ts): the rule on made-up figures, then on samples
// recorded from real runs of the embedded reference: back-to-back pairs on a two-core machine while
// another suite run shared it (quiet), and a run whose reference answered one route 200 ms later (loud).
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { routeLatency } from '../../../src/verdict/latency';
import type { ServerLatency } from '../../../src/verdict/model';
import { judgeLatency, MIN_LATENCY_SAMPLES } from '../../../src/monitoring/slowdown';
import { DEFAULT_LATENCY_FLOOR_MS, DEFAULT_LATENCY_RATIO } from '../../../src/playwright/report-options';

const RULE = { ratio: DEFAULT_LATENCY_RATIO, floorMs: DEFAULT_LATENCY_FLOOR_MS };

function sampled(routes: Record<string, number[] | { samples: number[]; path?: string; note?: string }>): ServerLatency {
  return {
    method: 'synthetic',
    routes: Object.fromEntries(
      Object.entries(routes).map(([r, v]) => {
        const { samples, ...extra } = Array.isArray(v) ? { samples: v } : v;
        return [r, routeLatency(samples, extra)];
      }),
    ),
  };
}

test('the defaults: 1.5x and 100 ms, on 5 samples', () => {
  expect(RULE).toEqual({ ratio: 1.5, floorMs: 100 });
  expect(MIN_LATENCY_SAMPLES).toBe(5);
});

test('slower only when the fastest answer and the median each grew by the ratio and by the floor; part of it is a note', () => {
  const before = sampled({
    slow: [10, 10, 10, 10, 10],
    small: [10, 10, 10, 10, 10],
    spike: [10, 10, 10, 10, 10],
    mostly: [10, 10, 10, 10, 300],
    remote: [300, 300, 300, 300, 300],
    edge: [200, 200, 200, 200, 200],
    burst: [10, 12, 10, 11, 13],
  });
  const now = sampled({
    slow: [210, 212, 208, 215, 230], // +200 ms everywhere: slower
    small: [40, 45, 50, 40, 60], // 4x, but 30-50 ms: under the floor, nothing said
    spike: [10, 11, 10, 12, 900], // one slow answer: the p90 grew, not the median: a note
    mostly: [150, 160, 170, 150, 310], // every answer slower, the tail was already slow before: slower
    remote: [420, 430, 440, 430, 450], // +130 ms but only 1.43x: nothing
    edge: [300, 300, 300, 300, 300], // exactly 1.5x: not more than the ratio
    burst: [20, 30, 160, 150, 140], // a burst of load on three answers in five: the fastest did not move, a note
  });
  const j = judgeLatency(before, now, RULE);
  expect(j.slower.map((s) => s.route)).toEqual(['slow', 'mostly']);
  expect(j.slower[0]).toEqual({
    route: 'slow',
    previous: { fastest: 10, p50: 10, p90: 10, count: 5 },
    current: { fastest: 208, p50: 212, p90: 230, count: 5 },
    ratio: 21.2,
  });
  expect(j.notes.map((n) => n.route)).toEqual(['spike', 'burst']);
  expect(j.notes[1].note).toMatch(/^the median and p90 grew .* but not the fastest: some slow answers/);
  expect(j.notes[0].note).toBe(
    'the p90 grew (fastest 10 -> 10 ms, median 10 -> 11 ms, p90 10 -> 900 ms) but not the fastest and median: some slow answers, not a slowdown',
  );
  // The options move the line both ways.
  expect(judgeLatency(before, now, { ratio: 1.2, floorMs: 100 }).slower.map((s) => s.route)).toEqual(['slow', 'mostly', 'remote', 'edge']);
  expect(judgeLatency(before, now, { ratio: 1.5, floorMs: 20 }).slower.map((s) => s.route)).toEqual(['slow', 'small', 'mostly']);
  expect(judgeLatency(before, now, { ratio: 30, floorMs: 100 }).slower).toEqual([]);
  // The tail alone never decides: a slow answer before hides nothing, one slow answer now flags nothing.
  const spikyBefore = sampled({ r: [10, 10, 10, 10, 250] });
  expect(judgeLatency(spikyBefore, sampled({ r: [210, 212, 208, 215, 230] }), RULE).slower.map((s) => s.route)).toEqual(['r']);
});

test('not judged: too few samples, another request, no samples before; a route never sampled stays silent', () => {
  const before = sampled({
    few: [10, 10, 10, 10, 10],
    trip: { samples: [10, 10, 10, 10, 10], path: '/trips/a/locations' },
    never: { samples: [], note: 'not sampled: no primary token (tokens.full)' },
    gone: [1, 1, 1, 1, 1],
  });
  const now = sampled({
    few: { samples: [500, 500], note: 'answered 500 (documented: 200): not timed' },
    trip: { samples: [900, 900, 900, 900, 900], path: '/trips/b/locations' },
    never: { samples: [], note: 'not sampled: no primary token (tokens.full)' },
    fresh: [900, 900, 900, 900, 900],
  });
  const j = judgeLatency(before, now, RULE);
  expect(j.slower).toEqual([]);
  expect(j.notes).toEqual([
    { route: 'few', note: 'not compared: fewer than 5 samples (now 2 (answered 500 (documented: 200): not timed), before 5)' },
    { route: 'trip', note: expect.stringMatching(/^not compared: it asked \/trips\/b\/locations now and \/trips\/a\/locations before/) },
  ]);
  expect(judgeLatency(undefined, now, RULE)).toEqual({
    slower: [],
    notes: [{ route: '', note: expect.stringMatching(/^the previous run has no sampled latency/) }],
  });
  expect(judgeLatency(before, undefined, RULE)).toEqual({ slower: [], notes: [] });
});

// ---------------------------------------------------------------------------------------------
// Recorded: see the file's `how` for the commands that made it.

interface Recorded {
  how: string;
  /** Back-to-back runs of the same reference under load: [first, second]. */
  quietPairs: Array<[ServerLatency, ServerLatency]>;
  /** A run, then one whose reference answered `route` 200 ms later. */
  slowed: { route: string; pair: [ServerLatency, ServerLatency] };
}

const recorded = JSON.parse(fs.readFileSync(path.join(__dirname, 'recorded', 'latency-pairs.json'), 'utf8')) as Recorded;

test('recorded: back-to-back runs on a loaded two-core machine are quiet with the defaults', () => {
  expect(recorded.quietPairs.length).toBeGreaterThanOrEqual(10);
  for (const [i, [first, second]] of recorded.quietPairs.entries()) {
    expect(Object.keys(second.routes).length, `pair ${i + 1}`).toBeGreaterThanOrEqual(19);
    expect(judgeLatency(first, second, RULE).slower, `pair ${i + 1}`).toEqual([]);
  }
});

test('recorded: a route answered 200 ms later is the one route judged slower', () => {
  const { route, pair } = recorded.slowed;
  expect(judgeLatency(pair[0], pair[1], RULE).slower.map((s) => s.route)).toEqual([route]);
});
