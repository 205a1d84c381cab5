// The eight scopes of the API (v3-profile.md § Scopes per route; contracts/routes.yaml names them per route).
export const SCOPES = ['users_read', 'cars_read', 'cars_write', 'status_read', 'locations_read', 'signals_read', 'trips_read', 'devices_management'] as const;
export type Scope = (typeof SCOPES)[number];
