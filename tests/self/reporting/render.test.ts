// The Markdown, HTML and console renderings: what a reader needs (verdict, citations, expected vs
// actual, what would make a check run), inert server content, self-contained HTML, no secrets.
import { expect, test } from '@playwright/test';
import { Redactor } from '../../../src/util/redact';
import { countsLine } from '../../../src/rendering/format';
import { RUN_STOPPED, type Certificate } from '../../../src/verdict/model';
import { redactDeep } from '../../../src/setup/report-redactor';
import { renderConsole } from '../../../src/rendering/render-console';
import { renderHtml } from '../../../src/rendering/render-html';
import { renderMarkdown } from '../../../src/rendering/render-md';
import { certificate, check, requirement } from './synthetic';

const SECRET = 'tok_9f8e7d6c5b4a';
const hostile = 'got <script>alert(1)</script> | `tick` *bold* [link](http://evil.example)';

function sample(): Certificate {
  return certificate(
    [
      requirement('ERR-CAR-NOT-FOUND', { class: 'profile', cite: 'v3-profile.md § Errors (Resources)', title: 'Unknown car is 404' }),
      requirement('SCOPE-MISSING', { cite: 'vehicle-data-service-v3.md § Authentication' }),
      requirement('CORE-OK', { routes: ['GET /users/me'] }),
    ],
    [
      check('ERR-CAR-NOT-FOUND', 'GET /cars/{carId}/status', 'failed', {
        failure: {
          check: 'ERR-CAR-NOT-FOUND GET /cars/{carId}/status',
          expected: '404 PARAMETERS_ERROR "Car not found"',
          actual: hostile,
          pointer: '/0/message',
          request: `GET http://127.0.0.1:1/v3/cars/999?access_token=${SECRET} -> 500`,
          body: `{"token":"${SECRET}"}`,
        },
      }),
      check('SCOPE-MISSING', 'GET /cars/{carId} [cars_read]', 'not-run', {
        reason: 'needs the token withoutScope.cars_read: set tokens.withoutScope.cars_read in the target file',
      }),
      check('CORE-OK', 'GET /users/me', 'passed', { group: 'users', warnings: [`Authorization: Bearer ${SECRET}`] }),
    ],
  );
}

/** What the certificate reporter does before writing anything. */
function redacted(c: Certificate): Certificate {
  return redactDeep(c, new Redactor([SECRET]));
}

test('markdown: verdict per class, the group table, every failure with citation and expected vs actual, every not-run with its reason', () => {
  const md = renderMarkdown(redacted(sample()));
  expect(md).toContain('| core | **INCOMPLETE** |');
  expect(md).toContain('| profile | **FAIL** |');
  expect(md).toContain('| Requirement | Class | users | cars | trips | devices | auth | Status |');
  expect(md).toContain('| ERR-CAR-NOT-FOUND | profile |  | ✘ |  |  |  | failed |');
  expect(md).toContain('cite: v3-profile.md § Errors (Resources)');
  expect(md).toContain('`ERR-CAR-NOT-FOUND GET /cars/{carId}/status`');
  expect(md).toContain('expected: ` 404 PARAMETERS_ERROR "Car not found" `');
  expect(md).toContain('at: ` /0/message `');
  expect(md).toContain('**What would make it run:** needs the token withoutScope.cars\\_read: set tokens.withoutScope.cars\\_read in the target file');
  expect(md).toContain('vehicle-data-service-v3.md § Authentication');
});

test('markdown: server content stays inert (in a code span, never a table cell or a link)', () => {
  const md = renderMarkdown(redacted(sample()));
  expect(md).toContain('actual: `` got <script>alert(1)</script> | `tick` *bold* [link](http://evil.example) ``');
});

