// Import rules of the suite, checked by `npm test` (stage "import rules") and `npm run lint:imports`.
// Each folder may import only the folders src/layers.yaml lists for it (the same file renders the table
// at the top of docs/ARCHITECTURE.md); besides, no circle, the reference server and the suite never
// import each other (the suite talks to the reference over HTTP only), check procedures see only the
// check API's index, and rendering reads verdicts, never decides one.
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const { folders } = YAML.parse(fs.readFileSync(path.join(__dirname, 'src', 'layers.yaml'), 'utf8'));
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const PRODUCT = '^(src|fixtures|tests/conformance)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module may reach itself through its imports (type imports included), in the suite or the reference.',
      severity: 'error',
      from: { path: '^(src|fixtures|tests/conformance|reference-server)/' },
      to: { circular: true },
    },
    ...Object.entries(folders).map(([folder, { imports }]) => ({
      name: `layers:${folder}`,
      comment: `${folder} may import only ${imports.length ? imports.join(', ') : 'nothing of the project'} (src/layers.yaml).`,
      severity: 'error',
      from: { path: `^${esc(folder)}/` },
      to: {
        path: '^(src|fixtures|tests|reference-server|scripts|bin)/',
        pathNot: [`^${esc(folder)}/`, ...imports.map((f) => `^${esc(f)}/`)],
      },
    })),
    {
      name: 'suite-never-imports-the-reference',
      comment: 'The suite judges the reference like any other server: over HTTP (its control API included), never by importing it.',
      severity: 'error',
      from: { path: PRODUCT },
      to: { path: '^reference-server/' },
    },
    {
      name: 'suite-never-imports-the-authorization-server',
      comment: "oidc-provider is the reference's dependency (variant authorization-server-oidc): the suite meets it over HTTP only.",
      severity: 'error',
      from: { path: PRODUCT },
      to: { path: 'node_modules/oidc-provider/' },
    },
    {
      name: 'reference-never-imports-the-suite',
      comment: 'The reference is written independently of the suite (and of contracts/): running the suite against it is a cross-check.',
      severity: 'error',
      from: { path: '^reference-server/' },
      to: { path: '^(src|fixtures|tests|scripts|contracts)/' },
    },
    {
      name: 'checks-see-the-check-api-only',
      comment: 'A check procedure imports what it uses from src/check-api/index.ts, and nothing else of the suite.',
      severity: 'error',
      from: { path: '^src/checks/' },
      to: { path: '^src/check-api/', pathNot: '^src/check-api/index\\.ts$' },
    },
    {
      name: 'rendering-never-decides-a-verdict',
      comment: 'Rendering reads the certificate (the verdict model); the verdict, the gate and the judgement are decided in src/verdict.',
      severity: 'error',
      from: { path: '^src/(rendering|monitoring)/' },
      to: { path: '^src/verdict/', pathNot: '^src/verdict/(model|check-record|latency)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // oidc-provider stays in the graph (a leaf): the rule suite-never-imports-the-authorization-server sees it.
    exclude: { path: 'node_modules/(?!oidc-provider/)' },
    // TypeScript 7 ships no compiler API: swc parses the sources (type imports count, as they bind the layers too).
    parser: 'swc',
    tsPreCompilationDeps: true,
    moduleSystems: ['es6', 'cjs'],
  },
};
