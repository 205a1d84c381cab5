// The GitHub Actions templates in .github/workflows/ (release gate, vendor certification, nightly
// monitor, certification registry): each one is a valid workflow (SchemaStore's github-workflow schema, bundled in
// @action-validator/core: no network), calls only npm scripts that exist with flags the suite accepts,
// names only report files the suite writes (or files that exist), and explains itself in a header.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { validateWorkflow, type ValidationError } from '@action-validator/core';
import { expect, test } from '@playwright/test';
import YAML from 'yaml';
import { parseArgs } from '../../../src/cli/args';
import { writeCertificationArchive } from '../../../src/certification/archive';
import { loadTarget } from '../../../src/setup/target';
import { writeBaseline } from '../../../src/verdict/baseline';
import { EXIT } from '../../../src/verdict/exit-codes';
import type { Certificate } from '../../../src/verdict/model';
import { DEFAULT_BASELINE, REPORT_FILES, ROOT } from '../../../src/options/paths';
import { renderMarkdown } from '../../../src/rendering/render-md';
import { certificate, check, requirement } from '../reporting/synthetic';

const WORKFLOWS_DIR = path.join(ROOT, '.github', 'workflows');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The template that publishes certified implementations: it runs no conformance run, so it has no certificate to summarize. */
const REGISTRY_WORKFLOW = 'certification-registry.yml';

/** The templates that run the suite against a server (each summarizes its certificate). */
function runWorkflowFiles(): string[] {
  return workflowFiles().filter((f) => path.basename(f) !== REGISTRY_WORKFLOW);
}

function workflowFiles(): string[] {
  return fs
    .readdirSync(WORKFLOWS_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(WORKFLOWS_DIR, f));
}

// ---------------------------------------------------------------------------------------------
// (a) the schema

/** Every schema error of a workflow, one line each (a oneOf's alternatives flattened). */
function workflowErrors(source: string): string[] {
  const lines = (errors: ValidationError[]): string[] =>
    errors.flatMap((e) => {
      const where = 'path' in e ? e.path : '';
      const own = `${where || '/'}: ${e.title}${e.detail ? ` (${e.detail})` : ''}`;
      const nested = 'states' in e && e.states ? e.states.flatMap((s) => lines(s.errors).map((l) => `  ${l}`)) : [];
      return [own, ...nested];
    });
  return lines(validateWorkflow(source).errors);
}

test('every workflow validates against the GitHub workflow schema', () => {
  const files = workflowFiles();
  expect(files.map((f) => path.basename(f))).toEqual(['certification-registry.yml', 'nightly-monitor.yml', 'release-gate.yml', 'vendor-certification.yml']);
  for (const file of files) {
    expect(workflowErrors(fs.readFileSync(file, 'utf8')), path.basename(file)).toEqual([]);
  }
});

test('the schema check rejects an invalid workflow (a job without runs-on, an unknown key, bad YAML)', () => {
  const ok = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ok\n';
  expect(workflowErrors(ok)).toEqual([]);
  const noRunsOn = workflowErrors('on: push\njobs:\n  build:\n    steps:\n      - run: echo ok\n');
  expect(noRunsOn.join('\n')).toContain('/jobs/build/runs-on');
  expect(workflowErrors(ok.replace('    steps:', '    timeout-minute: 5\n    steps:')).join('\n')).toContain("'timeout-minute'");
  expect(workflowErrors('on: [push\n').join('\n')).toContain('Parse Error');
});

// ---------------------------------------------------------------------------------------------
// (b) what the workflows ask of the suite

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  if?: string;
}
interface Job {
  env?: Record<string, string>;
  steps?: Step[];
  strategy?: { matrix?: Record<string, unknown[]> };
  if?: string;
}
interface Workflow {
  env?: Record<string, string>;
  on?: { workflow_dispatch?: { inputs?: Record<string, { default?: unknown }> } } | string | string[];
  jobs: Record<string, Job>;
}

/** A value that came from an expression or a shell variable: known only when the workflow runs. */
const DYNAMIC = '\u27e8dynamic\u27e9';

let scratch: string | undefined;
function scratchDir(): string {
  scratch ??= fs.mkdtempSync(path.join(os.tmpdir(), 'vds-workflows-'));
  return scratch;
}

