// Precision where users run their servers: the same conforming reference, reached as a vendor's
// deployment is reached, must run clean (exit 0, no check failed, none not run that it can show),
// every check of the suite, in-process, each deployment started by the test itself:
//   - by the machine's own name (neither localhost nor a loopback literal), every token minted
//     through the sign-in page (the target file holds OAuth credentials only), the redirect URI on
//     a host that does not exist (a vendor's app callback);
//   - at the IPv6 literal [::1];
//   - over HTTPS (the reference's own TLS) with a certificate of a private authority made here, given
//     as caFile;
//   - over HTTP/2 on TLS, HTTP/1.1 offered beside it by ALPN (Fastify's http2 with allowHTTP1), as a
//     modern front end serves: the browser speaks HTTP/2 to it, the API requests HTTP/1.1 (undici's
//     fetch offers no h2 by default), both to the same server;
//   - behind nginx (Debian's package) configured as a production site, over TLS of another authority;
//   - through a forward proxy given by HTTPS_PROXY / HTTP_PROXY, which both the API requests and the
//     browser go through (the proxy shows both came);
//   - a server that keeps its state and a device's link to its user after dissociation (variant
//     dissociate-keeps-user-link), reached by name over HTTPS with OAuth credentials only (no control
//     API: the expired and revoked tokens from tokenCommands, as an operator's admin tool makes them),
//     three runs without a reset, the first on a fresh server: every check runs each time, the device
//     checks included (each run given a pin device and a lockable device of its own, as the messages of
//     a run that met used ones ask).
// Every browser check runs in each (the sign-in page, the token endpoint's codes): none may fail on
// how the server is reached.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { startReference, writeTargetFile, type Reference, type ReferenceOptions } from '../../../scripts/reference-process';
import { loadTarget } from '../../../src/setup/target';
import { runInProcess } from '../../../src/engine/in-process';
import { configureHttp } from '../../../src/transport/http-policy';
import { hasCommand, machineName, makeAuthority } from '../../../scripts/deployment';
import { nginxPath, startForwardProxy, startNginx } from '../support/deployments';
import { expect, test } from './fixtures';
import { falseAlarms, recordOutcome } from './outcome';
import type { Catalogue } from '../../../src/catalogue/catalogue';
import { requirementsPattern } from '../../../src/catalogue/selection';
import { faultGatePlan, isCaught } from '../../../scripts/power-plan';
import type { KillMatrix } from '../../../scripts/kill-matrix';
import { runCommand } from './command-sample';
import type { BrowserChoice } from '../../../src/setup/browser';

const hasOpenssl = hasCommand('openssl', ['version']);

/** Runs every check against the target file and judges it as the precision proof does. */
async function judgeClean(
  label: string,
  targetFile: string,
  catalogue: Catalogue,
  browserChoice: BrowserChoice,
  only?: { grep: RegExp; minPassed: number },
): Promise<void> {
  // No shared browser: the run launches its own, given what it needs to reach this target.
  const run = await runInProcess({ target: loadTarget(targetFile), catalogue, browserChoice, ...(only ? { selection: { grep: only.grep } } : {}) });
  const { failed, notRun } = falseAlarms(run.certificate);
  const problems = [
    ...(run.exitCode !== 0 ? [`exit status ${run.exitCode}: ${run.certificate.gate?.reasons.join('; ')}`] : []),
    ...failed.map((f) => `failed ${f}`),
    ...notRun.map((n) => `not run ${n}`),
  ];
  recordOutcome({
    kind: 'conforming',
    label,
    ok: problems.length === 0,
    exitCode: run.exitCode,
    failed: [...new Set(run.certificate.requirements.filter((r) => r.failures.length).map((r) => r.id))],
  });
  expect(problems, `false alarms against the reference reached as ${label}`).toEqual([]);
  expect(run.certificate.counts.checks.passed, 'checks passed').toBeGreaterThan(only?.minPassed ?? 600);
}

