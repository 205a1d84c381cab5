// The one place that scrubs secrets (tokens, client secrets, passwords, codes, refresh tokens) from
// text before it reaches a log, an error message, an attachment or a report.
// Two layers: the run's actual secret values (known from the target file and from minting), and
// patterns that catch secrets the suite never saw (e.g. a token a server echoes back).

import { escapeRegExp } from './regexp';

export const REDACTED = '[REDACTED]';

const PATTERNS: Array<[RegExp, string]> = [
  // Authorization headers in any casing; the scheme stays visible because it matters to the checks.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // JSON members and form fields named like secrets.
  [/("(?:access_token|refresh_token|client_secret|password|code|token)"\s*:\s*")[^"]*(")/gi, `$1${REDACTED}$2`],
  [/\b((?:access_token|refresh_token|client_secret|password|code)=)[^&\s"'<>]+/gi, `$1${REDACTED}`],
];

export class Redactor {
  private secrets: string[] = [];
  /** All secrets as one alternation, longest first (so a secret containing another is replaced whole). */
  private pattern?: RegExp;

  constructor(values: Iterable<string | undefined> = []) {
    this.add(...values);
  }

  /** Registers secret values; short values are ignored (they would blank ordinary words). */
  add(...values: Array<string | undefined>): void {
    const before = this.secrets.length;
    for (const v of values) {
      if (typeof v === 'string' && v.length >= 6 && !this.secrets.includes(v)) {
        this.secrets.push(v);
        // Also as they appear once encoded in a URL or in HTTP Basic credentials.
        const encoded = encodeURIComponent(v);
        if (encoded !== v) this.secrets.push(encoded);
      }
    }
    // Known already (each request with a kept token adds its values again): the pattern stands.
    if (this.secrets.length === before) return;
    this.secrets.sort((a, b) => b.length - a.length);
    this.pattern = this.secrets.length ? new RegExp(this.secrets.map(escapeRegExp).join('|'), 'g') : undefined;
  }

  get values(): readonly string[] {
    return this.secrets;
  }

  redact(text: string): string {
    let out = this.pattern ? text.replace(this.pattern, REDACTED) : text;
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  }

  /** Redacts every string inside a JSON-like value. */
  redactValue<T>(value: T): T {
    return JSON.parse(this.redact(JSON.stringify(value ?? null))) as T;
  }
}