/** ${{ expr }} replaced by a plausible value: the first matrix value, an input's default, the runner's temp folder. */
function expandExpressions(text: string, wf: Workflow, job: Job): string {
  return text.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    const matrix = /^matrix\.([\w-]+)$/.exec(expr);
    if (matrix && job.strategy?.matrix?.[matrix[1]]) return String(job.strategy.matrix[matrix[1]][0]);
    if (expr === 'runner.temp') return scratchDir();
    const input = /^(?:inputs|github\.event\.inputs)\.([\w-]+)$/.exec(expr);
    const inputs = typeof wf.on === 'object' && !Array.isArray(wf.on) ? wf.on.workflow_dispatch?.inputs : undefined;
    if (input && inputs?.[input[1]]?.default !== undefined) return String(inputs[input[1]].default);
    return DYNAMIC; // secrets, vars, an input without a default: unknown here
  });
}

/**
 * The words of a shell command line up to its first control operator, with $VAR and ${VAR} expanded
 * from the environment given (not inside single quotes). A word whose value came from a variable or
 * an expression is marked dynamic.
 */
function shellWords(line: string, env: Record<string, string>): { words: string[]; dynamic: boolean[] } {
  const words: string[] = [];
  const dynamic: boolean[] = [];
  let word: string | undefined;
  let dyn = false;
  let quote: '"' | "'" | undefined;
  const end = () => {
    if (word !== undefined) {
      words.push(word);
      dynamic.push(dyn || word.includes(DYNAMIC));
    }
    word = undefined;
    dyn = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
      continue;
    }
    if (c === '$') {
      const m = /^\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/.exec(line.slice(i));
      if (m) {
        word = (word ?? '') + (env[m[1] ?? m[2]] ?? DYNAMIC);
        dyn = true;
        i += m[0].length - 1;
        continue;
      }
    }
    if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length) word += line[++i];
      else word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
      continue;
    }
    if (/\s/.test(c)) {
      end();
      continue;
    }
    if (/[|&;<>]/.test(c) || (c === '#' && word === undefined)) break;
    word = (word ?? '') + c;
  }
  end();
  return { words, dynamic };
}

interface NpmRun {
  script: string;
  args: string[];
  dynamic: boolean[];
  where: string;
}

/** Every `npm run <script> [-- args]` in the run steps of a workflow, with its environment expanded. */
function npmRuns(wf: Workflow, file: string): NpmRun[] {
  const found: NpmRun[] = [];
  for (const [jobId, job] of Object.entries(wf.jobs)) {
    for (const [i, step] of (job.steps ?? []).entries()) {
      if (!step.run) continue;
      const env: Record<string, string> = { RUNNER_TEMP: scratchDir() };
      for (const scope of [wf.env, job.env, step.env]) {
        for (const [k, v] of Object.entries(scope ?? {})) env[k] = expandExpressions(String(v), wf, job);
      }
      const script = expandExpressions(step.run, wf, job).replace(/\\\n/g, ' ');
      for (const line of script.split('\n')) {
        for (const m of line.matchAll(/\bnpm run (\S+)(.*)$/g)) {
          const { words, dynamic } = shellWords(m[2], env);
          const dash = words[0] === '--' ? 1 : 0;
          found.push({ script: m[1], args: words.slice(dash), dynamic: dynamic.slice(dash), where: `${path.basename(file)} jobs.${jobId}.steps[${i}]` });
        }
      }
    }
  }
  return found;
}

/** Stand-ins for what a workflow run would have in place of a dynamic path. */
function standIn(flag: string): string {
  const dir = scratchDir();
  const cert = certificate([requirement('A')], [check('A', 'GET /x', 'failed')]);
  switch (flag) {
    case '--target': {
      const file = path.join(dir, 'target.yaml');
      fs.copyFileSync(path.join(ROOT, 'fixtures', 'targets', 'local.yaml'), file);
      return file;
    }
    case '--baseline': {
      const file = path.join(dir, 'baseline.yaml');
      writeBaseline(file, cert);
      return file;
    }
    case '--compare': {
      const file = path.join(dir, 'previous.json');
      fs.writeFileSync(file, JSON.stringify(cert));
      return file;
    }
    default: {
      const folder = path.join(dir, 'folder');
      fs.mkdirSync(folder, { recursive: true });
      return folder;
    }
  }
}

