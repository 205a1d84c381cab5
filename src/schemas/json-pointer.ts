// JSON Pointer tokens (RFC 6901 § 3-4): "~" is written "~0" and "/" is written "~1".
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
