// A list's size follows the data, and neither document states a page size: a conforming server with a
// lot of data may answer a history list of several megabytes. Such an answer is judged like any other;
// one larger than the suite reads (a car with years of 1 Hz signals) is not judged: its checks are not
// run, with the reason, never failed.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { MAX_BODY_BYTES, MAX_LIST_BODY_BYTES } from '../../../src/transport/api';
import { keysPattern } from '../../../src/catalogue/selection';
import type { Certificate } from '../../../src/verdict/model';
import { listenOnLoopback } from '../support/loopback-server';
import { runSuite, writeTargetFile } from './run-suite';

test.setTimeout(120_000);

const LOCATION = '{"latitude":48.85,"longitude":2.35,"altitude":35.5,"satellites":8,"heading":90,"date":"2026-11-01T00:00:00+00:00"}';
const SIGNAL = '{"name":"Odometer","value":12345.6,"date":"2026-11-01T00:00:00+00:00"}';

/** A valid JSON array of `item`, streamed until `bytes` are written or the client goes away. */
function streamList(res: http.ServerResponse, item: string, bytes: number): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  const chunk = `${Array.from({ length: 1000 }, () => item).join(',')}`;
  let sent = 0;
  res.write('[');
  const push = () => {
    while (sent < bytes && !res.destroyed) {
      const more = res.write(sent === 0 ? chunk : `,${chunk}`);
      sent += chunk.length;
      if (!more) return void res.once('drain', push);
    }
    if (!res.destroyed) res.end(']');
  };
  res.on('close', () => {
    sent = bytes;
  });
  push();
}

function startServer() {
  return listenOnLoopback(
    http.createServer((req, res) => {
      const route = (req.url ?? '/').split('?')[0];
      if (route === '/v3/trips/big-trip/locations') return streamList(res, LOCATION, (3 * MAX_BODY_BYTES) / 2);
      if (route === '/v3/trips/big-trip/signals') return streamList(res, SIGNAL, MAX_LIST_BODY_BYTES + 8 * 1024 * 1024);
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not Found</body></html>');
    }),
  );
}

test('a list of several megabytes is judged; one larger than the suite reads is not run, never failed', async () => {
  const server = await startServer();
  try {
    const target = writeTargetFile(
      ['name: large-lists', `baseUrl: ${server.origin}/v3`, 'env: cloud', 'tokens:', '  full: large-lists-test-token-0001', 'data:', '  tripId: big-trip'].join(
        '\n',
      ),
    );
    const keys = ['RESP-CONTRACT GET /trips/{tripId}/locations', 'RESP-CONTRACT GET /trips/{tripId}/signals'];
    const run = await runSuite({ target, env: { VDS_GREP: keysPattern(keys) } });
    const file = path.join(run.reportsDir, 'conformance.json');
    expect(fs.existsSync(file), run.output.slice(-2000)).toBe(true);
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as Certificate;
    const contract = c.requirements.find((r) => r.id === 'RESP-CONTRACT')!;
    expect(contract.failures, run.output.slice(-2000)).toEqual([]);
    expect(c.counts.checks.passed).toBe(1);
    const signals = contract.notRun.find((n) => n.checks.includes('RESP-CONTRACT GET /trips/{tripId}/signals'));
    expect(signals?.checks).toEqual(['RESP-CONTRACT GET /trips/{tripId}/signals']);
    expect(signals?.reason).toMatch(/answered more than 32 MiB, the most of one answer the suite reads: too much to judge/);
  } finally {
    await server.close();
  }
});