const PATH_FLAGS = new Set(['--target', '--baseline', '--compare', '--merge', '--update-baseline']);

/**
 * The problems of one `npm run` call: the script must exist; for the suite's command line
 * (scripts/conformance.ts), parseArgs must accept the arguments after `--`, as `npm run` gives them
 * (from the repository root, after the script's own arguments), with no note about them.
 * A dynamic path is replaced by a valid file of its kind; a literal one must exist, unless it is the
 * baseline that --update-baseline writes.
 */
function npmRunProblems(call: NpmRun): string[] {
  const command = PACKAGE.scripts[call.script];
  if (command === undefined) return [`${call.where}: npm run ${call.script}: no such script in package.json`];
  const own = /scripts\/conformance\.[jt]s(.*)$/.exec(command);
  if (!own) return [];
  const prefix = own[1].trim().split(/\s+/).filter(Boolean);
  const args = [...prefix, ...call.args];
  const dynamic = [...prefix.map(() => false), ...call.dynamic];
  for (let i = 1; i < args.length; i++) {
    const flag = args[i - 1];
    if (!PATH_FLAGS.has(flag) || args[i].startsWith('-')) continue;
    if (flag === '--target' && !dynamic[i] && !/[\\/]|\.ya?ml$/i.test(args[i])) continue; // a target name
    if (flag === '--compare' && args[i] === 'last') continue;
    const file = path.resolve(ROOT, args[i]);
    if (fs.existsSync(file)) args[i] = file;
    else if (dynamic[i] || file === DEFAULT_BASELINE) args[i] = standIn(flag);
    else args[i] = file; // a literal path that is not there: parseArgs says so
  }
  try {
    const inv = parseArgs(args);
    const problems = [...inv.notes];
    return problems.map((p) => `${call.where}: npm run ${call.script} -- ${call.args.join(' ')}: ${p}`);
  } catch (err) {
    return [`${call.where}: npm run ${call.script} -- ${call.args.join(' ')}: ${(err as Error).message}`];
  }
}

/** File names the suite writes in reports/: REPORT_FILES, and the archive --certify writes. */
function writtenReportNames(): string[] {
  const dir = fs.mkdtempSync(path.join(scratchDir(), 'reports-'));
  const c = certificate([requirement('A')], [check('A', 'GET /x', 'passed')]);
  fs.writeFileSync(path.join(dir, REPORT_FILES.certificateJson), JSON.stringify(c));
  const archive = writeCertificationArchive(dir)!;
  return [...Object.values(REPORT_FILES), path.basename(archive)];
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
}

/**
 * Literal paths into this repository that a workflow names: words of its run scripts, the values of
 * its actions' inputs (`path:`, `report_paths:`, one per line) and the arguments of hashFiles().
 * Paths under a variable or an expression (the runner's temp folder) are not the repository's.
 */
