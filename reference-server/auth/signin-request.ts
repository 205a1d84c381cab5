// The sign-in link's parameters, as every sign-in page reads them (oauth.ts, vendor-flows.ts).
import type { Query } from '../http/params';

/** First value of a query parameter (HTML routes are lenient with repeats). */
export function first(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface SignInRequest {
  clientId: string | undefined;
  redirectUri: string | undefined;
  scope: string | undefined;
  state: string | undefined;
}
