#!/usr/bin/env node
// `vds-conformance`: the suite as an installed command (npx vds-conformance --target ./my-target.yaml).
// The same command line as `npm run conformance --` in a clone (src/cli/main.ts: its subcommands init,
// verify, report, merge and help, and a run), from any folder: target files, .env and the reports
// (./reports unless VDS_REPORTS_DIR says otherwise) are the current folder's.
'use strict';
const path = require('node:path');

process.env.VDS_REPORTS_DIR ??= path.join(process.cwd(), 'reports');
// The suite runs compiled (dist/, made by scripts/build.cjs when packed): no TypeScript loader. In a
// clone, dist/ is compiled again first when its sources changed.
require('../scripts/build.cjs').ensureBuilt();
require('../dist/src/cli/main.js')
  .main(process.argv.slice(2), 'vds-conformance')
  .then((code) => {
    process.exitCode = code;
  });
