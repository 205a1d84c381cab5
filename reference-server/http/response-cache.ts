// A response cache in front of the read routes, as the faults of family `caches` put one there: a
// success is kept a few seconds under a key made of the request's method and URL (and, for one fault,
// the token's scopes) and answered again to whoever asks for the same key meanwhile. The key never
// holds who asked: that is the defect (an answer cached for another user). The correct server has none.

import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../data/store';

/** How long a cached answer is served again (a few seconds, as a short-lived shared cache keeps one). */
const RESPONSE_CACHE_TTL_MS = 5000;

/** The key an answer is to be stored under, set on the request by the route that looked it up (see remember()). */
const PENDING = Symbol('vds-response-cache-key');

type Pending = FastifyRequest & { [PENDING]?: string };

/**
 * The cached answer for `key`, sent (200, its content type and body as first sent) when one is fresh;
 * otherwise the request is marked so that its own success is kept under `key` (app.ts onSend). Returns
 * whether the reply was sent from the cache.
 */
export function answerFromCache(store: Store, key: string, request: FastifyRequest, reply: FastifyReply): boolean {
  const hit = store.responseCache.get(key);
  if (hit && Date.now() - hit.at < RESPONSE_CACHE_TTL_MS) {
    void reply.code(200).header('content-type', hit.contentType).send(hit.payload);
    return true;
  }
  (request as Pending)[PENDING] = key;
  return false;
}

/** onSend: a success of a request marked by answerFromCache is kept under its key. */
export function remember(store: Store, request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const key = (request as Pending)[PENDING];
  if (key === undefined || reply.statusCode !== 200 || typeof payload !== 'string') return;
  store.responseCache.set(key, { at: Date.now(), payload, contentType: String(reply.getHeader('content-type') ?? 'application/json') });
}

/**
 * Fault blind-conditional-before-auth: an ETag layer in front of the routes. A success of a read gets an
 * entity tag (a digest of its body), remembered by URL; a request naming that tag in If-None-Match is
 * answered 304 at once, before the route, so before its authentication. Returns whether it answered.
 */
export function answerNotModified(store: Store, request: FastifyRequest, reply: FastifyReply): boolean {
  const asked = request.headers['if-none-match'];
  const tag = store.etags.get(request.url);
  if (tag === undefined || typeof asked !== 'string' || !asked.split(/\s*,\s*/).includes(tag)) return false;
  void reply.code(304).header('etag', tag).send();
  return true;
}

/** Fault blind-conditional-before-auth: a read's success gets its entity tag, remembered for its URL. */
export function tagSuccess(store: Store, request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  if (request.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string') return;
  const tag = `"${createHash('sha256').update(payload).digest('hex').slice(0, 20)}"`;
  store.etags.set(request.url, tag);
  reply.header('etag', tag);
}
