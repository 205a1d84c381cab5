// caFile: a target behind TLS with a certificate of a private authority is reached when the target
// file names that authority's PEM file, and refused (exit 3, nothing run) when it does not. The
// embedded reference sits behind a small HTTPS front with a self-signed certificate made here.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { expect, test } from '@playwright/test';
import { EXIT } from '../../../src/verdict/exit-codes';
import type { Certificate } from '../../../src/verdict/model';
import { readJson, runCommand, startReference } from '../reporting/real-run';

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('caFile: a private certificate authority is trusted when the target file names it, and only then', async () => {
  test.skip(!hasOpenssl, 'openssl is not installed: no certificate can be made for this test');
  test.setTimeout(300_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const reference = await startReference();
  const front = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'ca.pem')) }, (req, res) => {
    const upstream = http.request({ host: '127.0.0.1', port: reference.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const port = (front.address() as AddressInfo).port;
  try {
    const base = YAML.parse(fs.readFileSync(reference.targetFile, 'utf8'));
    const write = (name: string, extra: Record<string, unknown>) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, YAML.stringify({ ...base, baseUrl: `https://127.0.0.1:${port}/v3`, ...extra }));
      return file;
    };
    const subset = ['--grep', '@(CORE-CAR-RECORD|ERR-CAR-NOT-FOUND)\\b'];
    const trusted = await runCommand(['conformance', ...subset], { target: write('trusted.yaml', { caFile: 'ca.pem' }) });
    expect(trusted.code, trusted.output.slice(-2000)).toBe(EXIT.passed);
    const c = readJson<Certificate>(path.join(trusted.reportsDir, 'conformance.json'));
    expect(c.counts.checks.passed).toBeGreaterThan(0);
    expect(c.counts.checks.failed).toBe(0);

    const untrusted = await runCommand(['conformance', ...subset], { target: write('untrusted.yaml', {}) });
    expect(untrusted.code, untrusted.output.slice(-2000)).toBe(EXIT.broken);
    expect(untrusted.output).toMatch(/TLS certificate is not trusted .*caFile/);
  } finally {
    front.closeAllConnections();
    await new Promise((resolve) => front.close(resolve));
    await reference.stop();
  }
});
