// tokenCommands: per token key, a shell command the target file gives for a token the suite cannot
// mint as such (a secrets manager, a company SSO, the operator's admin tool), run in the target file's
// folder with the run's environment (.env's variables among them). Its output is a secret.
// For the expired and the revoked tokens, where the suite can mint tokens, it mints one first and
// hands it to the command in VDS_TOKEN_TO_EXPIRE / VDS_TOKEN_TO_REVOKE: the operator's tool expires or
// revokes that token (an RFC 7009 revocation endpoint, an admin API) between the suite's two steps,
// and may print nothing; a command that prints a token gives that one instead.
import { execSync } from 'node:child_process';
import path from 'node:path';
import type { Redactor } from '../util/redact';
import type { Target, TokenKey } from './target';

/** The variable a handed-over token comes in, per key the operator's tool acts on. */
export const HANDED_OVER: Partial<Record<TokenKey, string>> = { expired: 'VDS_TOKEN_TO_EXPIRE', revoked: 'VDS_TOKEN_TO_REVOKE' };

/**
 * Runs tokenCommands.<key> (with `handed`, the token it is to act on, in its variable): the token it
 * printed, else `handed`; or why it gave none (its exit status and last line of error output, redacted).
 */
export function runTokenCommand(target: Target, key: TokenKey, redactor: Redactor, handed?: string): { token: string } | { note: string } {
  const command = target.tokenCommands[key]!;
  const variable = HANDED_OVER[key];
  try {
    const env = handed && variable ? { ...process.env, [variable]: handed } : process.env;
    // Run where the target file is, as its other relative paths are read (caFile): the run itself starts in the suite's folder.
    const cwd = target.file ? path.dirname(target.file) : undefined;
    const printed = execSync(command, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'], env, cwd }).trim();
    if (printed && /\s/.test(printed)) throw new Error('it printed more than one word');
    if (!printed && !handed) throw new Error('it printed nothing');
    if (printed) redactor.add(printed);
    return { token: printed || handed! };
  } catch (err) {
    const e = err as { status?: number; stderr?: string; message: string };
    const why =
      e.status !== undefined ? `it exited with status ${e.status}${e.stderr ? `: ${e.stderr.trim().split('\n').pop()}` : ''}` : e.message.split('\n')[0];
    return { note: `tokenCommands.${key} of ${target.source} gave no token: ${redactor.redact(why)}` };
  }
}

/** Why this target has no revoked token (readiness says it in the same words). */
export function noRevokedToken(target: Pick<Target, 'source' | 'unset'>): string {
  const unset = target.unset['tokens.revoked'];
  return `tokens.revoked is not in ${target.source}${unset ? ` (\${${unset}} is not set)` : ''}, nor tokenCommands.revoked, and the target has no control API to make one`;
}
