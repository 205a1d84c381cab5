// What the proof of the suite's power and precision runs, shared by its two runners: npm test's
// in-process gate (tests/self/power/) and the maintainers' release check through the command once per
// fault (scripts/mutation.ts). One plan, so both prove the same thing:
//   - the conforming servers (precision): which, on which target, and what each may leave unrun
//     because the server cannot show it;
//   - per fault (power): the target that shows it, whether it breaks the spec (then only core checks
//     run, and the core class must fail), and the requirements to try first (those that caught it
//     before: tests/self/power/fault-kills.yaml), else every check of the class;
//   - what "caught" means: exit status 1 on a failing check, and core FAIL for a fault of the spec.
import type { Catalogue } from '../src/catalogue/catalogue';
import { faultFamily, faultSpecs, parseFaultSpec } from '../reference-server/fault-specs';
import { FAULT_FAMILIES, faultInfo, FAULTS, isFaultName, type FaultFamily } from '../reference-server/faults';
import { VARIANTS, variantMode, variantRunsAlone, type VariantInfo } from '../reference-server/variants';
import type { KillMatrix } from './kill-matrix';

/** The registry seen through VariantInfo, so optional members read as optional. */
const REGISTRY: readonly VariantInfo[] = VARIANTS;

/**
 * The targets of the proof: the reference's target files, and two of its own making: `local-ci`, a CI
 * gate's (the target file gives long-lived tokens beside the OAuth credentials: scripts/reference-process.ts
 * givenTokens), and `persistent`, one server run twice without a reset.
 */
export type PlanTarget = 'local' | 'local-sandbox' | 'local-signin' | 'local-ci' | 'persistent';

/** A conforming server of the precision proof. */
export interface ConformingServer {
  label: string;
  target: PlanTarget;
  /** Variants of the reference (reference-server/variants.ts), comma-separated. */
  variant?: string;
  /** Requirements that may be reported as not run against this server (what it cannot show). */
  mayNotRun?: string[];
  /** What its target file says under `data`, where its variants' data has other ids than the seeded ones (variants.ts targetData). */
  targetData?: Record<string, string | number>;
}

/** The target file's `data` a set of variants asks for (their targetData together), if any. */
function targetDataOf(names: string[]): { targetData?: Record<string, string | number> } {
  const data = Object.assign({}, ...names.map((n) => REGISTRY.find((v) => v.name === n)?.targetData ?? {})) as Record<string, string | number>;
  return Object.keys(data).length ? { targetData: data } : {};
}

/**
 * What each conforming server cannot show, and so may leave not run (every other check must run
 * and pass). A server that keeps its state: the second run finds the pin device associated (no
 * documented request undoes a user association: the run makes no link of its own to offer the second
 * user either) and the lockable device locked (its malformed pin, sent last, is still judged: 400, or
 * 403 for the lock the run's first attempt met).
 */
export const MAY_NOT_RUN: Record<string, string[]> = {
  'quiet-month': ['QUERY-RANGE-DEFAULT', 'QUERY-LIMIT-DEFAULT-RANGE'],
  'persistent-second-run': ['CORE-DEVICE-PIN', 'DEV-PIN-ASSOCIATE', 'DEV-PIN-LINK-CROSS-USER', 'DEV-PIN-WRONG', 'DEV-PIN-LOCKOUT'],
};

/** The target on which a set of variants shows: a sandbox, the sign-in page, or the cloud API. */
export function variantTarget(names: string[]): PlanTarget {
  if (names.some((n) => variantMode(n) === 'sandbox')) return 'local-sandbox';
  // A variant of the sign-in page only shows when tokens are minted through it.
  return names.some((n) => VARIANTS.find((v) => v.name === n && 'signIn' in v && v.signIn)) ? 'local-signin' : 'local';
}

/**
 * The variants combined: a server taking every documented choice at once, as a vendor's
 * implementation differs from the reference in many ways together; and a sandbox taking them too (its
 * open routes answer with the same records and errors). A variant that leaves a requirement
 * unshowable (MAY_NOT_RUN) is left out: it runs alone, where that allowance cannot hide another
 * variant's false alarm; so is one that replaces a part other variants change (variants.ts `alone`:
 * the authorization server in place of the hand-written sign-in page and token endpoint).
 */
export function combinedVariantServers(): ConformingServer[] {
  const combinable = VARIANTS.map((v) => v.name as string).filter((n) => !MAY_NOT_RUN[n] && !variantRunsAlone(n));
  const cloud = combinable.filter((n) => variantMode(n) === 'cloud');
  return [
    { label: 'variants-combined', target: variantTarget(cloud), variant: cloud.join(','), ...targetDataOf(cloud) },
    { label: 'variants-combined-sandbox', target: 'local-sandbox', variant: combinable.join(','), ...targetDataOf(combinable) },
  ];
}

