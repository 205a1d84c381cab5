// The README is the door and the guides under docs/ carry the rest; the documents are held to the code
// they describe. The README stays short and keeps the two commands a newcomer runs; every relative link
// of the documents resolves to a file (and an anchor to a heading of it); every command the README shows
// is run where that is cheap (--help, init in a folder of its own) or else read by the parser that will
// read it (the command line's flags, npm's scripts, the subcommands of the installed command); the
// target files the targets guide shows load as target files, and its tables name every key.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { parse as parseShell } from 'shell-quote';
import YAML from 'yaml';
import { parseArgs } from '../../../src/cli/args';
import { init } from '../../../src/cli/init';
import { OPTION_VARIABLES } from '../../../src/options/options';
import { BASE_TOKEN_KEYS, DATA_KEYS, loadTarget, SCOPES } from '../../../src/setup/target';

const ROOT = path.resolve(__dirname, '../../..');
const README = 'README.md';
/** The documents whose links must resolve: the README, the guides, and the READMEs of folders. */
const DOCUMENTS = [
  README,
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'reports/README.md',
  'reference-server/README.md',
];
const PACKAGE = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

const markdown = new MarkdownIt({ html: true });
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const parsed = new Map<string, ReturnType<MarkdownIt['parse']>>();
const tokens = (file: string) => parsed.get(file) ?? parsed.set(file, markdown.parse(read(file), {})).get(file)!;

