// The suite as it runs: its TypeScript compiled to JavaScript in dist/ (the same tree: dist/src/...,
// dist/tests/conformance/..., dist/playwright.config.js), which the command, Playwright's runner and
// workers and the embedded reference load as plain Node modules. Compiling at every load (tsx in the
// command, Playwright's transform in every worker, the reference's bundle) cost every run its first
// seconds on a fresh machine, whose caches are empty, and a published package that runs its own
// TypeScript through a loader is not what its users' tools expect.
//
// The sources stay the one truth: every .ts file under SOURCES is compiled, new files included, with no
// list to keep; a compiled file whose source is gone is removed. dist/.digest records a SHA-256 of the
// sources (and of this file) that made it: in a clone, `ensureBuilt` compares it with the sources on
// disk before the command or the reference starts and compiles again when they differ, so stale output
// never runs. In the installed package (under node_modules, or without sources) dist/ is what was packed.
//
//   node scripts/build.cjs                  compile (npm ci runs it: the `prepare` script)
//   node scripts/build.cjs --declarations   and the type declarations (npm pack: `prepack`)
//   node --require ./scripts/fresh.cjs F    compile if stale, then run F (npm run conformance)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'dist');
const DIGEST_FILE = path.join(OUT, '.digest');
/** What the compiled suite is made of: folders (every .ts inside) and files, relative to ROOT. */
const SOURCES = ['src', 'fixtures', 'reference-server', 'tests/conformance', 'playwright.config.ts', 'scripts/conformance.ts'];
/** Set for the processes a checked one starts (the runner, its workers, the reference): checked once per command. */
const CHECKED_ENV = 'VDS_BUILD_CHECKED';

/** Every source file, sorted, relative to ROOT with forward slashes. */
function sourceFiles() {
  const files = [];
  const walk = (rel) => {
    const full = path.join(ROOT, rel);
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isFile()) {
      if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) files.push(rel);
      return;
    }
    for (const entry of fs.readdirSync(full)) walk(`${rel}/${entry}`);
  };
  for (const s of SOURCES) walk(s);
  return files.sort();
}

/** The digest of these sources, of this file, of tsconfig.json and of the compiler's version: what dist/ must have been made from. */
function digestOf(files) {
  // Required here: loading node:crypto costs a start that finds the check already done (CHECKED_ENV).
  const hash = require('node:crypto').createHash('sha256');
  hash.update(fs.readFileSync(__filename)).update(`\0${compilerVersion()}\0`);
  hash.update(fs.readFileSync(path.join(ROOT, 'tsconfig.json'))).update('\0');
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(fs.readFileSync(path.join(ROOT, f)))
      .update('\0');
  return hash.digest('hex');
}

function compilerVersion() {
  try {
    return require('esbuild/package.json').version;
  } catch {
    return 'none';
  }
}

function builtDigest() {
  try {
    return fs.readFileSync(DIGEST_FILE, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A file replaced whole: a process loading it at the same time sees the old one or the new one. */
function writeWhole(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, contents);
  fs.renameSync(partial, file);
}

/** The compiled file of a source (relative to ROOT), under dist/. */
function outputOf(source, ext = '.js') {
  return path.join(OUT, source.replace(/\.ts$/, ext));
}

/** Compiles every source into dist/ (module by module: each stage still loads only what it requires). */
function build(options = {}) {
  const files = sourceFiles();
  const digest = digestOf(files);
  const { outputFiles } = require('esbuild').buildSync({
    entryPoints: files.map((f) => path.join(ROOT, f)),
    outdir: OUT,
    outbase: ROOT,
    bundle: false,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  for (const out of outputFiles) writeWhole(out.path, out.contents);
  if (options.declarations) declarations();
  removeOrphans(new Set(files.flatMap((f) => [outputOf(f), outputOf(f, '.d.ts')])));
  writeWhole(DIGEST_FILE, `${digest}\n`);
  return { files: files.length, digest };
}

/** The type declarations (dist/**\/*.d.ts) for those who import the catalogue or the check API. */
function declarations() {
  const { execFileSync } = require('node:child_process');
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
}

/** Compiled files (and their declarations) whose source is gone: a spec file left there would still run. */
function removeOrphans(keep) {
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if ((entry.name.endsWith('.js') || entry.name.endsWith('.d.ts')) && !keep.has(full)) fs.rmSync(full, { force: true });
    }
  };
  if (fs.existsSync(OUT)) walk(OUT);
}

/**
 * True where the suite runs what was packed: an installed package, a copy without its sources, or one
 * without the compiler (the package's development dependencies) whose dist/ was made.
 */
function isPackaged() {
  if (ROOT.split(path.sep).includes('node_modules') || !fs.existsSync(path.join(ROOT, 'src', 'cli', 'main.ts'))) return true;
  return compilerVersion() === 'none' && builtDigest() !== undefined;
}

/**
 * Makes sure dist/ is the compiled form of the sources on disk, compiling them again when not (in a clone;
 * a package runs what it shipped). Once per command: the processes it starts inherit CHECKED_ENV.
 */
function ensureBuilt() {
  if (process.env[CHECKED_ENV] || isPackaged()) return;
  if (builtDigest() !== digestOf(sourceFiles())) build();
  process.env[CHECKED_ENV] = '1';
}

module.exports = { build, ensureBuilt };

if (require.main === module) {
  const started = Date.now();
  const { files } = build({ declarations: process.argv.includes('--declarations') });
  console.log(`vds-conformance: ${files} sources compiled into dist/ in ${Date.now() - started} ms`);
}
