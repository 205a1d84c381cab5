// The operator controls of a target file, each shown working against the embedded reference: extra
// headers (redacted) through a proxy taken from HTTP_PROXY, a rate limit with 429 + Retry-After
// waited out and counted (never a failure), and tokens printed by a tokenCommand.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { expect, test } from '@playwright/test';
import type { Certificate } from '../../../src/verdict/model';
import { newReportsDir, readJson, runCommand, startReference } from '../reporting/real-run';
import { startProxy } from '../support/http-proxy';
import { EXIT } from '../../../src/verdict/exit-codes';
import { configureHttp, httpPolicy, shareRateLimit, throttle } from '../../../src/transport/http-policy';

const SUBSET = '@(CORE-CAR-RECORD|ERR-CAR-NOT-FOUND|RESP-STATUS|SCOPE-NONE)\\b';

/** The reference's target file with more keys, written next to it. */
function targetWith(file: string, extra: Record<string, unknown>): string {
  const target = { ...YAML.parse(fs.readFileSync(file, 'utf8')), ...extra };
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-target-')), 'target.yaml');
  fs.writeFileSync(out, YAML.stringify(target));
  return out;
}

function allText(dir: string): string {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'latin1'))
    .join('\n');
}

const noProxyExceptions = { NO_PROXY: '', no_proxy: '' };

test('headers go with every request through the proxy of HTTP_PROXY, and are redacted like tokens', async () => {
  test.setTimeout(300_000);
  const reference = await startReference();
  const proxy = await startProxy();
  try {
    const target = targetWith(reference.targetFile, { headers: { 'X-Gateway-Key': '${VDS_TEST_GATEWAY_KEY}' } });
    const run = await runCommand(['conformance', '--grep', SUBSET], {
      target,
      env: { HTTP_PROXY: proxy.url, ...noProxyExceptions, VDS_TEST_GATEWAY_KEY: 'gateway-key-5f3a9c' },
    });
    expect(run.code, run.output.slice(-2000)).toBe(0);
    expect(readJson<Certificate>(path.join(run.reportsDir, 'conformance.json')).counts.checks.failed).toBe(0);
    expect(proxy.seen.length, 'the requests went through the proxy').toBeGreaterThan(20);
    expect(proxy.seen.every((h) => h['x-gateway-key'] === 'gateway-key-5f3a9c')).toBe(true);
    expect(allText(run.reportsDir)).not.toContain('gateway-key-5f3a9c');
    expect(run.output).not.toContain('gateway-key-5f3a9c');
  } finally {
    await proxy.close();
    await reference.stop();
  }
});

test('a rate limit: 429 answers are waited out (Retry-After) and counted, never failures', async () => {
  test.setTimeout(300_000);
  const reference = await startReference();
  const gateway = await startProxy({ limitPerSecond: 15 });
  try {
    const target = targetWith(reference.targetFile, { rateLimit: { requestsPerSecond: 25, maxRetries: 5 } });
    const run = await runCommand(['conformance', '--grep', SUBSET], {
      // No latency sampling (its hundred requests would only wait on the limit too).
      target,
      env: { HTTP_PROXY: gateway.url, ...noProxyExceptions, VDS_LATENCY_SAMPLING: 'off' },
    });
    const c = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'));
    expect(run.code, run.output.slice(-2000)).toBe(0);
    expect(gateway.refused, 'the gateway refused some requests').toBeGreaterThan(0);
    expect(c.counts.checks.failed).toBe(0);
    expect(c.run.throttledRequests).toBeGreaterThan(0);
    expect(run.output).toMatch(/throttled: \d+ answers? 429 Too Many Requests waited out/);
  } finally {
    await gateway.close();
    await reference.stop();
  }
});

