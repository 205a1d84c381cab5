// The project's own tests (npm test, scripts/self-test.ts), in one Playwright run of two projects:
//   unit   contracts, harness, reference server, reporters, the command line, hostile servers
//   power  the suite's power and precision (power/: every reference fault caught, every conforming
//          server passed, in-process; a sample of both through the README's command)
// One run on both cores: the long tests of each project overlap the short ones of the other, instead
// of each project ending on one busy core. Playwright Test is a plain test runner here; no browser
// unless a test asks for one.
import { defineConfig } from '@playwright/test';

// The commands and references the tests start run the compiled suite (dist/): made fresh here, once,
// before any test starts one (scripts/build.cjs); the processes they start know it was checked.
// eslint-disable-next-line typescript/no-require-imports -- plain CommonJS, no types of its own
(require('../../scripts/build.cjs') as { ensureBuilt(): void }).ensureBuilt();

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  fullyParallel: true,
  workers: 2,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '../../reports/self/results.json' }]],
  outputDir: '../../reports/self/test-results',
  projects: [
    { name: 'unit', testIgnore: 'power/**' },
    { name: 'power', testDir: './power' },
  ],
});