/**
 * What a variant that runs alone runs with all the same: the authorization server in place of the
 * hand-written one is proven with the client secrets and passwords HTTP Basic and forms must encode
 * (its client authentication decodes them as RFC 6749 § 2.3.1 writes them).
 */
const ALONE_WITH: Record<string, string[]> = { 'authorization-server-oidc': ['encoded-credentials'] };

export function variantAlone(name: string): ConformingServer {
  const variant = [name, ...(ALONE_WITH[name] ?? [])];
  return {
    label: `variant-${variant.join('+')}`,
    target: variantTarget(variant),
    variant: variant.join(','),
    mayNotRun: MAY_NOT_RUN[name],
    ...targetDataOf(variant),
  };
}

/**
 * The conforming servers: clean (cloud, sandbox, tokens from the sign-in page), twice on one server
 * that keeps its state, and the variants: combined, plus alone those that cannot be combined (the
 * gate), or plus each alone (`eachVariantAlone`: which variant a false alarm comes from).
 */
export function conformingServers(eachVariantAlone = false): ConformingServer[] {
  const alone = VARIANTS.map((v) => v.name as string).filter((n) => eachVariantAlone || MAY_NOT_RUN[n] || variantRunsAlone(n));
  return [
    { label: 'clean-local', target: 'local' },
    { label: 'clean-local-sandbox', target: 'local-sandbox' },
    { label: 'clean-local-signin', target: 'local-signin' },
    { label: 'clean-local-ci', target: 'local-ci' },
    { label: 'persistent-twice', target: 'persistent', variant: 'dissociate-keeps-user-link' },
    ...combinedVariantServers(),
    ...alone.map(variantAlone),
  ];
}

/** The fault breaks a statement of the spec (reference-server/faults.ts `breaks: S-...`). */
export function breaksTheSpec(spec: string): boolean {
  const { name } = parseFaultSpec(spec);
  return FAULTS.find((f) => f.name === name)?.breaks.startsWith('S-') ?? false;
}

/** The variant a fault lives in (reference-server/faults.ts `variant`): its runs start the reference with it. */
export function faultVariant(spec: string): string | undefined {
  const { name } = parseFaultSpec(spec);
  return isFaultName(name) ? faultInfo(name).variant : undefined;
}

export type FaultPlanTarget = 'local' | 'local-sandbox' | 'local-ci';

/**
 * Sandbox faults only show on a sandbox target (so does a fault living in a sandbox variant); every
 * other fault on the cloud-mode reference, its run's tokens from the control API. A fault of the
 * sign-in page or of the token endpoint, the reference's own or a variant's authorization server's,
 * is seen by the checks that sign in through the page and exchange the code themselves (SIGNIN-*,
 * TOKEN-*, CORE-TOKEN-ENDPOINT): minting the run's tokens there too would add a dozen sign-ins to each
 * of its runs and show nothing they do not. The conforming variant itself runs with every token
 * minted through its page (conformingServers: variantTarget), where the minting is what is proven.
 * A fault of the tokens a server issues (faults.ts `givenTokens`) is proven on a CI gate's target too,
 * whose file gives long-lived tokens beside the OAuth credentials (`local-ci`), or only there.
 */
export function faultTargets(spec: string): FaultPlanTarget[] {
  const variant = faultVariant(spec);
  const plain = (variant ? variantMode(variant) === 'sandbox' : faultFamily(spec) === 'sandbox') ? 'local-sandbox' : 'local';
  const { name } = parseFaultSpec(spec);
  const given = isFaultName(name) ? faultInfo(name).givenTokens : undefined;
  return given === 'only' ? ['local-ci'] : given === 'also' ? [plain, 'local-ci'] : [plain];
}

/** The target a fault is proven on first (faultTargets). */
export function faultTarget(spec: string): FaultPlanTarget {
  return faultTargets(spec)[0];
}

/** How the gate runs one fault. */
export interface FaultGatePlan {
  spec: string;
  /** The first of `targets`. */
  target: FaultPlanTarget;
  /** Every target it must be caught on (faultTargets). */
  targets: FaultPlanTarget[];
  /** The variant the reference runs with (the fault lives in it). */
  variant?: string;
  /** The statement it breaks (reference-server/faults.ts). */
  breaks: string;
  /** Breaks the spec: the core class must fail. */
  breaksSpec: boolean;
  /** The requirements that caught it before (at most three, never advisory; for a fault of the spec its core ones, and the checks that fed what they judged); undefined: none known. */
  first?: string[];
  /**
   * When those miss it, the runs to try in turn: every core check, then every check, for a fault of the
   * spec (a core check may judge what a profile check provokes: CORE-ERROR-BODY); every check otherwise.
   */
  fallbackGreps: Array<string | undefined>;
}

