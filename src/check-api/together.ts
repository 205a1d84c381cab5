// Requests of one check sent together: Promise.all, except that it waits for every one before it
// throws the first failure, so that no request outlives the check that sent it (its record holds
// every exchange, and the next check of a write lane starts on a quiet target).

/** Like Promise.all, but settles every value before throwing the first rejection. */
export async function together<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(values);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}
