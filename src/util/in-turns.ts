// Work over many items with at most a few in flight at once: the preparation's lookups (discovery),
// the run's sign-ins (tokens), a route group's reading checks (schedule). One small pool, so that
// each of them states only its limit.

/** `work` over the items, at most `limit` at a time, taken in the items' order; the results in the items' order. */
export async function inTurns<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = Array.from({ length: items.length });
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(0, Math.min(limit, items.length)) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]);
      }
    }),
  );
  return out;
}
