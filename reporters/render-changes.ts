// What changed since a previous certificate (--compare): printed, and written to reports/changes.md.
import type { Comparison, StatusChange } from './model';
import { MIN_LATENCY_SAMPLES } from './compare';

const WORD = { passed: 'passed', failed: 'failed', 'not-run': 'not run', 'not-applicable': 'not applicable', absent: 'absent' } as const;

function change(c: StatusChange): string {
  return `${c.id} (${c.class}): ${WORD[c.was]} -> ${WORD[c.now]} — ${c.title}`;
}

/** Plain lines for the console. */
export function renderChangesText(c: Comparison): string[] {
  const out = [`Changes since ${c.previous.path} (${c.previous.date}, target ${c.previous.target}): ${c.worse ? 'WORSE' : 'nothing got worse'}`];
  for (const x of c.newlyFailing) out.push(`  newly failing: ${change(x)}`);
  for (const x of c.newlyNotRun) out.push(`  newly not run: ${change(x)}`);
  for (const x of c.newlyPassing) out.push(`  newly passing: ${change(x)}`);
  for (const l of c.latencyRegressions) {
    out.push(`  slower: ${l.route}: p95 ${l.previousP95} ms -> ${l.currentP95} ms (x${l.ratio})`);
  }
  return out;
}

export function renderChangesMarkdown(c: Comparison): string {
  const section = (title: string, items: string[]) => [`## ${title}`, '', ...(items.length ? items.map((i) => `- ${i}`) : ['None.']), ''];
  return [
    '# Changes since the previous run',
    '',
    `Previous: \`${c.previous.path}\` (${c.previous.date}, target ${c.previous.target}).`,
    '',
    `**${c.worse ? 'Something got worse.' : 'Nothing got worse.'}**`,
    '',
    ...section('Newly failing', c.newlyFailing.map(change)),
    ...section('Newly not run', c.newlyNotRun.map(change)),
    ...section('Newly passing', c.newlyPassing.map(change)),
    ...section(
      `Latency regressions (p95 grew more than ${c.ratio}x; routes under ${c.floorMs} ms or timed fewer than ${MIN_LATENCY_SAMPLES} times ignored)`,
      c.latencyRegressions.map((l) => `${l.route}: p95 ${l.previousP95} ms -> ${l.currentP95} ms (x${l.ratio})`),
    ),
  ].join('\n');
}
