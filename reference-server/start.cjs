// Starts the reference server (reference-server/cli.ts, the same flags) from its compiled form
// (dist/reference-server/, made by scripts/build.cjs: compiled again first in a clone whose sources
// changed). Compiling it module by module as it loads (tsx) cost each start 0.5 s more of processor
// time (1.35 s against 0.83 s, 0.77 s against 0.48 s until it answers): the embedded reference starts
// for every `npm run conformance` and about ninety times in `npm test`, on two cores busy with the run
// itself.
'use strict';
const path = require('node:path');

require(path.join(__dirname, '..', 'scripts', 'build.cjs')).ensureBuilt();
require(path.join(__dirname, '..', 'dist', 'reference-server', 'cli.js')).runCli();
