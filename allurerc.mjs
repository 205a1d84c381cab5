// Allure 3 configuration for `npm run report`: the Allure HTML report of the last conformance run,
// built offline from reports/allure-results (or $VDS_REPORTS_DIR/allure-results) as one file that
// opens from disk. The run writes one result per check (src/rendering/render-allure.ts), labelled
// epic = conformance class, feature = route group, story = requirement (the tree below), severity and
// tags (src/rendering/allure-labels.ts).
// Categories: the run's categories.json (one per likely cause of the triage, then the failures none
// explains), matched on each failed result's `cause` label.
// History: a run with --history DIR leaves reports/allure-history.json naming DIR/allure-history.jsonl;
// the report reads and extends it, so that each check shows its history and flakiness across runs.
// Quality gate: the run's verdict, which `vds-conformance report` gives the report (src/cli/report.ts).
// A plain object, not `allure`'s defineConfig: that package's entry point is its command line, which
// runs as it loads, and the report subcommand loads this file in its own process.
import fs from 'node:fs';
import path from 'node:path';

const reports = path.resolve(process.env.VDS_REPORTS_DIR ?? 'reports');
const resultsDir = path.join(reports, 'allure-results');

/** A JSON file of the run, if it wrote one. */
function readJson(file, fallback) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return fallback;
  }
}

/** A label matcher of Allure 3 is a regular expression: the category's name, literally. */
const literally = (text) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const categories = readJson(path.join(resultsDir, 'categories.json'), []).map((c) => ({
  name: c.name,
  matchers: { statuses: c.matchedStatuses, labels: { cause: literally(c.name) } },
}));
const { historyPath } = readJson(path.join(reports, 'allure-history.json'), {});

export default {
  name: 'VDS v3 conformance',
  resultsDir,
  output: path.join(reports, 'allure-report'),
  // The latest 60 reports, as the trend page draws the latest 60 runs.
  ...(historyPath ? { historyPath, historyLimit: 60 } : {}),
  ...(categories.length ? { categories: { rules: categories } } : {}),
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
};
