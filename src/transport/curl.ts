// A failing request as one line to paste in a shell: `curl` with the same method, URL, headers and
// body, where each secret the suite knows by name is an environment variable reference
// ("Authorization: Bearer $VDS_TOKEN_FULL", never the token) and any other secret is [REDACTED].
// The variable is the one the target file takes the value from (`full: ${STAGING_TOKEN}` gives
// $STAGING_TOKEN), else VDS_TOKEN_<KEY> for a token the run minted.
import { bearerOf } from './bearer';
import type { Redactor } from '../util/redact';

export interface SecretRefs {
  /** The value of an extra header (target file `headers`) -> variable name. */
  headers: Map<string, string>;
  /** Bearer token value -> variable name. */
  bearer: Map<string, string>;
  /** A whole "Basic ..." header value -> the user and the password's variable name. */
  basic: Map<string, { user: string; passwordVar: string }>;
}

/** Single-quoted for a POSIX shell. */
function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Double-quoted for a POSIX shell, with `$NAME` references left to expand. */
function dqWith(text: string, ref: string): string {
  return `"${text.replace(/["\\`$]/g, '\\$&')}$${ref}"`;
}

export function curlCommand(
  request: { method: string; url: string; headers: Record<string, string>; body?: string },
  refs: SecretRefs,
  redactor: Redactor,
): string {
  const parts = ['curl', '-sS', '-i'];
  if (request.method !== 'GET' || request.body !== undefined) parts.push('-X', request.method);
  parts.push(sq(redactor.redact(request.url)));
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === 'authorization') {
      // The scheme's name as the request wrote it (AUTH-BEARER-CASE sends "bearer"): the rerun sends what failed.
      const bearer = bearerOf(value);
      const tokenVar = bearer ? refs.bearer.get(bearer.token) : undefined;
      const basic = refs.basic.get(value);
      if (tokenVar) parts.push('-H', dqWith(`Authorization: ${bearer!.scheme} `, tokenVar));
      else if (basic) parts.push('-u', dqWith(`${basic.user}:`, basic.passwordVar));
      else parts.push('-H', sq(redactor.redact(`${name}: ${value}`)));
      continue;
    }
    const headerVar = refs.headers.get(value);
    parts.push('-H', headerVar ? dqWith(`${name}: `, headerVar) : sq(redactor.redact(`${name}: ${value}`)));
  }
  if (request.body !== undefined) parts.push('--data-binary', sq(redactor.redact(request.body)));
  return parts.join(' ');
}