test('a gateway that refuses every authorized request (429 each time): the preparation fails after the workers started; the run ends at once, no verdict, the reason said', async () => {
  test.setTimeout(300_000);
  const reference = await startReference();
  const gateway = await startProxy({ refuse: (req) => /^Bearer /i.test(String(req.headers.authorization ?? '')) });
  try {
    // The preflight's requests carry no token (they pass); discovery's do, and get 429 after the one retry allowed.
    const target = targetWith(reference.targetFile, { rateLimit: { requestsPerSecond: 1000, maxRetries: 1 } });
    const run = await runCommand(['conformance', '--grep', SUBSET], {
      target,
      env: { HTTP_PROXY: gateway.url, ...noProxyExceptions },
      timeoutMs: 120_000,
    });
    expect(run.timedOut, run.output.slice(-2000)).toBe(false);
    expect(run.code, run.output.slice(-2000)).toBe(EXIT.broken);
    expect(run.output.match(/Error in the run's preparation: .*429/g), run.output.slice(-2000)).toHaveLength(1);
    expect(run.output).toMatch(/no verdict, the run did not complete/);
    const c = readJson<Certificate>(path.join(run.reportsDir, 'conformance.json'));
    expect(c.gate).toMatchObject({ status: 'failed', rule: 'the run did not complete' });
    expect(c.counts.checks.failed).toBe(0);
    expect(c.counts.checks.passed).toBe(0);
    expect(JSON.stringify(c)).toMatch(/the run's preparation failed: .*429/);
  } finally {
    await gateway.close();
    await reference.stop();
  }
});

test('tokenCommands: a token printed by a command is used (and secret); a failing command is a not-run reason', async () => {
  test.setTimeout(300_000);
  const reference = await startReference();
  const printed = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-token-')), 'token.txt');
  try {
    const mint =
      `fetch('${reference.control}/tokens/mint',{method:'POST',headers:{'content-type':'application/json'},` +
      `body:JSON.stringify({clientId:'vds-conformance',username:'alice@reference.test'})}).then(r=>r.json())` +
      `.then(j=>{require('fs').writeFileSync(${JSON.stringify(printed)},j.access_token);console.log(j.access_token)})`;
    const target = targetWith(reference.targetFile, {
      control: { url: reference.control, mintTokens: false },
      oauth: undefined,
      tokenCommands: { full: `node -e "${mint.replace(/"/g, '\\"')}"`, noScopes: 'exit 3' },
    });
    const reportsDir = newReportsDir();
    const run = await runCommand(['conformance', '--grep', SUBSET], { target, reportsDir });
    const c = readJson<Certificate>(path.join(reportsDir, 'conformance.json'));
    expect(run.code, run.output.slice(-2000)).toBe(0);
    expect(c.requirements.find((r) => r.id === 'CORE-CAR-RECORD')!.status).toBe('passed');
    const noScopes = c.requirements.find((r) => r.id === 'SCOPE-NONE')!;
    expect(noScopes.status).toBe('not-run');
    expect(noScopes.notRun.map((n) => n.reason).join()).toMatch(/tokenCommands\.noScopes of .* gave no token: it exited with status 3/);
    const token = fs.readFileSync(printed, 'utf8').trim();
    expect(token.length).toBeGreaterThan(10);
    expect(allText(reportsDir)).not.toContain(token);
  } finally {
    await reference.stop();
  }
});

test("the rate limit is the run's: workers side by side share it (each starts a request at most every `workers` intervals)", async () => {
  configureHttp({ rateLimit: { requestsPerSecond: 20 } });
  try {
    shareRateLimit(3);
    expect(httpPolicy().intervalMs).toBe(150);
    const started = performance.now();
    for (let i = 0; i < 3; i++) await throttle();
    // The first at once, then two intervals of 150 ms: three workers together stay at 20 a second.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    // One worker, or no limit: nothing changes.
    configureHttp({ rateLimit: { requestsPerSecond: 20 } });
    shareRateLimit(1);
    expect(httpPolicy().intervalMs).toBe(50);
    configureHttp({});
    shareRateLimit(3);
    expect(httpPolicy().intervalMs).toBe(0);
  } finally {
    configureHttp({});
  }
});
