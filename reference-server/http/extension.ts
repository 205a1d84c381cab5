// The extra-fields variant: members that neither document knows, added to every JSON record the API
// answers. A client must ignore members it does not know; the variant proves the suite does too.

import type { Variants } from '../switches';

/** A serial number per record served: the member's value differs from answer to answer, like a request id. */
let served = 0;

/** The record, with the variant's extra member when the extra-fields variant is on. */
export function extraMembers<T extends Record<string, unknown>>(record: T, variants: Variants): T {
  // variant extra-fields: a vendor member on every record, never the same twice.
  return variants.has('extra-fields') ? { ...record, vendorExtension: { source: 'reference', serial: ++served } } : record;
}
