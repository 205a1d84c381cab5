// Allure 3 configuration for `npm run report`: the Allure HTML report of the last conformance run,
// built offline from reports/allure-results (or $VDS_REPORTS_DIR/allure-results) as one file that
// opens from disk. Labels set by define-suite.ts (src/rendering/allure-labels.ts) group the checks by
// conformance class (epic), route group (feature) and requirement (story).
import path from 'node:path';
import { defineConfig } from 'allure';

const reports = path.resolve(process.env.VDS_REPORTS_DIR ?? 'reports');

export default defineConfig({
  name: 'VDS v3 conformance',
  resultsDir: path.join(reports, 'allure-results'),
  output: path.join(reports, 'allure-report'),
  plugins: {
    awesome: {
      options: {
        singleFile: true,
        reportName: 'VDS v3 conformance',
        reportLanguage: 'en',
        groupBy: ['epic', 'feature', 'story'],
      },
    },
  },
});
