// A server that answers every request, on every route and the token endpoint alike, with one and the
// same JSON value of the wrong shape: the suite must fail what that breaks, with expected vs actual,
// and never break itself on it (no check reading a member of a null, or the items of a non-list).
// The sign-in page answers that JSON too.
import http from 'node:http';
import { listenOnLoopback } from '../support/loopback-server';

/**
 * The shapes a self-test serves, one per run: null where a record or a list belongs (a member of it,
 * its items), and a list of nulls (a member of each item; a list where a record belongs).
 */
export const ODD_SHAPES = { null: 'null', 'a list of nulls': '[null, null]' } as const;

export async function startOddShapesServer(body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(body);
    });
  });
  const { origin, close } = await listenOnLoopback(server);
  return { url: `${origin}/v3`, close };
}
