// Requests of one check sent together: Promise.all, except that it waits for every one before it
// throws the first failure, so that no request outlives the check that sent it (its record holds
// every exchange, and the next check of a write lane starts on a quiet target). judgeEach: one
// request per item, together where they only read, each answer judged in the items' order.

/** Like Promise.all, but settles every value before throwing the first rejection. */
export async function together<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(values);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}

/**
 * Sends one request per item and judges each answer in the items' order (`judge` may fail the check).
 * Reads go together: nothing orders them, and on a distant server they cost one round trip, not one
 * each. Anything else goes one at a time, each judged before the next is sent: a write the server
 * wrongly accepts stops the check before another changes its state again.
 */
export async function judgeEach<I, R>(items: readonly I[], reads: boolean, send: (item: I) => Promise<R>, judge: (answer: R, item: I) => void): Promise<void> {
  if (reads) {
    const answers = await together(items.map(send));
    answers.forEach((answer, i) => judge(answer, items[i]));
    return;
  }
  for (const item of items) judge(await send(item), item);
}
