// What a target cannot run, known before anything is sent: each input of contracts/inputs.yaml the
// target lacks (a token it neither gives nor can mint, a device it does not name, writes not allowed, no
// browser), why, in the words the checks' "not run" reasons use, how a vendor gets it, and which
// requirements it keeps from running (their checks' needs: src/catalogue/needs.ts). `vds-conformance
// init` and every `--certify` run print it; a certification it says cannot pass stops there (exit 2,
// src/cli/run.ts), before the run spends what it would spend (cars created, a device locked).
// Only what is certain before the run is listed: a token command that fails, a sign-in page the suite
// cannot use or an id discovery cannot find are the run's to say.
import { type Catalogue, type PlannedCheck, planChecks } from '../catalogue/catalogue';
import { checkNeeds, inputInfo, inputOf, type Need, type Readiness, type ReadinessItem } from '../catalogue/needs';
import type { BrowserChoice } from './browser';
import { missingSignInKeys } from './oauth';
import { noExpiredToken, usableKeptExpired } from './kept-expired';
import { noRevokedToken } from './token-commands';
import { SCOPES, type Target, type TokenKey } from './target';

/** The devices no route lists: a target file gives them, or their checks cannot run. */
const DEVICE_KEYS = ['freeDeviceId', 'devicePin', 'deviceForCarId', 'lockableDeviceId'];

/** Why writes are not allowed: the words of every check that needs them. */
export function writesNotAllowed(target: Pick<Target, 'source'>): string {
  return `writes are not allowed on this target (set allowWrites: true in ${target.source} to run it)`;
}

/** Why there is no browser: the words of every check that needs one. */
export function noBrowser(browser: Pick<BrowserChoice, 'missing'> | undefined): string {
  return `needs a browser for the sign-in page: ${browser?.missing ?? 'none was given to this check'}`;
}

/** A device the target file does not give (discovery has no route to find it). */
export function deviceNotGiven(target: Pick<Target, 'source'>, key: string): string {
  return `data.${key} is not in ${target.source} (devices cannot be discovered: there is no device listing route)`;
}

/** The readiness of `target` for a certification: every input it lacks, and the requirements each keeps from running. */
export function readinessOf(target: Target, catalogue: Catalogue, browser: BrowserChoice): Readiness {
  const items = new Map<string, ReadinessItem>();
  let checks = 0;
  const requirements = new Set<string>();
  for (const { check: p, missing } of checksThatCannotRun(target, catalogue, browser)) {
    const r = p.requirement;
    checks += 1;
    requirements.add(r.id);
    for (const [input, why] of missing) {
      const item = items.get(input) ?? { input, why, how: inputInfo()[input]?.how ?? '', requirements: [] };
      const entry = item.requirements.find((e) => e.id === r.id);
      if (entry) entry.checks += 1;
      else item.requirements.push({ id: r.id, class: r.class, checks: 1 });
      items.set(input, item);
    }
  }
  return { target: target.source, items: [...items.values()], checks, requirements: requirements.size };
}

/** Each counted check the target cannot run, with the inputs it lacks (the input and why). */
export function checksThatCannotRun(
  target: Target,
  catalogue: Catalogue,
  browser: BrowserChoice,
): Array<{ check: PlannedCheck; missing: Array<readonly [input: string, why: string]> }> {
  // What never counts, or what the environment rules out, is not the target's to give.
  if (tokenlessSandbox(target)) return [];
  const lacking = lackingInputs(target, browser);
  return planChecks(catalogue)
    .filter((p) => !p.requirement.advisory && p.requirement.env.includes(target.env))
    .map((check) => ({
      check,
      missing: checkNeeds(check, catalogue).flatMap((n) => {
        const why = lacking(n);
        return why ? [[inputOf(n), why] as const] : [];
      }),
    }))
    .filter((c) => c.missing.length > 0);
}

/** A sandbox without tokens: what needs one is not applicable there, never missing. */
function tokenlessSandbox(target: Target): boolean {
  return target.env === 'sandbox' && !Object.keys(target.tokens).length && !Object.keys(target.tokenCommands).length && !target.oauth?.clientId;
}

