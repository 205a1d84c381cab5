// Request bodies arrive as raw strings (app.ts installs one catch-all parser), so that a bad body
// is judged by the route, after authentication, instead of by Fastify before it.

export type JsonParse = { ok: true; value: unknown } | { ok: false };

export function rawBody(body: unknown): string {
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  return '';
}

export function parseJson(body: unknown): JsonParse {
  const text = rawBody(body);
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A form body (application/x-www-form-urlencoded) or a JSON object, as string fields.
 * Repeated form fields keep their first value; non-string JSON values are dropped.
 * `malformed` is true when a JSON body was announced or attempted but could not be read.
 */
export function parseFields(body: unknown, contentType: string | undefined): { fields: Record<string, string>; malformed: boolean } {
  const text = rawBody(body);
  const fields: Record<string, string> = {};
  const isJson = (contentType ?? '').toLowerCase().includes('json');
  if (isJson) {
    const parsed = parseJson(text);
    if (!parsed.ok || !isPlainObject(parsed.value)) return { fields, malformed: text.trim() !== '' };
    for (const [k, v] of Object.entries(parsed.value)) {
      if (typeof v === 'string') fields[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') fields[k] = String(v);
    }
    return { fields, malformed: false };
  }
  for (const [k, v] of new URLSearchParams(text)) {
    if (!(k in fields)) fields[k] = v;
  }
  return { fields, malformed: false };
}