export function faultGatePlan(spec: string, catalogue: Catalogue, kills: KillMatrix): FaultGatePlan {
  const breaksSpec = breaksTheSpec(spec);
  // Advisory requirements only warn (they cannot make the run exit 1).
  const known = (kills[spec] ?? []).map((id) => catalogue.requirements.find((q) => q.id === id)).filter((r) => r !== undefined && !r.advisory);
  // A spec fault must fail core: its core killers; and when one of them judges what other checks
  // received (CORE-ERROR-BODY), those that provoked it too (a stop at the first failure spares it).
  const core = known.filter((r) => r!.class === 'core');
  const provokers = core.some((r) => r!.judgesErrorsSeen) ? known.filter((r) => r!.class !== 'core') : [];
  const killers = (breaksSpec ? [...core, ...provokers] : known).map((r) => r!.id);
  return {
    spec,
    target: faultTarget(spec),
    targets: faultTargets(spec),
    ...(faultVariant(spec) ? { variant: faultVariant(spec) } : {}),
    breaks: FAULTS.find((f) => f.name === parseFaultSpec(spec).name)?.breaks ?? '',
    breaksSpec,
    ...(killers.length ? { first: killers.slice(0, 3) } : {}),
    fallbackGreps: breaksSpec ? ['@core', undefined] : [undefined],
  };
}

/** What a run against a fault showed, as far as "caught" is concerned. */
export interface FaultRunOutcome {
  exitCode: number | null;
  failedChecks: number;
  coreFailed: boolean;
}

/** A fault is caught when the command exits 1 on a failing check, and for a fault that breaks the spec, the core class fails. */
export function isCaught(o: FaultRunOutcome, breaksSpec: boolean): boolean {
  return o.exitCode === 1 && o.failedChecks > 0 && (!breaksSpec || o.coreFailed);
}

/** The faults npm test's gate proves: every plain fault, and every per-route fault on its first route. */
export function gateFaultSpecs(): string[] {
  return faultSpecs({ firstRouteOnly: true });
}

/**
 * The families of the end-to-end sample, each for what its checks bring to the exit status through the
 * command (Playwright's tests, fixtures, workers and reporter, which the in-process proof does not
 * take): between them every route group (a test file of tests/conformance each), both classes and both
 * targets (tests/self/power/command-sample.test.ts holds the sample to it). Each fault of the families
 * left out is caught through the same runCheck and gate in-process (faults.test.ts), and through the
 * command by the release check (scripts/mutation.ts --release).
 */
export const COMMAND_SAMPLE_FAMILIES: Partial<Record<FaultFamily, string>> = {
  status: 'a per-route check of the spec: the core class fails through the reporter',
  scopes: 'a per-route check of the profile, with a token of its own',
  'cross-user': "the second user's token",
  geojson: "the cars group's checks (its GeoJSON route), of the spec",
  coherence: 'a check run once across routes',
  devices: 'the device checks, which write, in their own lane',
  'token-endpoint': "the code exchange, and a variant's own authorization server",
  'sign-in': 'the browser: the sign-in page',
  sandbox: 'the sandbox target, tokens or none',
};

/**
 * The end-to-end sample through the README's command: one fault of each family of
 * COMMAND_SAMPLE_FAMILIES, its first per-route fault where it has one (a per-route defect is one
 * route's handler), else its first fault (each family's order in the registry decides, so the sample
 * is the same on every run; it holds faults of the spec and of the profile alike). The first fault
 * that lives in each variant joins it: the power through a real part (the authorization server) is
 * shown through the command too.
 */
export function commandSampleFaults(): string[] {
  const specs = gateFaultSpecs();
  const perFamily = FAULT_FAMILIES.filter((family) => family in COMMAND_SAMPLE_FAMILIES)
    .map((family) => {
      const ofFamily = specs.filter((s) => faultFamily(s) === family && !faultVariant(s));
      return ofFamily.find((s) => parseFaultSpec(s).route !== undefined) ?? ofFamily[0];
    })
    .filter((s): s is string => s !== undefined);
  const variants = [...new Set(specs.map(faultVariant).filter((v): v is string => v !== undefined))];
  return [...perFamily, ...variants.map((v) => specs.find((s) => faultVariant(s) === v)!)];
}
