// The config for merging the blob reports of sharded runs (`npm run merge -- <folder of blob zips>`):
// the same file reporters and certificate as one run, so the merged certificate equals one run's.
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { fileReporters } from './config';

export default defineConfig({
  // merge-reports checks that this matches the shards' test folder.
  testDir: path.join(__dirname, '..', '..', 'tests', 'conformance'),
  reporter: fileReporters(),
});