function repoPaths(wf: Workflow): string[] {
  const candidates: string[] = [];
  for (const job of Object.values(wf.jobs)) {
    for (const step of job.steps ?? []) {
      for (const line of (step.run ?? '').split('\n')) {
        const { words, dynamic } = shellWords(line, {});
        candidates.push(...words.filter((_, i) => !dynamic[i]));
      }
      for (const v of Object.values(step.with ?? {}))
        candidates.push(
          ...String(v)
            .split('\n')
            .map((s) => s.trim()),
        );
      for (const cond of [step.if ?? '', job.if ?? '']) candidates.push(...[...cond.matchAll(/hashFiles\('([^']+)'\)/g)].map((m) => m[1]));
    }
  }
  const topLevel = new Set(fs.readdirSync(ROOT));
  return [
    ...new Set(
      candidates.filter((w) => {
        if (!/^(\.\/)?[\w.*-]+(\/[\w.*-]*)*$/.test(w) || w.includes('${{')) return false;
        const first = w.replace(/^\.\//, '').split('/')[0];
        return w.includes('/') ? first === 'reports' || topLevel.has(first) : /\.(ya?ml|json|md|xml|html|tar\.gz)$/.test(w);
      }),
    ),
  ];
}

/** A path is fine when the suite writes it in reports/, when it exists, or when it is the baseline. */
function pathProblems(paths: string[], file: string): string[] {
  const written = writtenReportNames();
  return paths
    .filter((p) => {
      const rel = p.replace(/^\.\//, '');
      if (rel.startsWith('reports/')) {
        const name = rel.slice('reports/'.length).split('/')[0];
        if (written.some((w) => globToRegExp(name).test(w))) return false;
      }
      if (rel.includes('*')) return true;
      return !(fs.existsSync(path.join(ROOT, rel)) || path.join(ROOT, rel) === DEFAULT_BASELINE);
    })
    .map((p) => `${path.basename(file)}: ${p} is neither a file the suite writes nor one of this repository`);
}

function parse(file: string): Workflow {
  return YAML.parse(fs.readFileSync(file, 'utf8')) as Workflow;
}

test('every npm script the workflows call exists, with arguments the suite accepts', () => {
  const calls = workflowFiles().flatMap((f) => npmRuns(parse(f), f));
  // npm ci is not a script; these are the suite's commands the templates are about (report: the Allure report).
  expect(new Set(calls.map((c) => c.script))).toEqual(new Set(['conformance', 'merge', 'report']));
  expect(calls.flatMap(npmRunProblems)).toEqual([]);
  // What each template is for: a baseline gate, a certification, a sharded monitor merged with a comparison.
  const args = (name: string) => calls.filter((c) => c.where.startsWith(name)).map((c) => `${c.script} ${c.args.join(' ')}`);
  expect(args('release-gate.yml').join('\n')).toMatch(/^conformance --target \S+ --baseline conformance-baseline\.yaml$/m);
  expect(args('vendor-certification.yml').join('\n')).toMatch(/^conformance --target \S+ --certify$/m);
  expect(args('nightly-monitor.yml').join('\n')).toMatch(/^conformance --target sandbox --monitor --shard 1\/2$/m);
  expect(args('nightly-monitor.yml').join('\n')).toMatch(/^merge \S+ --compare \S+ --history \S+$/m);
  expect(args(REGISTRY_WORKFLOW)).toEqual(['conformance registry certifications --out site']);
  // The nightly Allure report, after the merge that kept Allure's history path (--history).
  expect(args('nightly-monitor.yml')).toContain('report ');
  // Every merge keeps the night, with or without a comparison.
  expect(
    args('nightly-monitor.yml')
      .filter((a) => a.startsWith('merge '))
      .every((a) => /--history \S+$/.test(a)),
  ).toBe(true);
});

test('the command check refuses what the suite refuses', () => {
  const wf = (run: string): Workflow => ({ jobs: { j: { strategy: { matrix: { shard: [1, 2] } }, steps: [{ run }] } } });
  const problems = (run: string) => npmRuns(wf(run), 'x.yml').flatMap(npmRunProblems);
  expect(problems('npm run conformance -- --target sandbox --monitor --shard ${{ matrix.shard }}/2')).toEqual([]);
  expect(problems('npm run conformnce -- --target sandbox').join()).toContain('no such script');
  expect(problems('npm run conformance -- --target sandbox --certify --shard ${{ matrix.shard }}/2').join()).toContain('--certify runs the whole suite');
  expect(problems('npm run conformance -- --targt sandbox').join()).toContain('did you mean --target');
  expect(problems('npm run conformance -- --target fixtures/targets/nowhere.yaml').join()).toContain('unknown target');
  expect(problems('npm run conformance -- --frobnicate').join()).toContain('--frobnicate');
  expect(problems('npm run merge -- "$RUNNER_TEMP/blobs" --target sandbox').join()).toContain('--merge takes no run options');
  expect(problems('npm run merge -- "$RUNNER_TEMP/blobs" --compare last').join()).toContain('--merge takes --compare PATH, not --compare last');
});

test('every path the workflows name in this repository is a report the suite writes, or exists', () => {
  for (const file of workflowFiles()) {
    const paths = repoPaths(parse(file));
    if (path.basename(file) !== REGISTRY_WORKFLOW) expect(paths, path.basename(file)).toContain('reports/conformance.md'); // every run's job summary is the certificate
    expect(pathProblems(paths, file)).toEqual([]);
  }
  const all = workflowFiles().flatMap((f) => repoPaths(parse(f)));
  expect(all).toEqual(
    expect.arrayContaining([
      'reports/junit.xml',
      'reports/certification-*.tar.gz',
      'reports/blob/',
      'reports/conformance.json',
      'reports/changes.md',
      'reports/trend.html',
      'reports/trend.md',
    ]),
  );
  // And the check can fail.
  expect(pathProblems(['reports/conformance.txt', 'reports/certificate-*.zip', 'fixtures/targets/nowhere.yaml'], 'x.yml')).toHaveLength(3);
});

test("every run script is valid bash (the runner's default shell), its expressions filled in", () => {
  for (const file of workflowFiles()) {
    const wf = parse(file);
    for (const [jobId, job] of Object.entries(wf.jobs)) {
      for (const [i, step] of (job.steps ?? []).entries()) {
        if (!step.run) continue;
        const check = spawnSync('bash', ['-n'], { input: expandExpressions(step.run, wf, job), encoding: 'utf8' });
        expect(check.stderr, `${path.basename(file)} jobs.${jobId}.steps[${i}]`).toBe('');
      }
    }
  }
  expect(spawnSync('bash', ['-n'], { input: 'if [ -f x ]; then echo\n', encoding: 'utf8' }).stderr).not.toBe('');
});

/** A failing run's certificate, with the likely cause of its failures (the triage). */
function failingWithTriage(): Certificate {
  const c = certificate(
    [requirement('RESP-STATUS', { class: 'profile' })],
    [check('RESP-STATUS', 'GET /trips/{tripId}', 'failed'), check('RESP-STATUS', 'GET /trips/{tripId}/stats', 'failed')],
  );
  return {
    ...c,
    gate: { status: 'failed', exitCode: EXIT.failed, rule: 'conformance gate (core and profile)', reasons: ['the profile verdict is FAIL: RESP-STATUS'] },
    triage: {
      failed: 2,
      explained: 2,
      causes: [
        {
          id: 'not-implemented',
          title: '2 routes answer a non-API 404 to every valid request (not implemented?)',
          explains: 2,
          checks: ['RESP-STATUS GET /trips/{tripId}', 'RESP-STATUS GET /trips/{tripId}/stats'],
          routes: ['GET /trips/{tripId}', 'GET /trips/{tripId}/stats'],
          fix: 'Implement these routes.',
        },
      ],
    },
  };
}

test('each job summary shows the certificate from its top: the verdict, the exit status and the likely causes first; a huge one is cut at 1 MiB, not lost', () => {
  const dir = fs.mkdtempSync(path.join(scratchDir(), 'summary-'));
  fs.mkdirSync(path.join(dir, 'reports'));
  const summaryOf = (markdown: string): string[] =>
    runWorkflowFiles().map((file) => {
      fs.writeFileSync(path.join(dir, 'reports', 'conformance.md'), markdown);
      const wf = parse(file);
      const steps = Object.values(wf.jobs)
        .flatMap((job) => (job.steps ?? []).map((step) => ({ job, step })))
        .filter(({ step }) => step.run?.includes('GITHUB_STEP_SUMMARY') && step.run.includes('reports/conformance.md'));
      expect(steps, path.basename(file)).toHaveLength(1);
      const [{ job, step }] = steps;
      const out = path.join(dir, `${path.basename(file)}.summary.md`);
      fs.rmSync(out, { force: true });
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expandExpressions(String(v), wf, job)]));
      // As GitHub runs a step's script: bash -e -o pipefail.
      const ran = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', expandExpressions(step.run!, wf, job)], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, ...env, GITHUB_STEP_SUMMARY: out, RUNNER_TEMP: dir },
      });
      expect(ran.status, `${path.basename(file)}: ${ran.stderr}`).toBe(0);
      return fs.readFileSync(out, 'utf8');
    });
  for (const summary of summaryOf(renderMarkdown(failingWithTriage()))) {
    const cause = summary.indexOf('1. 2 routes answer a non-API 404 to every valid request (not implemented?): 2 checks');
    expect(cause).toBeGreaterThan(summary.indexOf('**Exit status: 1 failed**'));
    expect(cause).toBeLessThan(summary.indexOf('## Requirements by route group'));
    expect(summary).toContain('### Likely causes (triage)');
  }
  const huge = `${renderMarkdown(failingWithTriage())}${'- a failing check\n'.repeat(150_000)}`;
  for (const summary of summaryOf(huge)) {
    expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(1024 * 1024);
    expect(summary).toContain('Likely causes of the 2 failing checks');
  }
});