/**
 * The operator's admin tool for the tokens no client can mint, as tokenCommands run it: handed the
 * token the suite minted (VDS_TOKEN_TO_EXPIRE, VDS_TOKEN_TO_REVOKE), it expires or revokes it through
 * the reference's control API (standing in for an authorization server's), and prints nothing. The
 * control API is reached over the deployment's TLS (NODE_EXTRA_CA_CERTS: its authority).
 */
function adminTool(control: string, ca: string): Record<'expired' | 'revoked', string> {
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vds-admin-')), 'admin.mjs');
  fs.writeFileSync(
    script,
    `const [action, variable] = process.argv.slice(2);
const res = await fetch(${JSON.stringify(control)} + '/tokens/' + action, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: process.env[variable] }),
});
if (res.status !== 204) { console.error('the admin tool failed: ' + res.status); process.exit(1); }
`,
  );
  const run = (action: string, variable: string) => `NODE_EXTRA_CA_CERTS='${ca}' '${process.execPath}' '${script}' ${action} ${variable}`;
  return { expired: run('expire', 'VDS_TOKEN_TO_EXPIRE'), revoked: run('revoke', 'VDS_TOKEN_TO_REVOKE') };
}

async function withReference(options: ReferenceOptions, use: (reference: Reference) => Promise<void>): Promise<void> {
  const reference = await startReference(options);
  try {
    await use(reference);
  } finally {
    await reference.stop();
  }
}

