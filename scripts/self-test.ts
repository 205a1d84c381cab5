// `npm test`: the project's own tests, stage by stage, then one plain line "N passed, N failed"
// summing everything that ran (CI reads that line; it is also written to reports/self/summary.txt).
//   1. typecheck            tsc --noEmit
//   2. unit and integration  Playwright Test over tests/self (contracts, harness, reference, reporters, hostile servers)
//   3. suite power          the conformance suite against the clean reference and once per injected fault
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { gatePowerLine, type GatePower } from './mutation-summary';

const ROOT = path.resolve(__dirname, '..');
const SELF_DIR = path.join(ROOT, 'reports', 'self');

interface Counts { passed: number; failed: number; skipped: number; note?: string }
interface Stage { name: string; run: () => Counts }

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = {}): number {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

const stages: Stage[] = [
  {
    name: 'typecheck',
    run: () => (sh(npx, ['tsc', '--noEmit', '-p', 'tsconfig.json']) === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 }),
  },
  {
    name: 'unit and integration tests',
    run: () => {
      const resultsFile = path.join(SELF_DIR, 'results.json');
      fs.rmSync(resultsFile, { force: true });
      const code = sh(npx, ['playwright', 'test', '-c', 'tests/self/self-test.config.ts']);
      return playwrightCounts(resultsFile, code);
    },
  },
  {
    name: 'suite power (mutation testing)',
    run: () => {
      const summary = path.join(ROOT, 'reports', 'mutation', 'summary.json');
      fs.rmSync(summary, { force: true });
      const code = sh(npx, ['tsx', 'scripts/mutation.ts']);
      if (!fs.existsSync(summary)) return { passed: 0, failed: 1, skipped: 0 };
      const { gatePower, ...counts } = JSON.parse(fs.readFileSync(summary, 'utf8')) as Counts & { gatePower?: GatePower };
      const note = gatePower ? gatePowerLine(gatePower) : undefined;
      return code === 0 || counts.failed > 0 ? { ...counts, note } : { ...counts, failed: counts.failed + 1, note };
    },
  },
];

/** Counts from Playwright's JSON reporter; a run that wrote none counts as one failure. */
function playwrightCounts(file: string, exitCode: number): Counts {
  if (!fs.existsSync(file)) return { passed: 0, failed: 1, skipped: 0 };
  const stats = JSON.parse(fs.readFileSync(file, 'utf8')).stats as { expected: number; unexpected: number; flaky: number; skipped: number };
  const counts = { passed: stats.expected + stats.flaky, failed: stats.unexpected, skipped: stats.skipped };
  if (exitCode !== 0 && counts.failed === 0) counts.failed = 1; // e.g. no test found, or a crash
  return counts;
}

function main(): void {
  const started = Date.now();
  fs.mkdirSync(SELF_DIR, { recursive: true });
  const only = process.argv.slice(2);
  const total: Counts = { passed: 0, failed: 0, skipped: 0 };
  const lines: string[] = [];
  for (const stage of stages) {
    if (only.length && !only.some((o) => stage.name.startsWith(o))) continue;
    console.log(`\n=== ${stage.name} ===`);
    const c = stage.run();
    total.passed += c.passed;
    total.failed += c.failed;
    total.skipped += c.skipped;
    lines.push(`${stage.name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`);
    if (c.note) lines.push(`  ${c.note}`);
  }
  const summary = `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`;
  fs.writeFileSync(path.join(SELF_DIR, 'summary.txt'), `${summary}\n`);
  // For the benchmark's table (npm run bench), which cannot afford to run npm test itself.
  const seconds = Math.round((Date.now() - started) / 1000);
  fs.writeFileSync(path.join(SELF_DIR, 'summary.json'), `${JSON.stringify({ ...total, stages: only.length ? only : 'all', seconds, finishedAt: new Date().toISOString() })}\n`);
  console.log(`\n${lines.join('\n')}\n${summary}`);
  process.exitCode = total.failed > 0 ? 1 : 0;
}

main();
