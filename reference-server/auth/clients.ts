// Registered OAuth applications (public, fake test identities from docs/ARCHITECTURE.md).

export const SCOPES = ['users_read', 'cars_read', 'cars_write', 'status_read', 'locations_read', 'signals_read', 'trips_read', 'devices_management'] as const;

export type Scope = (typeof SCOPES)[number];

export interface Application {
  clientId: string;
  secret: string;
  name: string;
  scopes: readonly Scope[];
  redirectUris: readonly string[];
}

const REDIRECT_URI = 'http://localhost:9/vds/callback';
/** A vendor's app callback on a host that does not exist: the code is read from the navigation, whatever that host does. */
const APP_REDIRECT_URI = 'https://app.vds-vendor.invalid/oauth/callback';

export const APPLICATIONS: readonly Application[] = [
  {
    clientId: 'vds-conformance',
    secret: 'reference-client-secret',
    name: 'VDS conformance suite',
    scopes: SCOPES,
    redirectUris: [REDIRECT_URI, APP_REDIRECT_URI],
  },
  {
    clientId: 'vds-limited',
    secret: 'limited-client-secret',
    name: 'VDS limited client',
    scopes: ['users_read', 'cars_read'],
    redirectUris: [REDIRECT_URI, APP_REDIRECT_URI],
  },
];

/**
 * Variant encoded-credentials: the applications' secrets hold what HTTP Basic must encode (RFC 6749
 * § 2.3.1: form-urlencoded before base64): a space, '+', '%', '&', ':', '/' and non-ASCII letters.
 */
export const ENCODED_SECRETS: Readonly<Record<string, string>> = {
  'vds-conformance': 'Sécr3t +%41&:/ vds',
  'vds-limited': 'L1mité +%2B&:/ ü',
};

/**
 * The same for an authorization server that keeps to RFC 6749 Appendix A.2 (a client secret is
 * VSCHAR: printable ASCII, the space included), as oidc-provider does (variant authorization-server-oidc).
 */
export const ENCODED_VSCHAR_SECRETS: Readonly<Record<string, string>> = {
  'vds-conformance': 'S3cr3t +%41&:/ vds',
  'vds-limited': 'L1mit +%2B&:/ x',
};

/** The application's secret: the seeded one, or variant encoded-credentials' (`encoded`; printable ASCII only where `vschar`). */
export function secretOf(app: Application, encoded: boolean, vschar = false): string {
  return (encoded && (vschar ? ENCODED_VSCHAR_SECRETS : ENCODED_SECRETS)[app.clientId]) || app.secret;
}

export function findApplication(clientId: string | undefined): Application | undefined {
  return clientId === undefined ? undefined : APPLICATIONS.find((a) => a.clientId === clientId);
}