test.describe('deployments', () => {
  test.describe.configure({ timeout: 300_000 });

  test("deployment: a server that keeps a device's user link, OAuth only over HTTPS by name, three runs without reset: every check runs, every device check again twice", async ({
    catalogue,
    browserChoice,
  }) => {
    test.setTimeout(900_000);
    test.skip(!hasOpenssl, 'openssl is not installed: no certificate can be made');
    test.skip(!browserChoice.executablePath, 'no browser: OAuth credentials alone mint no token without one');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('kept');
    const tls = { ...authority.issue([name, 'localhost', '127.0.0.1', '::1']), ca: authority.ca };
    // Each run's pin device and lockable device: a run uses them up (the pin association stays, the lock too).
    const devices = [
      { freeDeviceId: 'VDSREF0102', devicePin: '24680', lockableDeviceId: 'VDSREF0103', lockableDevicePin: '975310' },
      { freeDeviceId: 'VDSREF0105', devicePin: '31415', lockableDeviceId: 'VDSREF0106', lockableDevicePin: '271828' },
      { freeDeviceId: 'VDSREF0107', devicePin: '16180', lockableDeviceId: 'VDSREF0108', lockableDevicePin: '14142' },
    ];
    await withReference({ target: 'local-signin', variant: 'dissociate-keeps-user-link', reach: { listen: '::', host: name, tls } }, async (reference) => {
      const tokenCommands = adminTool(reference.control, tls.ca);
      for (const [i, own] of devices.entries()) {
        const file = writeTargetFile(`https://${name}:${reference.port}`, 'local-signin', {
          caFile: tls.ca,
          oauth: { redirectUri: 'https://app.vds-vendor.invalid/oauth/callback' },
        });
        // OAuth credentials only: no control API (no reset, no tokens from it); the tokens no client can mint from the admin tool.
        const target = YAML.parse(fs.readFileSync(file, 'utf8'));
        delete target.control;
        target.tokenCommands = tokenCommands;
        target.data = { ...target.data, ...own };
        fs.writeFileSync(file, YAML.stringify(target));
        // The first run whole; the next two (the server as the runs before left it) every device check.
        const devicesOnly = i > 0 ? { grep: /@devices\b/, minPassed: 30 } : undefined;
        await judgeClean(`deployment-kept-user-link run ${i + 1} (${name})`, file, catalogue, browserChoice, devicesOnly);
      }
    });
  });

  test('deployment: by the machine name, every token through the sign-in page', async ({ catalogue, browserChoice }) => {
    const name = await machineName();
    test.skip(!name, `this machine's host name does not resolve to one of its addresses`);
    await withReference({ target: 'local-signin', reach: { listen: '::', host: name! } }, (reference) => {
      // The redirect URI a vendor registers is its app's, on a host that need not answer (here: none exists).
      const targetFile = writeTargetFile(`http://${name}:${reference.port}`, 'local-signin', {
        oauth: { redirectUri: 'https://app.vds-vendor.invalid/oauth/callback' },
      });
      return judgeClean(`deployment-by-name (${name})`, targetFile, catalogue, browserChoice);
    });
  });

  test('deployment: at the IPv6 literal [::1]', async ({ catalogue, browserChoice }) => {
    await withReference({ target: 'local', reach: { listen: '::1', host: '[::1]' } }, (reference) =>
      judgeClean('deployment-ipv6', reference.targetFile, catalogue, browserChoice),
    );
  });

  test('deployment: over HTTPS with a private authority given as caFile', async ({ catalogue, browserChoice }) => {
    test.skip(!hasOpenssl, 'openssl is not installed: no certificate can be made');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('https');
    const tls = { ...authority.issue([name, 'localhost', '127.0.0.1', '::1']), ca: authority.ca };
    await withReference({ target: 'local', reach: { listen: '::', host: name, tls } }, (reference) =>
      judgeClean(`deployment-https (${name})`, reference.targetFile, catalogue, browserChoice),
    );
  });

  test('deployment: HTTP/2 over TLS (h2 and http/1.1 by ALPN), a private authority given as caFile', async ({ catalogue, browserChoice }) => {
    test.skip(!hasOpenssl, 'openssl is not installed: no certificate can be made');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('http2');
    const tls = { ...authority.issue([name, 'localhost', '127.0.0.1', '::1']), ca: authority.ca };
    await withReference({ target: 'local-signin', reach: { listen: '::', host: name, tls, http2: true } }, async (reference) => {
      await judgeClean(`deployment-http2 (${name})`, reference.targetFile, catalogue, browserChoice);
      // Both kinds of client reached it, each by the protocol it offered: the browser (the sign-in pages) by HTTP/2.
      const seen = await reference.protocols();
      expect(seen['2.0'] ?? 0, `requests by HTTP/2 (the browser): ${JSON.stringify(seen)}`).toBeGreaterThan(0);
      expect(seen['1.1'] ?? 0, `requests by HTTP/1.1 (the API requests): ${JSON.stringify(seen)}`).toBeGreaterThan(100);
    });
  });

  test('deployment: behind nginx as a production site (TLS, keep-alive, gzip, buffering, its own error pages)', async ({ catalogue, browserChoice }) => {
    test.skip(!hasOpenssl || !nginxPath(), 'nginx or openssl is not installed (.ci/run installs nginx)');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('nginx');
    const nginxTls = authority.issue([name, 'localhost', '127.0.0.1', '::1']);
    await withReference({ target: 'local' }, async (reference) => {
      const nginx = await startNginx({ upstream: `127.0.0.1:${reference.port}`, tls: nginxTls, serverName: name });
      try {
        const targetFile = writeTargetFile(`https://${name}:${nginx.port}`, 'local', { caFile: authority.ca });
        await judgeClean(`deployment-nginx (${name})`, targetFile, catalogue, browserChoice);
      } finally {
        await nginx.stop();
      }
    });
  });

  test('deployment: through a forward proxy (HTTPS_PROXY), the API requests and the browser alike', async ({ catalogue, browserChoice }) => {
    test.skip(!hasOpenssl, 'openssl is not installed: no certificate can be made');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('proxied');
    const tls = { ...authority.issue([name, 'localhost', '127.0.0.1', '::1']), ca: authority.ca };
    await withReference({ target: 'local', reach: { listen: '::', host: name, tls } }, async (reference) => {
      const proxy = await startForwardProxy();
      const saved = Object.fromEntries(PROXY_VARIABLES.map((k) => [k, process.env[k]]));
      for (const k of PROXY_VARIABLES) delete process.env[k];
      Object.assign(process.env, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url });
      try {
        await judgeClean(`deployment-forward-proxy (${name})`, reference.targetFile, catalogue, browserChoice);
      } finally {
        for (const k of PROXY_VARIABLES) {
          if (saved[k] === undefined) delete process.env[k];
          else process.env[k] = saved[k];
        }
        // This worker's later requests (the power tests' references) go direct again.
        configureHttp({});
        await proxy.close();
      }
      const through = (browser: boolean) => proxy.seen.filter((s) => /Chrome/.test(s.userAgent) === browser && s.target.includes(String(reference.port)));
      expect(through(false).length, 'the API requests went through the proxy').toBeGreaterThan(0);
      expect(through(true).length, 'the browser went through the proxy').toBeGreaterThan(0);
    });
  });
});

