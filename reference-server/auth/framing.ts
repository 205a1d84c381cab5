// The headers with which the pages of signing in refuse to be framed by another site (RFC 9700
// § 4.16, clickjacking: a page that takes a password, shown invisibly inside an attacker's page).
// Each emulated authorization server sends what that product sends by default, so that the suite's
// framing check is proven against the forms deployed servers use, not only the reference's own.

import type { Faults, Variants } from '../switches';

/** The framing headers of a sign-in page, as the server the variants emulate sends them. */
export function framingHeaders(variants: Variants, faults: Faults): Record<string, string> {
  // fault signin-page-frameable: framing allowed to a partner portal with the obsolete ALLOW-FROM form,
  // which no current browser reads: every site may frame the page.
  if (faults.has('signin-page-frameable')) return { 'x-frame-options': 'ALLOW-FROM https://portal.partner.example' };
  // Keycloak's default browser security headers (realm settings, Security defenses).
  if (variants.has('signin-keycloak'))
    return { 'x-frame-options': 'SAMEORIGIN', 'content-security-policy': "frame-src 'self'; frame-ancestors 'self'; object-src 'none';" };
  // Authentik: Django's clickjacking middleware, DENY.
  if (variants.has('signin-authentik')) return { 'x-frame-options': 'DENY' };
  // Okta's hosted sign-in page with iframe embedding left off: same origin only.
  if (variants.has('signin-okta')) return { 'x-frame-options': 'SAMEORIGIN' };
  // Ory's hosted login UI: a policy of its own origin only.
  if (variants.has('signin-ory')) return { 'content-security-policy': "frame-ancestors 'self'" };
  // oidc-provider's interactions behind helmet, as its example deployment serves them (its framing headers only).
  if (variants.has('authorization-server-oidc')) return { 'x-frame-options': 'SAMEORIGIN', 'content-security-policy': "frame-ancestors 'self'" };
  return { 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" };
}
