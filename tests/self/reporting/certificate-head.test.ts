// The first lines of a certificate: the run's verdict and its one reason (src/verdict/headline.ts), and
// when a certification did not run every requirement, what did not run by the input it lacked, each
// with how to get it: the list `init` and `--certify` print before a run (render-readiness.ts), in the
// same words. Never a FAIL beside "at least one requirement failed" when none did.
import { expect, test } from '@playwright/test';
import { inputInfo } from '../../../src/catalogue/needs';
import { decideGate } from '../../../src/verdict/gate';
import { headlineOf } from '../../../src/verdict/headline';
import { renderConsole } from '../../../src/rendering/render-console';
import { renderHtml } from '../../../src/rendering/render-html';
import { renderMarkdown } from '../../../src/rendering/render-md';
import { certificate, check, requirement } from './synthetic';

const EXPIRED_WHY = 'tokens.expired is not in my-target.yaml, and the target has no control API to make one';

function certification() {
  const c = certificate(
    [requirement('AUTH-EXPIRED', { class: 'profile' }), requirement('CORE-X'), requirement('DEV-PIN-ASSOCIATE', { class: 'profile' })],
    [
      check('AUTH-EXPIRED', 'GET /cars/{carId}', 'not-run', { reason: EXPIRED_WHY, missing: 'tokens.expired' }),
      check('AUTH-EXPIRED', 'GET /trips/{tripId}', 'not-run', { reason: EXPIRED_WHY, missing: 'tokens.expired' }),
      check('CORE-X', 'GET /cars/{carId}', 'passed'),
      check('DEV-PIN-ASSOCIATE', 'POST /devices', 'not-run', { reason: 'data.freeDeviceId VDS1 is already associated: give a device never associated' }),
    ],
    [],
    true,
  );
  c.certification = {
    rule: "anything not run (but what the target's environment rules out) makes its class FAIL",
    suite: { name: 'vds-conformance', version: '9.9.9', commit: 'x', workingTreeModified: false, contentSha256: 'y', hashed: [] },
  };
  c.gate = decideGate({ certificate: c, certify: true });
  c.headline = headlineOf(c);
  return c;
}

test('a certification failed on checks not run: the headline says so, then what did not run and how to get it', () => {
  const c = certification();
  expect(c.headline).toEqual({ verdict: 'FAIL', reason: '2 requirements not run (certification needs every one): AUTH-EXPIRED, DEV-PIN-ASSOCIATE' });
  const lines = renderConsole(c, 'reports').split('\n');
  expect(lines.slice(2, 10)).toEqual([
    '  FAIL: 2 requirements not run (certification needs every one): AUTH-EXPIRED, DEV-PIN-ASSOCIATE',
    '  What did not run, by what it lacked (a certification needs every requirement):',
    `    ○ tokens.expired: ${EXPIRED_WHY}`,
    '        keeps from running: AUTH-EXPIRED (2 checks)',
    `        how: ${inputInfo()['tokens.expired'].how}`,
    '    ○ data.freeDeviceId VDS1 is already associated: give a device never associated',
    '        keeps from running: DEV-PIN-ASSOCIATE (1 check)',
    expect.stringMatching(/^  core /),
  ]);
  expect(renderConsole(c, 'reports')).toContain("  Certification: anything not run (but what the target's environment rules out) makes its class FAIL");
  const md = renderMarkdown(c);
  expect(md.split('\n').slice(0, 3)).toEqual([
    '# VDS v3 conformance certificate',
    '',
    '**FAIL: 2 requirements not run (certification needs every one): AUTH-EXPIRED, DEV-PIN-ASSOCIATE**',
  ]);
  expect(md).toContain(`- tokens.expired: ${EXPIRED_WHY}`);
  expect(md).toContain('| profile | **FAIL** | 2 | 0 | 0 | 2 | 2 requirements did not run, and a certification needs every one |');
  expect(md).not.toContain('at least one requirement failed');
  expect(md).not.toContain('Certification:** certification:');
  const html = renderHtml(c);
  expect(html).toContain(
    '<p class="box verdict FAIL" id="headline">FAIL: 2 requirements not run (certification needs every one): AUTH-EXPIRED, DEV-PIN-ASSOCIATE</p>',
  );
  expect(html.indexOf('id="not-run-first"')).toBeLessThan(html.indexOf('<h2>Verdict</h2>'));
});

test('a passing run: PASS and its reason first, no list of what did not run', () => {
  const c = certificate([requirement('CORE-X')], [check('CORE-X', 'GET /cars/{carId}', 'passed')]);
  c.gate = decideGate({ certificate: c });
  c.headline = headlineOf(c);
  expect(c.headline).toEqual({ verdict: 'PASS', reason: 'every requirement of the spec and the profile ran and passed (1)' });
  expect(renderConsole(c, 'reports')).not.toContain('What did not run');
});
