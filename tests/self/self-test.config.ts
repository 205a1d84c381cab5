// The project's own tests (npm test, scripts/self-test.ts), in one Playwright run of two projects:
//   unit   contracts, harness, reference server, reporters, the command line, hostile servers
//   power  the suite's power and precision (power/: every reference fault caught, every conforming
//          server passed, in-process; a sample of both through the README's command)
// One run on both cores: the long tests of each project overlap the short ones of the other, instead
// of each project ending on one busy core. Playwright Test is a plain test runner here; no browser
// unless a test asks for one.
import { defineConfig } from '@playwright/test';

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
