// The plain-text tables that `--list-faults` and `--list-variants` print (cli.ts): one line per
// registry entry under a header, columns padded to the longest name.

import { faultRoutes } from './fault-specs';
import { type FaultInfo, type FaultName, FAULTS } from './faults';
import { type VariantInfo, VARIANTS } from './variants';

/** The fault registry as a table: name, family, description (a per-route fault: how to start it). */
export function formatFaultTable(): string {
  const faults: readonly FaultInfo[] = FAULTS;
  const nameWidth = Math.max(4, ...faults.map((f) => f.name.length));
  const familyWidth = Math.max(6, ...faults.map((f) => f.family.length));
  const line = (a: string, b: string, c: string) => `${a.padEnd(nameWidth)}  ${b.padEnd(familyWidth)}  ${c}`;
  const describe = (f: FaultInfo) =>
    f.routes ? `${f.description}; start as ${f.name}@<route>, e.g. ${f.name}@${faultRoutes(f.name as FaultName)[0]}` : f.description;
  return [line('NAME', 'FAMILY', 'DESCRIPTION'), ...faults.map((f) => line(f.name, f.family, describe(f)))].join('\n');
}

/** The variant registry as a table: name, description (with its mode when not cloud), the document line that allows it. */
export function formatVariantTable(): string {
  const variants: readonly VariantInfo[] = VARIANTS;
  const nameWidth = Math.max(4, ...variants.map((v) => v.name.length));
  const line = (name: string, description: string, allowedBy: string) => `${name.padEnd(nameWidth)}  ${description}  [allowed by: ${allowedBy}]`;
  const describe = (v: VariantInfo) => (v.mode ? `(${v.mode}) ${v.description}` : v.description);
  return [line('NAME', 'DESCRIPTION', 'DOCUMENT § SECTION'), ...variants.map((v) => line(v.name, describe(v), v.allowedBy))].join('\n');
}
