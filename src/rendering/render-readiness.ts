// What a target cannot run and how to get it, in one rendering for every place that says it: before a
// run (`vds-conformance init`, `--certify`: src/setup/readiness.ts decides the list from the catalogue's
// needs) and at the head of a certificate whose certification did not run every requirement (the same
// items, read off the run's not-run checks: each by the input it lacked, with the same how).
import { inputInfo, inputOf, type Readiness, type ReadinessItem } from '../catalogue/needs';
import type { Certificate } from '../verdict/model';
import { plural } from '../util/words';

/** The readiness of a target before a run, as lines (init, --certify). */
export function readinessLines(r: Readiness): string[] {
  if (!r.items.length) {
    return [`Certification readiness of ${r.target}: nothing the target file shows keeps a requirement from running (what the run meets, it says).`];
  }
  return [
    `Certification readiness of ${r.target}: ${plural(r.requirements, 'requirement')} cannot run on this target (${plural(r.checks, 'check')}), and a certification needs every one:`,
    ...itemsLines(r.items, '  '),
  ];
}

/** The items, each in a few lines: the input and why, the requirements it keeps from running, how to get it. */
export function itemsLines(items: ReadinessItem[], indent: string): string[] {
  return items.flatMap((item) => itemLines(item).map((l, i) => `${indent}${i ? '    ' : '○ '}${l}`));
}

/** At most this many requirements named per input; the rest counted. */
const SHOWN = 8;

function itemLines(item: ReadinessItem): string[] {
  const shown = item.requirements.slice(0, SHOWN).map((r) => `${r.id} (${plural(r.checks, 'check')})`);
  const rest = item.requirements.slice(SHOWN);
  const list = `${shown.join(', ')}${
    rest.length
      ? `, and ${plural(rest.length, 'more requirement')} (${plural(
          rest.reduce((n, r) => n + r.checks, 0),
          'check',
        )})`
      : ''
  }`;
  return [item.input ? `${item.input}: ${item.why}` : item.why, `keeps from running: ${list}`, ...(item.how ? [`how: ${item.how}`] : [])];
}

/**
 * A certification's checks not run, as the readiness list says them: by the input they lacked (the
 * reason the run gave, the input's how), then each other reason. Empty unless the certificate is a
 * certification with counted requirements not run.
 */
export function notRunItems(c: Pick<Certificate, 'requirements' | 'certification'>): ReadinessItem[] {
  if (!c.certification) return [];
  const items = new Map<string, ReadinessItem>();
  for (const r of c.requirements.filter((x) => !x.advisory && x.applicable !== false && x.status === 'not-run')) {
    for (const n of r.notRun) {
      const input = n.missing ? inputOf(n.missing) : '';
      const key = `${input}\n${n.reason}`;
      const item = items.get(key) ?? { input, why: n.reason, how: input ? (inputInfo()[input]?.how ?? '') : '', requirements: [] };
      item.requirements.push({ id: r.id, class: r.class, checks: Math.max(1, n.checks.length) });
      items.set(key, item);
    }
  }
  return [...items.values()];
}

/** The items as Markdown list entries. */
export function readinessMarkdown(items: ReadinessItem[], text: (s: string) => string): string[] {
  return items.flatMap((item) => {
    const [first, ...rest] = itemLines(item);
    return [`- ${text(first)}`, ...rest.map((l) => `  - ${text(l)}`)];
  });
}
