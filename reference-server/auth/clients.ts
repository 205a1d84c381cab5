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

export function findApplication(clientId: string | undefined): Application | undefined {
  return clientId === undefined ? undefined : APPLICATIONS.find((a) => a.clientId === clientId);
}