/** For each input a check may need: why this target lacks it, or undefined when it has it (or may: the run will say). */
function lackingInputs(target: Target, browser: BrowserChoice): (need: Need) => string | undefined {
  const o = target.oauth ?? {};
  const signIn = missingSignInKeys(target);
  const hasBrowser = !!browser.executablePath;
  const control = target.control;
  const mintsThroughControl = !!(control && control.mintTokens !== false && o.clientId && o.username);
  const mintProblem = signIn.length ? `the target file lacks ${signIn.join(', ')}` : hasBrowser ? undefined : browser.missing;
  const unset = (key: string) => (target.unset[key] ? ` (\${${target.unset[key]}} is not set)` : '');
  const given = (key: TokenKey) => {
    const [base, scope] = key.split('.') as [string, string | undefined];
    const value = scope ? target.tokens.withoutScope?.[scope as never] : (target.tokens as Record<string, string | undefined>)[base];
    return !!value || !!target.tokenCommands[key];
  };
  // The words of the run's own notes on a token it lacks (tokens.ts).
  const missingKeys = (direct: string, viaOauth: string[]) => {
    const unsetKeys = [direct, ...viaOauth].filter((k) => target.unset[k]).map((k) => `${k}${unset(k)}`);
    return `${direct} is not in ${target.source}, nor ${viaOauth.join(' + ')} to mint it` + (unsetKeys.length ? `; unset: ${unsetKeys.join(', ')}` : '');
  };
  const token = (key: TokenKey): string | undefined => {
    if (given(key)) return undefined;
    switch (key) {
      case 'expired':
        return control || usableKeptExpired(target) ? undefined : noExpiredToken(target, mintsThroughControl || !mintProblem);
      case 'revoked':
        return control ? undefined : noRevokedToken(target);
      case 'restrictedApp': {
        const absent = [
          ...(['restrictedClientId', 'restrictedClientSecret'] as const).filter((k) => !o[k]),
          ...(['username', 'password'] as const).filter((k) => !o[k]),
        ];
        if (absent.length) {
          return `needs tokens.restrictedApp, or oauth.${absent.join(', oauth.')} in ${target.source} to sign in through a second application without devices_management`;
        }
        return hasBrowser ? undefined : noBrowser(browser);
      }
      case 'otherUser':
        if (!o.otherUsername || !o.otherPassword) return missingKeys('tokens.otherUser', ['oauth.otherUsername', 'oauth.otherPassword']);
        break;
    }
    if (mintsThroughControl || !mintProblem) return undefined;
    return `tokens.${key} is not in ${target.source}, and it cannot be minted: ${mintProblem}`;
  };
  return (need) => {
    if (need === 'writes') return target.allowWrites ? undefined : writesNotAllowed(target);
    if (need === 'browser') return hasBrowser ? undefined : noBrowser(browser);
    if (need === 'oauth') return signIn.length ? `needs ${signIn.join(', ')} in ${target.source}` : undefined;
    if (need === 'oauth.restricted') {
      const absent = (['restrictedClientId', 'restrictedClientSecret'] as const).filter((k) => !o[k]).map((k) => `oauth.${k}`);
      return absent.length ? `needs a second registered application: ${absent.join(', ')} in ${target.source}` : undefined;
    }
    if (need === 'oauth.other') {
      const absent = (['otherUsername', 'otherPassword'] as const).filter((k) => !o[k]).map((k) => `oauth.${k}`);
      return absent.length ? `needs the second user's sign-in credentials: ${absent.join(', ')} in ${target.source}` : undefined;
    }
    if (need === 'code') return mintsThroughControl || hasBrowser ? undefined : noBrowser(browser);
    if (need === 'tokens.withoutScope') return SCOPES.map((scope) => token(`withoutScope.${scope}`)).find(Boolean);
    if (need.startsWith('tokens.')) return token(need.slice('tokens.'.length) as TokenKey);
    if (need.startsWith('data.')) {
      const key = need.slice('data.'.length);
      if (target.data[key as never]) return undefined;
      if (DEVICE_KEYS.includes(key)) return deviceNotGiven(target, key);
      if (key === 'otherDeviceId' && token('otherUser')) {
        return `data.otherDeviceId is not in ${target.source} and could not be discovered: no second user token (tokens.otherUser, or oauth.otherUsername + oauth.otherPassword)`;
      }
    }
    return undefined;
  };
}
