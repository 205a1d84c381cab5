#!/usr/bin/env node
// `vds-conformance`: the suite as an installed command (npx vds-conformance --target ./my-target.yaml).
// The same command line as `npm run conformance --` in a clone (src/cli/main.ts: its subcommands init,
// verify, report, merge and help, and a run), from any folder: target files, .env and the reports
// (./reports unless VDS_REPORTS_DIR says otherwise) are the current folder's.
'use strict';
const path = require('node:path');

process.env.VDS_REPORTS_DIR ??= path.join(process.cwd(), 'reports');
// The suite is TypeScript: tsx compiles it as it loads (a dependency of the package).
require('tsx/cjs/api').register();
require('../src/cli/main.ts')
  .main(process.argv.slice(2), 'vds-conformance')
  .then((code) => {
    process.exitCode = code;
  });
