// Preloaded before the compiled command (`node --require ./scripts/fresh.cjs dist/scripts/conformance.js`,
// npm run conformance): in a clone, dist/ is compiled again first when the sources changed since it was
// made (scripts/build.cjs), so that the command never runs stale output.
'use strict';
require('./build.cjs').ensureBuilt();