/**
 * Power through the real parts: a fault of the reference, served behind nginx or over the reference's
 * own TLS, is caught through the README's command (exit status 1 on a failing check; core FAIL for a
 * fault of the spec), its checks selected as the gate selects them (the requirements that caught it).
 */
test.describe('deployments: faults through the real parts', () => {
  test.describe.configure({ timeout: 300_000 });
  const FAULT_BEHIND_NGINX = 'error-body-object-not-array';
  const FAULT_OVER_TLS = 'route-answers-500@GET /cars/:carId';

  async function caughtThrough(label: string, spec: string, targetFile: string, catalogue: Catalogue, kills: KillMatrix): Promise<void> {
    const plan = faultGatePlan(spec, catalogue, kills);
    // As the command sample runs a fault (command.test.ts): its first failing check ends the run.
    const run = await runCommand(
      ['--target', targetFile, '--max-failures', '1', ...(plan.first ? ['--grep', requirementsPattern(plan.first)] : [])],
      {},
      {
        quick: true,
      },
    );
    const ok = isCaught(
      { exitCode: run.code, failedChecks: run.certificate?.counts.checks.failed ?? 0, coreFailed: run.certificate?.verdict.core === 'FAIL' },
      plan.breaksSpec,
    );
    recordOutcome({
      kind: 'command-fault',
      label: `${spec} (${label})`,
      ok,
      exitCode: run.code,
      breaksSpec: plan.breaksSpec,
      failed: run.certificate?.requirements.filter((r) => r.failures.length).map((r) => r.id) ?? [],
    });
    expect(ok, `fault ${spec} ${label}: npm run conformance --target ${targetFile}\n${run.tail}`).toBe(true);
  }

  test(`fault ${FAULT_BEHIND_NGINX} behind nginx, over its TLS`, async ({ catalogue, kills }) => {
    test.skip(!hasOpenssl || !nginxPath(), 'nginx or openssl is not installed (.ci/run installs nginx)');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('nginx-fault');
    await withReference({ target: 'local', fault: FAULT_BEHIND_NGINX }, async (reference) => {
      const nginx = await startNginx({ upstream: `127.0.0.1:${reference.port}`, tls: authority.issue([name, 'localhost']), serverName: name });
      try {
        const targetFile = writeTargetFile(`https://${name}:${nginx.port}`, 'local', { caFile: authority.ca });
        await caughtThrough('behind nginx', FAULT_BEHIND_NGINX, targetFile, catalogue, kills);
      } finally {
        await nginx.stop();
      }
    });
  });

  test(`fault ${FAULT_OVER_TLS} over the reference's own TLS`, async ({ catalogue, kills }) => {
    test.skip(!hasOpenssl, 'openssl is not installed: no certificate can be made');
    const name = (await machineName()) ?? 'localhost';
    const authority = makeAuthority('tls-fault');
    const tls = { ...authority.issue([name, 'localhost']), ca: authority.ca };
    await withReference({ target: 'local', fault: FAULT_OVER_TLS, reach: { listen: '::', host: name, tls } }, (reference) =>
      caughtThrough('over TLS', FAULT_OVER_TLS, reference.targetFile, catalogue, kills),
    );
  });
});

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];