test("the registry's build publishes what was verified when archives were refused (exit 1), and stops on anything worse", () => {
  const wf = parse(path.join(WORKFLOWS_DIR, REGISTRY_WORKFLOW));
  const step = wf.jobs.build.steps!.find((s) => s.run?.includes('npm run conformance -- registry'))!;
  const dir = fs.mkdtempSync(path.join(scratchDir(), 'registry-'));
  // npm as the step calls it: the registry's output, then its exit status.
  fs.writeFileSync(path.join(dir, 'npm'), '#!/bin/sh\necho "  ✘ certifications/x.tar.gz refused, nothing of it published: why"\nexit "$FAKE_STATUS"\n', {
    mode: 0o755,
  });
  const run = (status: number) => {
    for (const f of ['out', 'summary']) fs.rmSync(path.join(dir, f), { force: true });
    const ran = spawnSync('bash', ['-e', '-c', expandExpressions(step.run!, wf, wf.jobs.build)], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${dir}:${process.env.PATH}`,
        FAKE_STATUS: String(status),
        GITHUB_OUTPUT: path.join(dir, 'out'),
        GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
        RUNNER_TEMP: dir,
      },
    });
    return {
      code: ran.status,
      output: fs.readFileSync(path.join(dir, 'out'), 'utf8'),
      summary: fs.readFileSync(path.join(dir, 'summary'), 'utf8'),
      log: ran.stdout,
    };
  };
  for (const [status, code] of [
    [0, 0],
    [1, 0],
    [2, 1],
    [3, 1],
  ] as const) {
    const r = run(status);
    expect(r.code, `registry exit ${status}`).toBe(code);
    expect(r.output).toBe(`status=${status}\n`);
    expect(r.summary).toContain('x.tar.gz refused, nothing of it published: why');
    expect(r.log).toContain('x.tar.gz refused');
  }
  // The refused archives fail the workflow, after the deployment of the others.
  expect(wf.jobs.refused).toMatchObject({ if: "${{ needs.build.outputs.status == '1' }}" });
  expect((wf.jobs.refused as unknown as { needs: string[] }).needs).toEqual(['build', 'deploy']);
});

// ---------------------------------------------------------------------------------------------
// (c) the header

function header(file: string): string[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const end = lines.findIndex((l) => !l.startsWith('#'));
  return lines.slice(0, end === -1 ? lines.length : end);
}

test('each workflow begins with a comment header of at least three lines', () => {
  for (const file of workflowFiles()) {
    expect(header(file).length, path.basename(file)).toBeGreaterThanOrEqual(3);
  }
  const gate = header(path.join(WORKFLOWS_DIR, 'release-gate.yml')).join('\n');
  for (const code of Object.values(EXIT)) expect(gate, `exit status ${code} documented`).toMatch(new RegExp(`^#\\s+${code}\\s+\\S`, 'm'));
});

test('the example target files in the headers load (schema, ${VAR} references)', () => {
  let examples = 0;
  for (const file of workflowFiles()) {
    const lines = header(file);
    const start = lines.findIndex((l) => /^# {3}name: /.test(l));
    if (start === -1) continue;
    const block = [];
    for (let i = start; i < lines.length && lines[i].startsWith('#   '); i++) block.push(lines[i].slice(4));
    const yaml = `${block.join('\n')}\n`;
    const env = Object.fromEntries([...yaml.matchAll(/\$\{(\w+)\}/g)].map((m) => [m[1], 'x']));
    const target = path.join(scratchDir(), `example-${path.basename(file, '.yml')}.yaml`);
    fs.writeFileSync(target, yaml);
    expect(() => loadTarget(target, env), path.basename(file)).not.toThrow();
    examples++;
  }
  expect(examples).toBe(2); // the release gate's and the certification's
});

test.afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});
