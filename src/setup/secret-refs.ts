// The run's secrets by the variable a curl line names them with (src/transport/curl.ts): each token of
// the run by the variable of the target file it came from, else VDS_TOKEN_<KEY>; the client secret; the
// extra headers' values.
import type { SecretRefs } from '../transport/curl';
import type { RunContext } from './run-context';
import type { Target } from './target';

/** The variable a token key is shown as: VDS_TOKEN_FULL, VDS_TOKEN_WITHOUT_SCOPE_CARS_READ, ... */
function tokenVariable(key: string): string {
  return `VDS_TOKEN_${key
    .replace(/\./g, '_')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;
}

export function secretRefs(target: Target, run: Pick<RunContext, 'tokens'>): SecretRefs {
  const bearer = new Map<string, string>();
  for (const [key, value] of Object.entries(run.tokens)) {
    if (value) bearer.set(value, target.vars[`tokens.${key}`] ?? tokenVariable(key));
  }
  const basic = new Map<string, { user: string; passwordVar: string }>();
  const o = target.oauth;
  if (o?.clientId && o.clientSecret) {
    const header = `Basic ${Buffer.from(`${o.clientId}:${o.clientSecret}`).toString('base64')}`;
    basic.set(header, { user: o.clientId, passwordVar: target.vars['oauth.clientSecret'] ?? 'VDS_CLIENT_SECRET' });
  }
  const headers = new Map<string, string>();
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    const variable = target.vars[`headers.${name}`];
    if (variable) headers.set(value, variable);
  }
  return { bearer, basic, headers };
}
