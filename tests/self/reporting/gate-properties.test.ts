// The verdict proof: the exit status follows the checks. The gate (src/verdict/gate.ts) is a pure
// function from the checks' outcomes to an exit status and its words; these properties try it on
// thousands of generated runs (fast-check) against an oracle written from the README's and --help's
// words, not from the code:
//   - a failing non-advisory requirement of a gated class exits 1, and the console, the certificate
//     (conformance.md) and JUnit (a <failure> per failing check) name it;
//   - a run without one exits 0: not run, not applicable and advisory never fail it;
//   - --gate core gates on the spec's class alone; a baseline fails only on failing checks it does
//     not list; --require-complete also fails on a check of a gated class not run; --certify fails
//     on anything not PASS; a run that did not complete exits 3 whatever its checks;
//   - one headline everywhere: the run's verdict word agrees with its exit status, and the console,
//     the certificate's three forms and JUnit open with the same line; a class's meaning never says a
//     requirement failed when none did.
// With the kill proof (tests/self/power/faults.test.ts: every fault makes a check fail) this is the
// gate's power: what a check sees reaches the exit status users act on.
import fc from 'fast-check';
import { expect, test } from '@playwright/test';
import type { ConformanceClass } from '../../../src/catalogue/catalogue';
import { evaluateBaseline } from '../../../src/verdict/baseline';
import { EXIT } from '../../../src/verdict/exit-codes';
import { decideGate } from '../../../src/verdict/gate';
import type { CheckStatus, GateClasses } from '../../../src/verdict/model';
import { renderConsole } from '../../../src/rendering/render-console';
import { renderJunit } from '../../../src/rendering/render-junit';
import { renderMarkdown } from '../../../src/rendering/render-md';
import { renderHtml } from '../../../src/rendering/render-html';
import { headlineOf } from '../../../src/verdict/headline';
import { CLASSES } from '../../../src/verdict/model';
import { checkStates, combine, resolveChecks } from '../../../src/verdict/verdict';
import { certificate, check, requirement } from './synthetic';

interface GenRequirement {
  id: string;
  cls: ConformanceClass;
  advisory: boolean;
  applicable: boolean;
  statuses: CheckStatus[];
}

const STATUSES: CheckStatus[] = ['passed', 'failed', 'not-run', 'not-applicable'];

