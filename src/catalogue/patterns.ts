// The selection's own words, without the catalogue: the variables that carry --grep and --grep-invert
// to the checks, and the patterns that select checks by key or by requirement. The command line uses
// them before its runner starts, and loading the catalogue there (its schemas compiled) would only
// delay that start; selection.ts applies them to the catalogue's checks.
import { escapeRegExp } from '../util/regexp';

export const SELECTION_ENV = { grep: 'VDS_GREP', grepInvert: 'VDS_GREP_INVERT' } as const;

/** A selection of exactly these checks, by key. */
export function keysPattern(keys: string[]): string {
  return `^(${keys.map(escapeRegExp).join('|')}) @`;
}

/** A selection of every check of these requirements, by their id tag. */
export function requirementsPattern(ids: string[]): string {
  return `@(${ids.map(escapeRegExp).join('|')})(?![\\w-])`;
}

/**
 * Playwright's --grep / --grep-invert (and -g / -G) in a command line, as selection env vars: how a
 * direct `playwright test --grep @core` selects checks as well as tests.
 */
export function selectionEnvFromArgv(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const names: Record<string, keyof typeof SELECTION_ENV> = { '--grep': 'grep', '-g': 'grep', '--grep-invert': 'grepInvert', '-G': 'grepInvert' };
  for (let i = 0; i < argv.length; i++) {
    const eq = argv[i].startsWith('--') ? argv[i].indexOf('=') : -1;
    const flag = eq > 0 ? argv[i].slice(0, eq) : argv[i];
    const which = names[flag];
    if (!which) continue;
    const value = eq > 0 ? argv[i].slice(eq + 1) : argv[++i];
    if (value !== undefined) out[SELECTION_ENV[which]] = value;
  }
  return out;
}
