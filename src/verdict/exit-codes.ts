// The exit status of a conformance run, one table for the wrapper, its --help, the README and the
// tests. The certificate's gate decides 0, 1 or 3 (src/verdict/gate.ts); 2 is decided before any run.
export const EXIT = {
  /** The gate passed (no gated class is FAIL; or no baseline regression; or nothing got worse). */
  passed: 0,
  /** The server does not conform, or the baseline, comparison or completeness gate failed. */
  failed: 1,
  /** Bad options or a bad target file: nothing was run. */
  usage: 2,
  /** The target could not be reached, or the run broke (no complete certificate). */
  broken: 3,
} as const;

export const EXIT_HELP = `Exit status:
  ${EXIT.passed}  the gate passed: no requirement of the gated classes failed (by default core and profile;
     --gate core: the spec's only; with --baseline: no regression; with --compare: nothing got worse;
     with --require-complete or --certify: nothing left unrun). Advisory requirements only warn
  ${EXIT.failed}  the server does not conform (a requirement of a gated class failed), or the baseline,
     comparison or completeness gate failed
  ${EXIT.usage}  bad options or a bad target file: nothing was run
  ${EXIT.broken}  the target could not be reached, or the run broke before its verdict`;