const requirementsArb = fc
  .array(
    fc.record({
      cls: fc.constantFrom<ConformanceClass>('core', 'profile'),
      advisory: fc.boolean(),
      // Most requirements apply to the target; one of another environment only ever has checks not applicable (run-check.ts).
      applicable: fc.integer({ min: 0, max: 9 }).map((n) => n < 8),
      statuses: fc.array(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((list): GenRequirement[] =>
    list.map((r, i) => ({
      ...r,
      id: `${r.cls === 'core' ? 'CORE' : 'PROF'}-R${i}`,
      statuses: r.applicable ? r.statuses : r.statuses.map(() => 'not-applicable'),
    })),
  );

const optionsArb = fc.record({
  gate: fc.constantFrom<GateClasses>('all', 'core'),
  requireComplete: fc.boolean(),
  certify: fc.boolean(),
  /** undefined: no baseline; else the share of failing checks it lists. */
  baseline: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
});

function checksOf(reqs: GenRequirement[]) {
  return reqs.flatMap((r) => r.statuses.map((s, i) => check(r.id, `GET /r${i}`, s, { group: i % 2 ? 'cars' : 'users' })));
}

function build(reqs: GenRequirement[]) {
  const infos = reqs.map((r) => requirement(r.id, { class: r.cls, advisory: r.advisory, applicable: r.applicable, title: `${r.id} title` }));
  const results = checksOf(reqs);
  return { infos, results, certificate: certificate(infos, results) };
}

/** Counted: not advisory, of the target's environment, and not wholly not applicable. */
function counted(r: GenRequirement): boolean {
  return !r.advisory && r.applicable && combine(r.statuses) !== 'not-applicable';
}

/** The oracle: the exit status the README and --help promise for these outcomes and options. */
function expectedExit(reqs: GenRequirement[], o: { gate: GateClasses; requireComplete: boolean; certify: boolean }, listed?: Set<string>): number {
  const gated = o.certify || o.gate === 'all' ? ['core', 'profile'] : ['core'];
  const inGate = reqs.filter((r) => counted(r) && gated.includes(r.cls));
  if (o.certify) return inGate.some((r) => combine(r.statuses) !== 'passed') ? EXIT.failed : EXIT.passed;
  if (o.requireComplete && inGate.some((r) => combine(r.statuses) === 'not-run')) return EXIT.failed;
  if (listed) {
    const regressions = reqs
      .filter((r) => !r.advisory && gated.includes(r.cls))
      .flatMap((r) => r.statuses.map((s, i) => ({ s, key: `${r.id} GET /r${i}` })))
      .filter((c) => c.s === 'failed' && !listed.has(c.key));
    return regressions.length ? EXIT.failed : EXIT.passed;
  }
  return inGate.some((r) => combine(r.statuses) === 'failed') ? EXIT.failed : EXIT.passed;
}

test('the exit status follows the checks: any gated failing requirement exits 1, nothing else does (gate, baseline, --require-complete, --certify)', () => {
  fc.assert(
    fc.property(requirementsArb, optionsArb, (reqs, o) => {
      const { infos, results, certificate: c } = build(reqs);
      let listed: Set<string> | undefined;
      let baseline;
      if (o.baseline !== undefined) {
        const failing = results.filter((r) => r.status === 'failed').map((r) => r.key);
        listed = new Set(failing.slice(0, Math.round(failing.length * o.baseline)));
        const entries = [...listed].map((key) => ({ requirement: key.split(' ')[0], checks: [key], reason: 'known' }));
        baseline = evaluateBaseline(
          entries,
          checkStates(
            infos,
            results.map((r) => ({ requirement: r.requirement, key: r.key, group: r.group })),
            results,
          ),
          'baseline.yaml',
        );
      }
      const gate = decideGate({ certificate: c, gate: o.gate, requireComplete: o.requireComplete, certify: o.certify, baseline });
      expect(gate.exitCode).toBe(expectedExit(reqs, o, o.certify ? undefined : listed));
    }),
    { numRuns: 600 },
  );
});

test('a failing requirement of a gated class is named by the console, the certificate and JUnit', () => {
  fc.assert(
    fc.property(requirementsArb, fc.constantFrom<GateClasses>('all', 'core'), (reqs, gateClasses) => {
      const { infos, results, certificate: c } = build(reqs);
      c.gate = decideGate({ certificate: c, gate: gateClasses });
      const gated = gateClasses === 'all' ? ['core', 'profile'] : ['core'];
      const failing = reqs.filter((r) => counted(r) && gated.includes(r.cls) && combine(r.statuses) === 'failed');
      fc.pre(failing.length > 0);
      expect(c.gate.exitCode).toBe(EXIT.failed);
      const text = renderConsole(c, 'reports');
      const markdown = renderMarkdown(c);
      const junit = renderJunit(
        c,
        resolveChecks(
          infos,
          results.map((r) => ({ requirement: r.requirement, key: r.key, group: r.group })),
          results,
        ),
      );
      for (const r of failing) {
        expect(text, 'console').toContain(r.id);
        expect(markdown, 'conformance.md').toContain(r.id);
        for (const [i, s] of r.statuses.entries()) {
          if (s !== 'failed') continue;
          const key = `${r.id} GET /r${i}`;
          const testcase = junit.slice(junit.indexOf(`name="${key}"`));
          expect(testcase.slice(0, testcase.indexOf('</testcase>')), `junit.xml: ${key}`).toContain('<failure');
        }
      }
      expect(text).toMatch(/Exit status 1: failed/);
    }),
    { numRuns: 200 },
  );
});

test('not run, not applicable and advisory never fail the default gate', () => {
  const quiet = fc
    .array(
      fc.record({
        cls: fc.constantFrom<ConformanceClass>('core', 'profile'),
        advisory: fc.boolean(),
        applicable: fc.boolean(),
        statuses: fc.array(fc.constantFrom<CheckStatus>('passed', 'not-run', 'not-applicable', 'failed'), { minLength: 1, maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 8 },
    )
    .map((list) =>
      list.map((r, i): GenRequirement => ({
        ...r,
        id: `R${i}`,
        // a failure only where it cannot count: an advisory requirement
        statuses: !r.applicable ? r.statuses.map(() => 'not-applicable') : r.advisory ? r.statuses : r.statuses.map((s) => (s === 'failed' ? 'not-run' : s)),
      })),
    );
  fc.assert(
    fc.property(quiet, fc.constantFrom<GateClasses>('all', 'core'), (reqs, gateClasses) => {
      const { certificate: c } = build(reqs);
      expect(decideGate({ certificate: c, gate: gateClasses }).exitCode).toBe(EXIT.passed);
    }),
    { numRuns: 500 },
  );
});

test('a run that did not complete exits 3, whatever its checks', () => {
  fc.assert(
    fc.property(requirementsArb, optionsArb, fc.string({ minLength: 1 }), (reqs, o, error) => {
      const { certificate: c } = build(reqs);
      c.run.errors = [error];
      expect(decideGate({ certificate: c, gate: o.gate, requireComplete: o.requireComplete, certify: o.certify }).exitCode).toBe(EXIT.broken);
    }),
    { numRuns: 500 },
  );
});

test('one headline everywhere: its verdict agrees with the exit status, and every report opens with it', () => {
  fc.assert(
    fc.property(requirementsArb, optionsArb, (reqs, o) => {
      const infos = reqs.map((r) => requirement(r.id, { class: r.cls, advisory: r.advisory, applicable: r.applicable, title: `${r.id} title` }));
      const results = checksOf(reqs);
      const c = certificate(infos, results, [], o.certify);
      if (o.certify)
        c.certification = {
          rule: 'a rule',
          suite: { name: 'vds-conformance', version: '9.9.9', commit: 'x', workingTreeModified: false, contentSha256: 'y', hashed: [] },
        };
      c.gate = decideGate({ certificate: c, gate: o.gate, requireComplete: o.requireComplete, certify: o.certify });
      c.headline = headlineOf(c);
      const { verdict, reason } = c.headline;
      const line = `${verdict}: ${reason}`;
      expect(c.gate.exitCode, line).toBe(verdict === 'FAIL' ? EXIT.failed : EXIT.passed);
      if (verdict === 'INCOMPLETE') expect(o.certify || o.requireComplete).toBe(false);
      const checks = resolveChecks(
        infos,
        results.map((r) => ({ requirement: r.requirement, key: r.key, group: r.group })),
        results,
      );
      expect(renderConsole(c, 'reports').split('\n')[2], 'console').toBe(`  ${line}`);
      expect(renderMarkdown(c).split('\n')[2], 'conformance.md').toBe(`**${line.replace(/[\\`*_[\]<>|]/g, (m) => `\\${m}`)}**`);
      expect(renderHtml(c), 'conformance.html').toContain(`id="headline">${line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</p>`);
      const junit = renderJunit(c, checks);
      const verdictCase = junit.slice(junit.indexOf('<testsuite name="verdict"'), junit.indexOf('</testsuite>'));
      expect(verdictCase.includes('<failure'), 'junit.xml: the verdict case fails with the gate').toBe(c.gate.exitCode === EXIT.failed);
      // A class's FAIL names what failed it: requirements failed, or (a certification) requirements not run.
      const md = renderMarkdown(c);
      for (const k of CLASSES) {
        if (c.verdict[k] === 'FAIL' && c.counts.classes[k].failed === 0)
          expect(md).toMatch(new RegExp(`\\| ${k} \\| \\*\\*FAIL\\*\\* .*did not run, and a certification needs every one \\|`));
      }
    }),
    { numRuns: 300 },
  );
});
