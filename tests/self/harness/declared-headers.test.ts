// What answers declare (src/checks/declared-headers.ts), read as caches and browsers read them: the
// header sets deployed servers and frameworks send pass, and only those that let a shared cache give
// one user's answer to another unasked, or let another site frame the password page, fail. A false
// alarm here fails a conforming server, so the passing side is the longer list.
import { expect, test } from '@playwright/test';
import { cacheDirectives, framedBy, sharedReuse } from '../../../src/checks/declared-headers';

const DATE = 'Mon, 07 Dec 2026 10:00:00 GMT';

test('Cache-Control is read directive by directive, a qualified value kept whole', () => {
  const d = cacheDirectives('Private="set-cookie, x-a", max-age=60 ,  must-revalidate');
  expect([...d]).toEqual([
    ['private', 'set-cookie, x-a'],
    ['max-age', '60'],
    ['must-revalidate', true],
  ]);
});

test('personal data: what keeps it from other requesters passes, what hands it on unasked fails', () => {
  const safe = [
    {},
    { 'cache-control': 'no-store' },
    { 'cache-control': 'private, max-age=60' },
    { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' }, // Spring Security
    { 'cache-control': 'max-age=0, private, must-revalidate' }, // Rails
    { 'cache-control': 'max-age=0, must-revalidate' }, // stale at once: asked of the server each time
    { 'cache-control': 'public, no-cache' },
    { 'cache-control': 's-maxage=0, public' },
    { 'cache-control': 'max-age=300' }, // a shared cache never stores an answer to Authorization without public, s-maxage or must-revalidate
    { 'cache-control': 'must-revalidate', expires: DATE, date: DATE },
  ];
  for (const headers of safe) expect(sharedReuse(headers as Record<string, string>), JSON.stringify(headers)).toBeUndefined();
  const unsafe = [
    { 'cache-control': 'public, max-age=300' },
    { 'cache-control': 'public' },
    { 'cache-control': 's-maxage=600' },
    { 'cache-control': 'must-revalidate, max-age=60' },
    { 'cache-control': 'private="set-cookie", public, max-age=60' }, // a qualified private forbids only that field
    { 'cache-control': 'no-cache="set-cookie", public, max-age=60' },
    { 'cache-control': 'public', expires: 'Mon, 07 Dec 2026 11:00:00 GMT', date: DATE },
  ];
  for (const headers of unsafe) expect(sharedReuse(headers as Record<string, string>), JSON.stringify(headers)).toMatch(/a shared cache may store it/);
});

const h = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => ({ name, value }));

test('framing: the headers deployed authorization servers send refuse other origins; open or unread forms do not', () => {
  const refused = [
    h([['X-Frame-Options', 'DENY']]), // Django (authentik)
    h([['X-Frame-Options', 'sameorigin']]),
    h([
      ['X-Frame-Options', 'SAMEORIGIN'],
      ['Content-Security-Policy', "frame-src 'self'; frame-ancestors 'self'; object-src 'none';"],
    ]), // Keycloak
    h([['Content-Security-Policy', "frame-ancestors 'none'"]]),
    h([['Content-Security-Policy', "default-src 'self'; frame-ancestors https://portal.partner.example"]]), // a named partner
    h([['Content-Security-Policy', "frame-ancestors 'self' *.example.com"]]),
    h([['X-Frame-Options', 'DENY, SAMEORIGIN']]), // conflicting values are read as DENY
    // An open policy beside a closed one: each enforced policy must allow the frame.
    h([
      ['Content-Security-Policy', 'frame-ancestors *'],
      ['Content-Security-Policy', "frame-ancestors 'self'"],
    ]),
  ];
  for (const headers of refused) expect(framedBy(headers), JSON.stringify(headers)).toBeUndefined();
  const framed = [
    h([]),
    h([['X-Frame-Options', 'ALLOW-FROM https://portal.partner.example']]),
    h([['X-Frame-Options', 'ALLOWALL']]),
    h([['Content-Security-Policy', 'frame-ancestors *']]),
    h([['Content-Security-Policy', 'frame-ancestors https:']]),
    h([['Content-Security-Policy', "frame-ancestors 'self' https://*"]]),
    // frame-ancestors, where given, replaces X-Frame-Options.
    h([
      ['X-Frame-Options', 'DENY'],
      ['Content-Security-Policy', 'frame-ancestors *'],
    ]),
    h([['Content-Security-Policy', "default-src 'self'"]]), // no frame-ancestors, no X-Frame-Options
    h([['Content-Security-Policy-Report-Only', "frame-ancestors 'none'"]]), // reported, not enforced
  ];
  for (const headers of framed) expect(framedBy(headers), JSON.stringify(headers)).toBeDefined();
});