/** The anchors of a document's headings, as GitHub makes them. */
function anchors(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const all = tokens(file);
  return new Set(all.flatMap((t, i) => (t.type === 'heading_open' ? [slugger.slug(all[i + 1].content.replace(/`/g, ''))] : [])));
}

/** Every link of a document, with the line it is on (a table cell's: its row's). */
function links(file: string): Array<{ href: string; line: number }> {
  let line = 0;
  return tokens(file).flatMap((t) => {
    if (t.map) line = t.map[0] + 1;
    return t.type === 'inline' ? (t.children ?? []).filter((c) => c.type === 'link_open').map((c) => ({ href: c.attrGet('href') ?? '', line })) : [];
  });
}

/** Why a relative link of `file` does not resolve, or undefined when it does. */
function brokenLink(file: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined; // https:, mailto: ...: not the project's
  const [target, anchor] = href.split('#', 2);
  const resolved = target ? path.join(path.dirname(file), decodeURIComponent(target)) : file;
  if (!fs.existsSync(path.join(ROOT, resolved))) return `${resolved} does not exist`;
  if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) return `${resolved} has no heading #${anchor}`;
  return undefined;
}

test('the README is a door: at most 250 lines, the two commands of a fresh clone as they are', () => {
  const text = read(README);
  expect(text.split('\n').length, 'README.md: move the detail to a guide in docs/').toBeLessThanOrEqual(250);
  const lines = text.split('\n').map((l) => l.replace(/#.*$/, '').trim());
  expect(lines).toContain('npm ci && npm run conformance');
  expect(lines).toContain('npm ci && npm test');
});

test('every relative link of the README and the guides resolves, an anchor to a heading of its file', () => {
  const broken = DOCUMENTS.flatMap((file) =>
    links(file).flatMap(({ href, line }) => {
      const why = brokenLink(file, href);
      return why ? [`${file}:${line}: (${href}) ${why}`] : [];
    }),
  );
  expect(broken).toEqual([]);
  // The check itself sees what it should: a missing file, a missing heading, and a good link.
  expect(brokenLink('README.md', 'docs/no-such-guide.md')).toMatch(/does not exist/);
  expect(brokenLink('README.md', 'docs/targets.md#no-such-heading')).toMatch(/no heading/);
  expect(brokenLink('README.md', 'docs/targets.md#the-keys')).toBeUndefined();
});

test('the README links every guide in docs/', () => {
  const linked = new Set(links(README).map(({ href }) => href.split('#')[0]));
  const guides = DOCUMENTS.filter((f) => f.startsWith('docs/') && f !== 'docs/REQUIREMENTS.md');
  expect(guides.filter((g) => !linked.has(g))).toEqual([]);
});

/** The shell commands of a document's code blocks (sh, bash, shell), each a list of words, comments dropped. */
function commands(file: string): Array<{ words: string[]; line: string }> {
  return tokens(file)
    .filter((t) => t.type === 'fence' && /^(sh|bash|shell)\b/.test(t.info))
    .flatMap((t) => t.content.split('\n'))
    .filter((line) => line.trim() && !line.trim().startsWith('#'))
    .flatMap((line) => {
      // $VARIABLES stay as they are written; `&&` separates commands.
      const parts = parseShell(line, (name) => `$${name}`);
      const out: Array<{ words: string[]; line: string }> = [[] as string[]].map((words) => ({ words, line }));
      for (const p of parts) {
        if (typeof p === 'string') out[out.length - 1].words.push(p);
        else if ('op' in p && p.op === '&&') out.push({ words: [], line });
        else if (!('comment' in p)) throw new Error(`${file}: a shell form this test does not read: ${line}`);
      }
      return out.filter((c) => c.words.length);
    });
}

/** A folder as a user has it after `init`: the commands' relative paths are read from there. */
function userFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-docs-'));
  const log = console.log;
  console.log = () => {};
  try {
    init('my-target.yaml', 'vds-conformance', dir);
  } finally {
    console.log = log;
  }
  // What --update-baseline writes, for the command that reads a baseline.
  fs.writeFileSync(path.join(dir, 'conformance-baseline.yaml'), 'known-failures: []\n');
  return dir;
}

/** The command line's reading of a run's flags, from the user's folder: refused, or a flag passed on unknown. */
function suiteArgsProblem(args: string[], dir: string): string | undefined {
  const before = process.env.INIT_CWD;
  process.env.INIT_CWD = dir;
  try {
    parseArgs(args);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    if (before === undefined) delete process.env.INIT_CWD;
    else process.env.INIT_CWD = before;
  }
}

const BIN = path.join(ROOT, 'bin', 'vds-conformance.js');
/** npm's own commands the README may show. */
const NPM_COMMANDS = new Set(['ci', 'pack', 'install']);
/** The npm scripts that run the suite's command line (scripts/conformance.ts, compiled), whose flags it reads. */
const SUITE_SCRIPTS = new Set(Object.keys(PACKAGE.scripts).filter((s) => PACKAGE.scripts[s].includes('dist/scripts/conformance.js')));

/** Why one command of the README would not work as written, or undefined. */
function commandProblem(words: string[], dir: string): string | undefined {
  const known = new Set(OPTION_VARIABLES.filter((o) => !o.internal).map((o) => o.name));
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const name = words.shift()!.split('=')[0];
    if (!known.has(name)) return `${name} is not an option of the suite (src/options/options.ts)`;
  }
  const [program, ...rest] = words;
  if (program === 'npm') {
    const [sub, ...more] = rest;
    if (sub === 'run') {
      const [script, dashes, ...args] = more;
      if (!(script in PACKAGE.scripts)) return `npm run ${script}: no such script in package.json`;
      if (dashes !== undefined && dashes !== '--') return `npm run ${script}: its arguments go after --`;
      if (SUITE_SCRIPTS.has(script)) {
        const own = PACKAGE.scripts[script].split('dist/scripts/conformance.js')[1].trim().split(/\s+/).filter(Boolean);
        return suiteArgsProblem([...own, ...args], dir);
      }
      return args.length ? `npm run ${script}: this test does not know how to read its arguments` : undefined;
    }
    if (sub === 'test') return more.length ? 'npm test: the README shows no stage names' : undefined;
    return NPM_COMMANDS.has(sub) ? undefined : `npm ${sub}: not a command the README is expected to show`;
  }
  // The installed command reads its subcommands and flags as the command line does (src/cli/args.ts).
  if (program === 'npx' && rest[0] === 'vds-conformance') return suiteArgsProblem(rest.slice(1), dir);
  return `${program}: a command this test does not know how to check (teach it, or leave the command to a guide)`;
}

test('every command of the README is one its parser reads: scripts that exist, flags the command line knows, subcommands the installed command has', () => {
  const dir = userFolder();
  try {
    const found = commands(README);
    expect(found.length).toBeGreaterThan(10);
    const problems = found.flatMap(({ words, line }) => {
      const why = commandProblem([...words], dir);
      return why ? [`${line.trim()}\n    ${why}`] : [];
    });
    expect(problems).toEqual([]);
    // The reading refuses what does not work: an unknown script, flag, subcommand or variable.
    expect(commandProblem(['npm', 'run', 'no-such-script'], dir)).toMatch(/no such script/);
    expect(commandProblem(['npm', 'run', 'conformance', '--', '--certfy'], dir)).toMatch(/did you mean --certify/);
    expect(commandProblem(['npm', 'run', 'conformance', '--', '--no-such-flag'], dir)).toMatch(/unknown option --no-such-flag/);
    expect(commandProblem(['npx', 'vds-conformance', '--target', './not-written.yaml'], dir)).toMatch(/unknown target/);
    expect(commandProblem(['npx', 'vds-conformance', 'repport'], dir)).toMatch(/unknown subcommand repport/);
    expect(commandProblem(['VDS_NO_SUCH=1', 'npm', 'run', 'conformance'], dir)).toMatch(/not an option/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the README's cheap commands run: the installed command's --help and init", () => {
  const shown = commands(README).map((c) => c.words.join(' '));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-docs-'));
  try {
    for (const [command, args, expectation] of [
      ['npx vds-conformance --help', ['--help'], (out: string) => expect(out).toContain('--target')],
      [
        'npx vds-conformance init',
        ['init'],
        (out: string) => {
          expect(out).toContain('my-target.yaml');
          // What init writes is a target file the suite loads once filled in.
          expect(loadTarget(path.join(dir, 'my-target.yaml'), { VDS_BASE_URL: 'https://vds.example.com/v3' }).baseUrl).toBe('https://vds.example.com/v3');
        },
      ],
    ] as const) {
      expect(shown, `the README shows ${command}`).toContain(command);
      const run = spawnSync(process.execPath, [BIN, ...args], {
        cwd: dir,
        encoding: 'utf8',
        // As npx starts it: INIT_CWD is where the user typed the command (this test's own is the clone's).
        env: { ...process.env, INIT_CWD: dir, VDS_REPORTS_DIR: path.join(dir, 'reports') },
      });
      expect(run.status, `${command}: ${run.stderr}`).toBe(0);
      expectation(run.stdout);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const TARGETS_GUIDE = 'docs/targets.md';

test('every target file the targets guide shows loads as a target file', () => {
  const examples = tokens(TARGETS_GUIDE).filter((t) => t.type === 'fence' && t.info.trim() === 'yaml' && /^baseUrl:/m.test(t.content));
  expect(examples.length).toBeGreaterThanOrEqual(4);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vds-docs-'));
  try {
    examples.forEach((t, i) => {
      const file = path.join(dir, `example-${i}.yaml`);
      fs.writeFileSync(file, t.content);
      // Every variable it names set, as a user's .env would.
      const env = Object.fromEntries(
        [...t.content.matchAll(/\$\{([A-Za-z_]\w*)/g)].map((m) => [m[1], m[1] === 'VDS_SANDBOX_URL' ? 'https://sandbox.example.com/v3' : `value-of-${m[1]}`]),
      );
      expect(() => loadTarget(file, env), `${TARGETS_GUIDE}, the example at line ${(t.map?.[0] ?? 0) + 1}`).not.toThrow();
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The text of a document's section under a heading, up to the next heading of the same or a higher level. */
function section(file: string, heading: string): string {
  const text = read(file);
  const start = text.search(new RegExp(`^(#+) ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  expect(start, `${file} has a heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const level = /^#+/.exec(text.slice(start))![0].length;
  const body = text.indexOf('\n', start) + 1;
  const next = text.slice(body).search(new RegExp(`^#{1,${level}} `, 'm'));
  return next < 0 ? text.slice(start) : text.slice(start, body + next);
}

test('the targets guide has a row for every key of the target schema, and one for every data key', () => {
  const schema = YAML.parse(fs.readFileSync(path.join(ROOT, 'fixtures', 'targets', 'target.schema.yaml'), 'utf8')) as {
    properties: Record<string, { properties?: Record<string, { properties?: Record<string, unknown> }> }>;
  };
  const row = (text: string, key: string) => text.includes(`| \`${key}\` |`);
  const keys = section(TARGETS_GUIDE, 'The keys');
  expect(Object.keys(schema.properties).filter((k) => !row(keys, k))).toEqual([]);
  const data = section(TARGETS_GUIDE, 'data: known ids');
  expect(Object.keys(schema.properties.data.properties!).filter((k) => !row(data, k))).toEqual([]);
  expect(DATA_KEYS.filter((k) => !row(data, k))).toEqual([]);
  const credentials = section(TARGETS_GUIDE, 'Tokens, tokenCommands and oauth');
  expect([...BASE_TOKEN_KEYS, 'withoutScope.<scope>'].filter((k) => !row(credentials, k))).toEqual([]);
  const oauth = schema.properties.oauth.properties!;
  const oauthKeys = [...Object.keys(oauth).filter((k) => k !== 'signInPage'), ...Object.keys(oauth.signInPage.properties!).map((k) => `signInPage.${k}`)];
  expect(oauthKeys.filter((k) => !credentials.includes(`\`${k}\``))).toEqual([]);
  expect(SCOPES.length).toBe(8);
});
