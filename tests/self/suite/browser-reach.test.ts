// The browser reaches what the suite's HTTP client reaches (src/setup/browser-network.ts), and no more:
// a certificate of the target's caFile is accepted by Chromium, one of another authority is still
// refused (by the HTTP client and by the browser alike); the target's extra headers go to its own
// origin only; HTTPS_PROXY / NO_PROXY route the same hosts as undici does.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { chooseBrowser, launchBrowser } from '../../../src/setup/browser';
import { learnReach, openContext, proxyWarnings, reachOptions } from '../../../src/setup/browser-network';
import type { Target } from '../../../src/setup/target';
import { proxyFor, proxySettings } from '../../../src/transport/http-policy';
import { hasCommand, makeAuthority } from '../../../scripts/deployment';

const choice = chooseBrowser();

function target(baseUrl: string, extra: Partial<Target> = {}): Target {
  return { name: 't', baseUrl, env: 'cloud', requestTimeoutMs: 5000, source: 'test.yaml', ...extra } as Target;
}

async function serve(server: http.Server | https.Server, host = '127.0.0.1'): Promise<{ port: number; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('caFile: the browser accepts the target authority certificate, and still refuses one of another authority', async () => {
  test.skip(!choice.executablePath || !hasCommand('openssl', ['version']), 'needs a Chromium and openssl');
  const ours = makeAuthority('ours');
  const theirs = makeAuthority('theirs');
  const page = (a: { cert: string; key: string }) =>
    https.createServer({ cert: fs.readFileSync(a.cert), key: fs.readFileSync(a.key) }, (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>signed</h1>'),
    );
  const good = await serve(page(ours.issue(['localhost', '127.0.0.1'])));
  const other = await serve(page(theirs.issue(['localhost', '127.0.0.1'])));
  try {
    const goodTarget = target(`https://localhost:${good.port}/v3`, { caFile: ours.ca });
    const otherTarget = target(`https://localhost:${other.port}/v3`, { caFile: ours.ca });
    const goodReach = await learnReach(goodTarget, {});
    expect(goodReach.trustedKeys).toHaveLength(1);
    const otherReach = await learnReach(otherTarget, {});
    expect(otherReach.trustedKeys).toBeUndefined();
    expect(otherReach.warnings?.join(' ')).toMatch(/caFile: the browser could not be given https:\/\/localhost:\d+'s certificate/);

    // One browser given what the target's caFile vouches for: the target loads, the other authority's server does not.
    const browser = await launchBrowser({ ...choice, ...goodReach });
    try {
      const context = await openContext(browser, goodTarget);
      const tab = await context.newPage();
      expect((await tab.goto(`https://localhost:${good.port}/`))?.status()).toBe(200);
      expect(await tab.textContent('h1')).toBe('signed');
      const refused = await tab.goto(`https://localhost:${other.port}/`).then(
        () => 'loaded',
        (err: Error) => err.message,
      );
      expect(refused).toMatch(/ERR_CERT_AUTHORITY_INVALID/);
      await context.close();
    } finally {
      await browser.close();
    }
    // Without the caFile's certificates, the browser refuses the private authority too.
    const bare = await launchBrowser(choice);
    try {
      const tab = await bare.newPage();
      const refused = await tab.goto(`https://localhost:${good.port}/`).then(
        () => 'loaded',
        (err: Error) => err.message,
      );
      expect(refused).toMatch(/ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await bare.close();
    }
  } finally {
    await good.close();
    await other.close();
  }
});

test("headers: the target's extra headers reach its own origin in the browser, never another site", async () => {
  test.skip(!choice.executablePath, 'needs a Chromium');
  const seen: Array<{ host: string; key?: string }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ host: String(req.headers.host), key: req.headers['x-gateway-key'] as string | undefined });
    const other = `http://127.0.0.1:${(server.address() as AddressInfo).port}/elsewhere`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/v3/page' ? `<img src="${other}"><h1>page</h1>` : 'ok');
  });
  const { port, close } = await serve(server);
  const browser = await launchBrowser(choice);
  try {
    // The target is named localhost; the same server reached as 127.0.0.1 is another origin.
    const context = await openContext(browser, target(`http://localhost:${port}/v3`, { headers: { 'x-gateway-key': 'gateway-secret' } }));
    const tab = await context.newPage();
    await tab.goto(`http://localhost:${port}/v3/page`);
    await tab.waitForLoadState('networkidle');
    expect(seen.find((s) => s.host.startsWith('localhost'))?.key).toBe('gateway-secret');
    expect(seen.find((s) => s.host.startsWith('127.0.0.1'))).toBeTruthy();
    expect(seen.filter((s) => s.host.startsWith('127.0.0.1')).map((s) => s.key)).toEqual([undefined]);
    await context.close();
  } finally {
    await browser.close();
    await close();
  }
});

test('proxy: the browser is given the HTTP client proxies, for the same hosts', () => {
  const proxy = 'http://user:p%40ss@proxy.example:3128';
  const env = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, NO_PROXY: 'internal.example,.corp.example:8443' };
  const settings = proxySettings(env);
  // undici's rules: an exact name, a suffix with its port; the rest through the proxy (loopback too).
  expect(proxyFor(new URL('https://api.example/v3'), settings)).toBe(proxy);
  expect(proxyFor(new URL('https://internal.example/v3'), settings)).toBeUndefined();
  expect(proxyFor(new URL('https://sub.internal.example/v3'), settings)).toBe(proxy);
  expect(proxyFor(new URL('https://a.corp.example:8443/v3'), settings)).toBeUndefined();
  expect(proxyFor(new URL('https://a.corp.example/v3'), settings)).toBe(proxy);
  expect(proxyFor(new URL('http://127.0.0.1:8080/v3'), settings)).toBe(proxy);
  expect(proxyFor(new URL('https://api.example/v3'), proxySettings({ ...env, NO_PROXY: '*' }))).toBeUndefined();
  // HTTPS_PROXY alone leaves plain HTTP direct; HTTP_PROXY alone serves HTTPS too (undici's fallback).
  expect(proxyFor(new URL('http://api.example/v3'), proxySettings({ HTTPS_PROXY: proxy }))).toBeUndefined();
  expect(proxyFor(new URL('https://api.example/v3'), proxySettings({ HTTP_PROXY: proxy }))).toBe(proxy);
  // The same for Chromium: one server for both schemes through Playwright's option, with its credentials.
  expect(reachOptions({}, env)).toEqual({
    proxy: { server: 'http://proxy.example:3128', bypass: 'internal.example,*.corp.example:8443', username: 'user', password: 'p@ss' },
    args: [],
  });
  // A scheme of its own: Chromium's per-scheme rule, loopback proxied as undici proxies it.
  expect(reachOptions({ trustedKeys: ['k1'] }, { HTTP_PROXY: 'http://plain:8080', HTTPS_PROXY: 'http://tls:3128' }).args).toEqual([
    '--ignore-certificate-errors-spki-list=k1',
    '--proxy-server=http=http://plain:8080;https=http://tls:3128',
    '--proxy-bypass-list=<-loopback>',
  ]);
  expect(reachOptions({}, { HTTPS_PROXY: 'http://tls:3128', NO_PROXY: 'localhost' }).args).toEqual([
    '--proxy-server=https=http://tls:3128',
    '--proxy-bypass-list=localhost',
  ]);
  expect(proxyWarnings({ HTTPS_PROXY: proxy })).toHaveLength(1);
  expect(proxyWarnings(env)).toEqual([]);
  expect(reachOptions({}, { NO_PROXY: 'x' })).toEqual({ args: [] });
});
