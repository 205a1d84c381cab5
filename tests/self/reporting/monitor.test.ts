// Nightly monitoring end to end, as an operator runs it (npm run conformance -- --monitor --compare
// --history): the server's latency sampled before the checks, two back-to-back runs of the same
// reference quiet, a reference answering one route 200 ms later named (exit 1), the nights drawn as
// a trend; the samples taken before the workers start (their start would queue a nearby server's answers). Each run selects one check: the sampling happens in global setup whatever the selection,
// so the runs cost the suite's fixed cost only. Many more back-to-back pairs, recorded on a loaded
// machine, are judged in slowdown.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { sampledRoutes, SAMPLES_PER_ROUTE } from '../../../src/setup/latency-sampling';
import { loadCatalogue } from '../../../src/catalogue/catalogue';
import type { Certificate } from '../../../src/verdict/model';
import { readJson, runCommand, startReference } from './real-run';
import { timelineLines } from '../../../src/transport/timeline';

test.setTimeout(300_000);

const ONE_CHECK = '^RESP-STATUS GET /users/me @';
const cli = (target: string, args: string[], env: Record<string, string> = {}) => runCommand(['conformance', ...args], { target, timeoutMs: 120_000, env });

/** When each of the run's stages came (the first of each name), from its timeline (VDS_TIMELINE). */
function stagesOf(file: string): Record<string, number> {
  const stages: Record<string, number> = {};
  for (const l of timelineLines(file)) if (l.kind === 'stage' && !(l.stage in stages)) stages[l.stage] = l.at;
  return stages;
}

const certificateOf = (dir: string) => readJson<Certificate>(path.join(dir, 'conformance.json'));

test('monitoring: back-to-back runs are quiet, a route 200 ms slower is named, the nights become a trend', async () => {
  const history = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-nights-')), 'nights');
  const plain = await startReference();
  const timeline = path.join(path.dirname(history), 'timeline.jsonl');
  let first;
  let second;
  try {
    first = await cli(plain.targetFile, ['--grep', ONE_CHECK, '--monitor', '--history', history], { VDS_TIMELINE: timeline });
    second = await cli(plain.targetFile, [
      '--grep',
      ONE_CHECK,
      '--monitor',
      '--compare',
      path.join(first.reportsDir, 'conformance.json'),
      '--history',
      history,
    ]);
  } finally {
    await plain.stop();
  }
  expect(first.code, first.output.slice(-3000)).toBe(0);
  const c1 = certificateOf(first.reportsDir);
  const gets = sampledRoutes(loadCatalogue()).map((r) => r.route);
  expect(Object.keys(c1.serverLatency!.routes)).toEqual(gets);
  for (const route of gets) expect(c1.serverLatency!.routes[route].count, route).toBe(SAMPLES_PER_ROUTE);
  expect(c1.serverLatency!.method).toMatch(/one at a time, before any check/);
  expect(fs.readFileSync(path.join(first.reportsDir, 'conformance.md'), 'utf8')).toContain('How it was measured: 5 requests per GET route');
  expect(first.output).toMatch(/latency sampling \d+\.\d s/);
  // Compared with other nights, the samples are taken before the workers start: a worker's start on
  // this machine would queue a nearby server's answers they time.
  const stages = stagesOf(timeline);
  expect(stages['latency sampling']).toBeLessThanOrEqual(stages['workers started']);
  expect(stages['latency sampling']).toBeLessThan(stages['worker started']);

  expect(second.code, second.output.slice(-3000)).toBe(0);
  expect(certificateOf(second.reportsDir).comparison).toMatchObject({ worse: false, latencyRegressions: [] });

  const slow = await startReference({ routeLatency: 'GET /cars/:carId/status=200' });
  let third;
  try {
    third = await cli(slow.targetFile, ['--grep', ONE_CHECK, '--monitor', '--compare', path.join(second.reportsDir, 'conformance.json'), '--history', history]);
  } finally {
    await slow.stop();
  }
  expect(third.code, third.output.slice(-3000)).toBe(1);
  const c3 = certificateOf(third.reportsDir);
  expect(c3.comparison!.latencyRegressions.map((l) => l.route)).toEqual(['GET /cars/{carId}/status']);
  expect(c3.comparison!.latencyRegressions[0].current.p50).toBeGreaterThanOrEqual(200);
  expect(c3.gate!.reasons).toEqual([expect.stringMatching(/^slower \(fastest and median beyond 1\.5x and \+100 ms\): GET \/cars\/\{carId\}\/status$/)]);
  expect(fs.readFileSync(path.join(third.reportsDir, 'changes.md'), 'utf8')).toMatch(/- GET \/cars\/\{carId\}\/status: median \d+ -> \d+ ms/);

  // Three nights kept, drawn from the folder.
  expect(fs.readdirSync(history)).toHaveLength(3);
  const md = fs.readFileSync(path.join(third.reportsDir, 'trend.md'), 'utf8');
  expect(md).toContain('3 run(s) of 3 kept');
  expect(md).toContain('slower: GET /cars/{carId}/status');
  const html = fs.readFileSync(path.join(third.reportsDir, 'trend.html'), 'utf8');
  expect(html.match(/<svg /g)).toHaveLength(gets.length);
  expect(third.output).toContain(`Trend: ${path.join(third.reportsDir, 'trend.html')} (also .md): 3 run(s) of`);
});

test('a sandbox without a token: only its open routes are sampled, the others say why', async () => {
  const run = await runCommand(['conformance', '--grep', '^RESP-STATUS GET /users/\\{userId\\} @', '--monitor'], {
    target: 'local-sandbox',
    timeoutMs: 120_000,
  });
  expect(run.code, run.output.slice(-3000)).toBe(0);
  const routes = certificateOf(run.reportsDir).serverLatency!.routes;
  const open = sampledRoutes(loadCatalogue())
    .filter((r) => r.sandboxOpen)
    .map((r) => r.route);
  for (const route of open) expect(routes[route].count, route).toBe(SAMPLES_PER_ROUTE);
  expect(routes['GET /users/me']).toMatchObject({ count: 0, note: 'not sampled: no primary token (tokens.full)' });
  expect(routes['GET /users/me/cars'].count).toBe(0);
});
