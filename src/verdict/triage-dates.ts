// The dates of a success answer, for the triage: each date member the route's contract declares
// (src/schemas/validate.ts dateMembers, with the formats of src/schemas/formats.ts), read from the
// recorded excerpt, and the shape of each one that does not follow its format ("ending in Z",
// "without an offset", "epoch seconds"). A server that writes every date in one other shape fails
// many checks at once for one fix. The excerpt may be cut (a long list): members are found by a
// pattern rather than by parsing, so the first items of a list still count.
import type { Exchange } from '../transport/api';
import type { Route } from '../catalogue/catalogue';
import { dateMembers, isCarDate, isRfc3339DateTime } from '../schemas/validate';

export interface WrongDate {
  member: string;
  /** The value as the answer wrote it (a JSON string's text, or a number). */
  value: string | number;
  /** The format it should follow: vds-car-date or vds-date-time. */
  format: string;
  /** Its shape in words, e.g. "ending in Z in place of an offset +hh:mm". */
  shape: string;
}

const membersOf = new Map<string, Map<string, string>>();

function members(contract: string): Map<string, string> {
  let m = membersOf.get(contract);
  if (!m) {
    try {
      m = dateMembers(contract);
    } catch {
      m = new Map();
    }
    membersOf.set(contract, m);
  }
  return m;
}

/** The dates of a success answer of `route` that do not follow their format. */
export function wrongDates(e: Exchange, route: Route): WrongDate[] {
  const contract = route.success.contract;
  if (!contract || !e.bodyExcerpt) return [];
  const formats = members(contract);
  if (!formats.size) return [];
  const names = [...formats.keys()].map((n) => n.replace(/[^\w]/g, '')).join('|');
  const pattern = new RegExp(`"(${names})"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?)`, 'g');
  const out: WrongDate[] = [];
  for (const m of e.bodyExcerpt.matchAll(pattern)) {
    const member = m[1];
    const format = formats.get(member)!;
    const value: string | number = m[2].startsWith('"') ? (JSON.parse(m[2]) as string) : Number(m[2]);
    const shape = wrongShape(value, format);
    if (shape) out.push({ member, value, format, shape });
  }
  return out;
}

/** How a date value departs from its format; undefined when it follows it. */
function wrongShape(value: string | number, format: string): string | undefined {
  if (typeof value === 'number') return value > 1e11 ? 'as epoch milliseconds (numbers)' : 'as epoch seconds (numbers)';
  if (format === 'vds-car-date' ? isCarDate(value) : isRfc3339DateTime(value)) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}/.test(value);
  if (!date) return /^\d+$/.test(value) ? 'as epoch numbers in strings' : 'in a shape that is not a date-time';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'as a date without a time';
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(value)) return 'with a space in place of the T';
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/i.test(value)) return 'without an offset (no Z or ±hh:mm)';
  if (/[+-]\d{4}$/.test(value)) return 'with an offset without a colon (±hhmm)';
  if (format === 'vds-car-date' && /z$/i.test(value)) return 'ending in Z in place of an offset +hh:mm';
  if (format === 'vds-car-date' && /\.\d+/.test(value)) return 'with fractional seconds';
  return 'in another shape';
}
