// Counting and listing in words, for messages and reports.

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** At most `max` items, and how many more. */
export function shortList(items: string[], max = 5): string[] {
  return items.length <= max ? items : [...items.slice(0, max), `… and ${items.length - max} more`];
}
