// Starts the reference server (reference-server/cli.ts, the same flags) from one JavaScript file:
// esbuild bundles its TypeScript once per version of its sources, into node_modules/.cache/, and every
// start after that loads that file. Compiling it module by module as it loads (tsx) cost each start
// 0.5 s more of processor time (1.35 s against 0.83 s, 0.77 s against 0.48 s until it answers): the
// embedded reference starts for every `npm run conformance` and about ninety times in `npm test`, on
// two cores busy with the run itself. Where no bundle can be made (no esbuild, a folder it cannot write,
// a source importing outside this folder), tsx compiles it as before: the same server either way.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const CACHE = path.join(__dirname, '..', 'node_modules', '.cache', 'vds-reference');

/** A digest of every source of the server (and of the tools that bundle it): a new one, a new bundle. */
function sourcesDigest() {
  const hash = crypto.createHash('sha256');
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts')) hash.update(`${path.relative(__dirname, file)}\0`).update(fs.readFileSync(file));
    }
  };
  walk(__dirname);
  hash.update(`${process.version}\0${require('esbuild/package.json').version}`);
  return hash.digest('hex').slice(0, 16);
}

/** The bundle of cli.ts for these sources, made when missing (written whole, so starts at once never see half of it). */
function bundled() {
  const file = path.join(CACHE, `cli-${sourcesDigest()}.cjs`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(CACHE, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  const { metafile } = require('esbuild').buildSync({
    entryPoints: [path.join(__dirname, 'cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    outfile: partial,
    metafile: true,
    logLevel: 'silent',
  });
  // The digest covers this folder only: a source from elsewhere would not make a new bundle when it changes.
  const outside = Object.keys(metafile.inputs).filter((f) => path.relative(__dirname, path.resolve(f)).startsWith('..'));
  if (outside.length) {
    fs.rmSync(partial, { force: true });
    throw new Error(`the reference imports ${outside[0]}, outside reference-server/`);
  }
  fs.renameSync(partial, file);
  // The bundles of earlier sources go, and what a start killed while bundling left (best effort: another
  // start may be reading or writing one).
  for (const old of fs.readdirSync(CACHE)) {
    try {
      const stale =
        /^cli-[0-9a-f]+\.cjs$/.test(old) ||
        (old.endsWith('.partial') && Date.now() - (fs.statSync(path.join(CACHE, old), { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 60_000);
      if (old !== path.basename(file) && stale) fs.rmSync(path.join(CACHE, old), { force: true });
    } catch {
      // left for a later start
    }
  }
  return file;
}

let cli;
try {
  cli = require(bundled());
} catch {
  require('tsx/cjs');
  cli = require('./cli.ts');
}
cli.runCli();
