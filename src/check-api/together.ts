// Requests of one check sent together: Promise.all, except that it waits for every one before it
// throws the first failure, so that no request outlives the check that sent it (its record holds
// every exchange, and the next check of a write lane starts on a quiet target). judgeEach: one
// request per item, together where nothing orders them (unordered), each answer judged in the items' order.
import type { Route } from '../catalogue/catalogue';

/** Like Promise.all, but settles every value before throwing the first rejection. */
export async function together<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(values);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}

/**
 * Requests to `route` that nothing orders: reads, and creations (201: each makes a record of its own,
 * which no other request of the check reads or changes, even one the server wrongly accepts).
 */
function unordered(route: Pick<Route, 'method' | 'success'>): boolean {
  return route.method === 'GET' || route.success.status === 201;
}

/**
 * Sends one request to `route` per item and judges each answer in the items' order (`judge` may fail
 * the check). Unordered requests (unordered()) go together: on a distant server they cost one round
 * trip, not one each. Anything else goes one at a time, each judged before the next is sent: a write
 * the server wrongly accepts stops the check before another changes its state again.
 */
export async function judgeEach<I, R>(
  route: Pick<Route, 'method' | 'success'>,
  items: readonly I[],
  send: (item: I) => Promise<R>,
  judge: (answer: R, item: I) => void,
): Promise<void> {
  if (unordered(route)) {
    const answers = await together(items.map(send));
    answers.forEach((answer, i) => judge(answer, items[i]));
    return;
  }
  for (const item of items) judge(await send(item), item);
}
