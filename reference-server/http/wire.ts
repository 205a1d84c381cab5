// HTTP and JSON wire choices of other servers and frameworks that the documents leave open, each a
// conforming variant (variants.ts): how the JSON text is written (member order, escapes, media type
// parameters), compression, entity tags, and how a known path answers OPTIONS or another method.
// None changes what an answer means, only how it is written on the wire.

import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Switches } from '../context';
import { ROUTE_SCOPES } from '../route-keys';
import type { Variants } from '../switches';
import type { VariantName } from '../variants';
import { parametersError, sendApiError } from './errors';

/** Each route key's path as a pattern of concrete paths under /v3, with its method. */
const ROUTE_PATTERNS = Object.keys(ROUTE_SCOPES).map((key) => {
  const [method, path] = key.split(' ');
  const source = path.replace(/[.]/g, '\\.').replace(/:[A-Za-z]+/g, '[^/]+');
  return { method, pattern: new RegExp(`^/v3${source}$`) };
});

/** The methods a concrete path is served with (GET routes answer HEAD too, as Fastify exposes them), or none. */
function methodsOfPath(url: string): string[] {
  const path = url.split('?')[0];
  const methods = new Set<string>();
  for (const route of ROUTE_PATTERNS) {
    if (!route.pattern.test(path)) continue;
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods].sort();
}

/** Members of every object in key order, recursively (Jackson's SORT_PROPERTIES_ALPHABETICALLY, a serializer's sorted maps). */
function sortedMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedMembers);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortedMembers((value as Record<string, unknown>)[key]);
  return sorted;
}

/** PHP's json_encode without flags: "/" written "\/" and every non-ASCII character as \uXXXX (UTF-16 code units). */
function phpEscaped(text: string): string {
  return text.replace(/\//g, '\\/').replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether the request takes gzip (RFC 9110 § 12.5.3: named with a weight above 0). */
function acceptsGzip(request: FastifyRequest): boolean {
  const header = String(request.headers['accept-encoding'] ?? '');
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== 'x-gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** The size under which an answer is sent uncompressed (@fastify/compress's default threshold). */
const GZIP_THRESHOLD = 1024;

/**
 * A request to the API's own routes (not the sign-in page and token endpoint, not the control API):
 * where the faults and variants of the layers in front of the routes act.
 */
export function isApiRoute(request: FastifyRequest): boolean {
  const route = request.routeOptions.url ?? '';
  return route.startsWith('/v3/') && !route.startsWith('/v3/auth/');
}

/** Registers the wire variants' hooks; the control API is test plumbing and never changes. */
export function wireVariants(app: FastifyInstance, variants: Variants, switchesFor: (request: FastifyRequest) => Switches): void {
  const isControl = (request: FastifyRequest) => request.url.startsWith('/_control');
  const isJson = (reply: FastifyReply) => String(reply.getHeader('content-type') ?? '').includes('json');

  // variant blindp-options-answered: OPTIONS on a path of the API answers 200 with Allow and no body, as Spring MVC's
  // DispatcherServlet does by default (RFC 9110 § 9.3.7); it reads no resource, so it asks for no token.
  if (variants.has('blindp-options-answered')) {
    app.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'OPTIONS' || isControl(request)) return;
      const methods = methodsOfPath(request.url);
      if (methods.length === 0) return;
      return reply
        .code(200)
        .header('allow', [...methods, 'OPTIONS'].join(', '))
        .header('content-length', '0')
        .send();
    });
  }

  // Only where one of them is on: every other run's answers go out untouched, at no cost.
  const onSendVariants: VariantName[] = [
    'blindp-json-members-sorted',
    'blindp-json-escaped-php',
    'blindp-json-no-charset',
    'blindp-etag-revalidation',
    'blindp-gzip-answers',
  ];
  if (onSendVariants.some((v) => variants.has(v)))
    app.addHook('onSend', async (request, reply, payload) => {
      if (isControl(request) || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
      let body: string | Buffer = payload;
      if (typeof body === 'string' && body !== '' && isJson(reply)) {
        // variant blindp-json-members-sorted: each object's members in key order (RFC 8259 § 4: an object is unordered).
        if (variants.has('blindp-json-members-sorted')) body = JSON.stringify(sortedMembers(JSON.parse(body)));
        // variant blindp-json-escaped-php: "\/" and \uXXXX escapes, as PHP's json_encode writes by default (RFC 8259 § 7).
        if (variants.has('blindp-json-escaped-php')) body = phpEscaped(body);
      }
      // variant blindp-json-no-charset: application/json without a charset parameter (RFC 8259 § 11 defines none).
      if (variants.has('blindp-json-no-charset')) {
        const type = String(reply.getHeader('content-type') ?? '');
        if (/^application\/(geo\+)?json;\s*charset=utf-8$/i.test(type)) reply.header('content-type', type.split(';')[0]);
      }
      // variant blindp-etag-revalidation: the API's successful reads carry a weak entity tag, and a request whose
      // If-None-Match names it gets 304 without a body (RFC 9110 § 8.8.3, § 13.1.2), once the route has authorized it.
      if (variants.has('blindp-etag-revalidation') && request.method === 'GET' && reply.statusCode === 200 && isApiRoute(request)) {
        const tag = `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`;
        reply.header('etag', tag);
        const wanted = String(request.headers['if-none-match'] ?? '')
          .split(',')
          .map((t) => t.trim().replace(/^W\//, ''));
        if (wanted.includes(tag.replace(/^W\//, '')) || wanted.includes('*')) {
          reply.code(304).removeHeader('content-length');
          return '';
        }
      }
      // variant blindp-gzip-answers: answers of 1 KiB or more gzip-compressed when the request accepts gzip, as
      // @fastify/compress (or a proxy's gzip on) does (RFC 9110 § 8.4.1, § 12.5.3).
      if (variants.has('blindp-gzip-answers') && request.method !== 'HEAD' && Buffer.byteLength(body) >= GZIP_THRESHOLD && reply.statusCode !== 304) {
        const vary = String(reply.getHeader('vary') ?? '');
        reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
        if (acceptsGzip(request) && !reply.getHeader('content-encoding')) {
          reply.header('content-encoding', 'gzip').removeHeader('content-length');
          return gzipSync(body);
        }
      }
      return body;
    });

  // variant blindp-method-not-allowed: a path of the API asked with a method it is not served with answers 405 with
  // Allow and an error array (RFC 9110 § 15.5.6), as Spring MVC and Django REST framework do, instead of 404.
  if (variants.has('blindp-method-not-allowed')) {
    app.addHook('onRequest', async (request, reply) => {
      if (isControl(request) || request.routeOptions.url !== undefined) return;
      const methods = methodsOfPath(request.url);
      if (methods.length === 0 || methods.includes(request.method)) return;
      const error = parametersError(405, 'Method not allowed', `Use ${methods.filter((m) => m !== 'HEAD').join(' or ')} on this path`);
      reply.header('allow', methods.join(', '));
      return sendApiError(reply, error, switchesFor(request));
    });
  }
}
