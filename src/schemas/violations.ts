// Turns ajv's raw errors (allErrors + verbose) into the few violations a vendor needs to read.
// ajv reports every failed branch of an anyOf and every non-matching item of a `contains`; most of
// that is noise for a reader, so it is collapsed here.
import type { ErrorObject } from 'ajv';
import { FORMAT_EXPECTATIONS } from './formats';
import { escapePointerToken } from './json-pointer';

export interface ContractViolation {
  /** JSON pointer into the checked body ("" is the body itself). */
  pointer: string;
  /** The JSON Schema keyword that failed (type, required, format, enum, ...). */
  keyword: string;
  /** What the contract expects, in words. */
  expected: string;
  /** The offending value (undefined for a missing property). */
  actual: unknown;
}

interface Raw {
  err: ErrorObject;
  pointer: string;
  keyword: string;
  types?: string[]; // for `type` errors: the allowed types
}

const COMBINATORS = new Set(['if', 'anyOf', 'oneOf']);

/** `b` is `a` or inside it. */
function atOrBelow(b: string, a: string): boolean {
  return b === a || b.startsWith(a + '/');
}

function typeList(err: ErrorObject): string[] {
  const t = (err.params as { type?: string | string[] }).type ?? [];
  return (Array.isArray(t) ? t : String(t).split(',')).map((s) => s.trim());
}

function expectedText(raw: Raw): string {
  const { err } = raw;
  const p = err.params as Record<string, unknown>;
  // A schema may carry `x-expected` (an annotation keyword) to phrase its constraints for readers.
  const hint = (err.parentSchema as Record<string, unknown> | undefined)?.['x-expected'];
  switch (err.keyword) {
    case 'type':
      return (raw.types ?? typeList(err)).join(' or ');
    case 'required':
      return `required property '${String(p.missingProperty)}'`;
  }
  if (typeof hint === 'string') return hint;
  switch (err.keyword) {
    case 'format':
      return FORMAT_EXPECTATIONS[String(p.format)] ?? `format ${String(p.format)}`;
    case 'enum':
      return `one of ${(p.allowedValues as unknown[]).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;
    case 'const':
      return `exactly ${JSON.stringify(p.allowedValue)}`;
    case 'minLength':
      return p.limit === 1 ? 'a non-empty string' : `a string of at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `a string of at most ${String(p.limit)} characters`;
    case 'minItems':
      return `at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `at most ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `a number ${String(p.comparison)} ${String(p.limit)}`;
    case 'pattern':
      return `a string matching /${String(p.pattern)}/`;
    case 'contains':
      return 'an item matching the contract';
    case 'anyOf':
    case 'oneOf':
      return 'one of the alternatives the contract allows';
    default:
      return err.message ?? err.keyword;
  }
}

export function toViolations(errors: readonly ErrorObject[]): ContractViolation[] {
  let raws: Raw[] = errors.map((err) => ({
    err,
    keyword: err.keyword,
    pointer:
      err.keyword === 'required'
        ? `${err.instancePath}/${escapePointerToken(String((err.params as { missingProperty: string }).missingProperty))}`
        : err.instancePath,
    types: err.keyword === 'type' ? typeList(err) : undefined,
  }));

  // 1. `contains` reports why each item did not match; only "no item matched" matters.
  const containsPaths = raws.filter((r) => r.keyword === 'contains').map((r) => r.err.schemaPath + '/');
  raws = raws.filter((r) => !containsPaths.some((sp) => r.err.schemaPath.startsWith(sp)));

  // 2. A type error at P next to another kind of error at P, or any error below P, came from an
  //    alternative the value did not take (e.g. the null branch of "location or null" when the
  //    location is present but wrong): the other error is the real one. (Within one schema a
  //    wrong type stops format/required/properties, so a real type error never has such company;
  //    enum/const may co-occur, and say the same thing better.)
  const others = raws.filter((r) => !COMBINATORS.has(r.keyword));
  raws = raws.filter(
    (r) => r.keyword !== 'type' || !others.some((o) => (o.pointer === r.pointer && o.keyword !== 'type') || o.pointer.startsWith(r.pointer + '/')),
  );

  // 3. Several type errors at one pointer (each branch of a nullable) become one: "object or null".
  const merged: Raw[] = [];
  for (const r of raws) {
    const same = r.keyword === 'type' ? merged.find((m) => m.keyword === 'type' && m.pointer === r.pointer) : undefined;
    if (same) same.types = [...new Set([...(same.types ?? []), ...(r.types ?? [])])];
    else merged.push({ ...r });
  }
  raws = merged;
  // Put "null" last: "object or null" reads better than "null or object".
  for (const r of raws) if (r.types) r.types.sort((a, b) => Number(a === 'null') - Number(b === 'null'));

  // 4. "must match a schema in anyOf" says nothing once the branch's own error is reported.
  raws = raws.filter((r) => !COMBINATORS.has(r.keyword) || !raws.some((o) => o !== r && atOrBelow(o.pointer, r.pointer)));

  // 5. An exact `const` (e.g. type MILEAGE) beats the wider `enum` of the base record at the same place.
  raws = raws.filter((r) => r.keyword !== 'enum' || !raws.some((o) => o.keyword === 'const' && o.pointer === r.pointer));

  // 6. Same pointer, keyword and expectation (e.g. `type: object` in both halves of an allOf): once.
  const seen = new Set<string>();
  const out: ContractViolation[] = [];
  for (const r of raws) {
    const v: ContractViolation = {
      pointer: r.pointer,
      keyword: r.keyword,
      expected: expectedText(r),
      actual: r.keyword === 'required' ? undefined : r.err.data,
    };
    const key = `${v.pointer}\u0000${v.keyword}\u0000${v.expected}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out;
}

function show(value: unknown, width = 100): string {
  if (value === undefined) return 'nothing (missing)';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** One readable line per violation, indented, at most `max` of them. */
export function describeViolations(violations: readonly ContractViolation[], max = 10): string {
  const lines = violations.slice(0, max).map((v) => `  at ${v.pointer === '' ? '(root)' : v.pointer}: expected ${v.expected}, got ${show(v.actual)}`);
  const more = violations.length - max;
  if (more > 0) lines.push(`  … and ${more} more violation${more === 1 ? '' : 's'}`);
  return lines.join('\n');
}
