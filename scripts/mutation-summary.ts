// What the mutation gate (scripts/mutation.ts) reports to npm test's summary: its power and precision
// through the README's command. Apart from mutation.ts so that npm test can read it without running it.

/** The gate's power and precision through `npm run conformance`. */
export interface GatePower {
  /** Faults the command exits 1 for, of all faults run. */
  faultsFailed: number;
  faults: number;
  /** Faults that break a statement of the spec and fail the core class, of those faults. */
  specFaultsFailCore: number;
  specFaults: number;
  /** Conforming servers the command passes (exit 0, every check passing), of those run. */
  conformingPassed: number;
  conforming: number;
}

export function gatePowerLine(g: GatePower): string {
  return (
    `gate power (npm run conformance): ${g.faultsFailed}/${g.faults} reference faults exit 1; ` +
    `${g.specFaultsFailCore}/${g.specFaults} that break the spec fail the core class; ` +
    `precision: ${g.conformingPassed}/${g.conforming} conforming servers exit 0`
  );
}
