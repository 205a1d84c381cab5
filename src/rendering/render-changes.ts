// What changed since a previous certificate (--compare): printed, and written to reports/changes.md.
import type { Comparison, LatencyChange, LatencyNote, StatusChange } from '../verdict/model';

const WORD = { passed: 'passed', failed: 'failed', 'not-run': 'not run', 'not-applicable': 'not applicable', absent: 'absent' } as const;

function change(c: StatusChange): string {
  return `${c.id} (${c.class}): ${WORD[c.was]} -> ${WORD[c.now]} — ${c.title}`;
}

function slower(l: LatencyChange): string {
  return (
    `${l.route}: median ${l.previous.p50} -> ${l.current.p50} ms (x${l.ratio}), fastest ${l.previous.fastest} -> ${l.current.fastest} ms, ` +
    `p90 ${l.previous.p90} -> ${l.current.p90} ms ` +
    `(${l.previous.count} and ${l.current.count} samples)`
  );
}

function note(n: LatencyNote): string {
  return n.route ? `${n.route}: ${n.note}` : n.note;
}

/** The slowdown rule in words (src/monitoring/slowdown.ts). */
function slowdownRule(c: Pick<Comparison, 'ratio' | 'floorMs' | 'minSamples'>): string {
  return (
    `the fastest and the median of the server's sampled answer times each grew more than ${c.ratio}x and by at least ${c.floorMs} ms, ` +
    `on ${c.minSamples} samples or more in both runs`
  );
}

/** Plain lines for the console. */
export function renderChangesText(c: Comparison): string[] {
  const out = [`Changes since ${c.previous.path} (${c.previous.date}, target ${c.previous.target}): ${c.worse ? 'WORSE' : 'nothing got worse'}`];
  for (const x of c.newlyFailing) out.push(`  newly failing: ${change(x)}`);
  for (const x of c.newlyNotRun) out.push(`  newly not run: ${change(x)}`);
  for (const x of c.newlyPassing) out.push(`  newly passing: ${change(x)}`);
  for (const l of c.latencyRegressions) out.push(`  slower: ${slower(l)}`);
  for (const n of c.latencyNotes ?? []) out.push(`  latency note (not a failure): ${note(n)}`);
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
    ...section(`Slower routes (${slowdownRule(c)})`, c.latencyRegressions.map(slower)),
    ...section('Latency notes (not failures)', (c.latencyNotes ?? []).map(note)),
  ].join('\n');
}
