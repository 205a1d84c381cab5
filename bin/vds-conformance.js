#!/usr/bin/env node
// `vds-conformance`: the suite as an installed command (npx vds-conformance --target ./my-target.yaml).
// It runs the same command line as `npm run conformance` (src/cli/args.ts), from any folder: target files,
// .env and the reports (./reports unless VDS_REPORTS_DIR says otherwise) are the current folder's.
// `vds-conformance init` writes a commented target file and a .env template here; `vds-conformance
// verify ARCHIVE` replays a certification archive offline (the same as --verify ARCHIVE, src/cli/verify.ts).
'use strict';
const path = require('node:path');

process.env.VDS_REPORTS_DIR ??= path.join(process.cwd(), 'reports');
// The suite is TypeScript: tsx compiles it as it loads (a dependency of the package).
require('tsx/cjs/api').register();
if (process.argv[2] === 'verify') process.argv.splice(2, 1, '--verify');
if (process.argv[2] === 'init') require('../src/cli/init.ts').main(process.argv.slice(3));
else require('../scripts/conformance.ts');