test('html: the same content, escaped, in one self-contained page', () => {
  const html = renderHtml(redacted(sample()));
  expect(html).toContain('<td class="verdict FAIL">FAIL</td>');
  expect(html).toContain('cite: v3-profile.md § Errors (Resources)');
  expect(html).toContain('404 PARAMETERS_ERROR &quot;Car not found&quot;');
  expect(html).toContain('got &lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).toContain('What would make it run:</strong> needs the token withoutScope.cars_read');
  expect(html).not.toMatch(/<script|<link|\ssrc=|@import|url\(|href="(?!#)/i);
});

test('console: verdicts, failures with expected vs actual, and the plain counts line last', () => {
  const out = renderConsole(redacted(sample()), '/tmp/reports');
  expect(out).toMatch(/core\s+INCOMPLETE/);
  expect(out).toMatch(/profile\s+FAIL/);
  expect(out).toContain('expected: 404 PARAMETERS_ERROR "Car not found"');
  expect(out).toContain('cite: v3-profile.md § Errors (Resources)');
  expect(out.trimEnd().split('\n').pop()).toBe('1 passed, 1 failed, 1 not run');
});

test('no rendering shows a secret, in a URL, a body, a warning or a header', () => {
  const c = redacted(sample());
  for (const text of [renderMarkdown(c), renderHtml(c), JSON.stringify(c)]) {
    expect(text).not.toContain(SECRET);
    expect(text).toContain('[REDACTED]'); // the request, body and warning are shown, scrubbed
  }
  expect(renderConsole(c, '/tmp')).not.toContain(SECRET);
});

test('a run that did not complete prints no verdict counts, only a pointer to the error above', () => {
  const c = sample();
  const out = renderConsole({ ...c, run: { ...c.run, errors: ['The target "x" does not answer'] } }, '/tmp');
  expect(out).toContain('no verdict, the run did not complete');
  expect(out).not.toMatch(/\d+ failed/);
  expect(out).not.toContain('does not answer');
});

test('a run stopped by Ctrl-C or a timeout says so, with what it kept (nothing else reports it)', () => {
  const c = sample();
  const out = renderConsole({ ...c, run: { ...c.run, errors: [RUN_STOPPED.interrupted] } }, '/tmp');
  expect(out).toContain(`no verdict, the run did not complete: ${RUN_STOPPED.interrupted} (${countsLine(c)}; the reports keep what ran)`);
});

test('checks the suite broke under are counted apart, in every rendering and in the JSON', () => {
  const c = certificate(
    [requirement('CORE-A'), requirement('CORE-B')],
    [
      check('CORE-A', 'GET /cars/{carId}', 'not-run', { reason: 'the suite broke under this check (...): boom', suiteBroke: true }),
      check('CORE-B', 'GET /cars/{carId}', 'not-run'),
    ],
  );
  expect(c.counts.checks).toMatchObject({ notRun: 2, notRunBySuite: 1 });
  const line = '1 check did not run because the suite itself broke under it (a defect of the suite or of its inputs, not of the server: please report it)';
  expect(renderConsole(c, '/tmp')).toContain(`suite: ${line}; see Not run`);
  expect(renderMarkdown(c)).toContain('- **Not run because of the suite:** 1 check did not run');
  expect(renderHtml(c)).toContain(`<dt>Not run because of the suite</dt><dd class="not-run">${line}</dd>`);
  // A run where the suite broke under nothing says nothing of it.
  const clean = sample();
  expect(clean.counts.checks.notRunBySuite).toBe(0);
  for (const text of [renderConsole(clean, '/tmp'), renderMarkdown(clean), renderHtml(clean)])
    expect(text).not.toMatch(/because of the suite|suite itself broke/);
});

test('requests sent again on a fresh connection are counted in the run, in every rendering, never as failures', () => {
  const c = { ...sample(), run: { ...sample().run, reconnectedRequests: 12 } };
  const line = '12 requests sent again on a fresh connection: the kept-alive connection they went on was closed before any byte of answer (not failures)';
  expect(renderConsole(c, '/tmp')).toContain(`reconnected: ${line}`);
  expect(renderMarkdown(c)).toContain(`- **Reconnected:** ${line}`);
  expect(renderHtml(c)).toContain(`<dt>Reconnected</dt><dd>${line}</dd>`);
  for (const text of [renderConsole(sample(), '/tmp'), renderMarkdown(sample()), renderHtml(sample())]) expect(text).not.toMatch(/Reconnected|reconnected:/);
});
