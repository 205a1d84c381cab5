// A literal text inside a regular expression (secrets in the redactor, check keys in a selection).
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
