// Values in the catalogue that are computed at run time: dates relative to now, long strings, raw bodies.
//   @now, @now-40d   an RFC 3339 date-time (UTC, +00:00), now or n days ago
//   @repeat(x,2000)  "x" repeated 2000 times
//   @raw(text)       a request body sent as is (not JSON-encoded)

const DAY = 86_400_000;

export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function expandTemplate(value: string, now = new Date()): string {
  const date = /^@now(?:-(\d+)d)?$/.exec(value);
  if (date) return rfc3339(new Date(now.getTime() - Number(date[1] ?? 0) * DAY));
  const repeat = /^@repeat\((.+),(\d+)\)$/.exec(value);
  if (repeat) return repeat[1].repeat(Number(repeat[2]));
  return value;
}

/** Expands every string of a JSON-like value (objects, arrays) with expandTemplate. */
export function expandDeep<T>(value: T, now = new Date()): T {
  if (typeof value === 'string') return expandTemplate(value, now) as T;
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, now)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandDeep(v, now)])) as T;
  }
  return value;
}

/** `@raw(text)` marks a body to send as is; anything else is sent as JSON. */
export function rawBody(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? /^@raw\(([\s\S]*)\)$/.exec(value) : null;
  return raw ? raw[1] : undefined;
}

/**
 * An id of the same shape as a known one that names nothing: integers become a large integer that
 * still fits 32 bits; other ids keep their shape (digit for digit, letter for letter, case kept).
 */
export function unknownIdLike(known: string): string {
  if (/^\d+$/.test(known)) return known === '2147480731' ? '2147480732' : '2147480731';
  return [...known]
    .map((c) => {
      if (/[0-9]/.test(c)) return String((Number(c) + 5) % 10);
      if (/[a-f]/.test(c) && /^[0-9a-f]+$/.test(known)) return 'abcdef'[('abcdef'.indexOf(c) + 3) % 6];
      if (/[a-z]/.test(c)) return String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97);
      if (/[A-Z]/.test(c)) return String.fromCharCode(((c.charCodeAt(0) - 65 + 13) % 26) + 65);
      return c;
    })
    .join('');
}
