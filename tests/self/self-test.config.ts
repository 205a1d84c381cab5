// The project's own tests (npm test): contracts, harness, reference server, reporters.
// Playwright Test is used as a plain test runner here; no browser unless a test asks for one.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  fullyParallel: true,
  workers: 2,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '../../reports/self/results.json' }]],
  outputDir: '../../reports/self/test-results',
});
