// What the power and precision tests of one worker share: one reference server per mode (started
// when a test first needs it, then moved from fault to fault through its control API), one
// browser, the catalogue and the kill matrix. A test never starts a runner or a server of its own
// but where what it proves needs one (a conforming variant is a server of its own; the command
// sample runs the command).
import { test as base } from '@playwright/test';
import { chooseBrowser, sharedBrowser, type BrowserChoice, type BrowserSession } from '../../../src/setup/browser';
import { loadCatalogue, type Catalogue } from '../../../src/catalogue/catalogue';
import type { Target } from '../../../src/setup/target';
import type { CheckRecord } from '../../../src/verdict/check-record';
import { CoreReach } from './core-reach';
import { requirementKills, type KillMatrix } from '../../../scripts/kill-matrix';
import type { FaultPlanTarget } from '../../../scripts/power-plan';
import { startReference, type Reference } from '../../../scripts/reference-process';

interface WorkerFixtures {
  /** This worker's reference for a target (cloud or sandbox mode) and a variant (a fault that lives in one), started on first use. */
  reference: (target: FaultPlanTarget, variant?: string) => Promise<Reference>;
  browserChoice: BrowserChoice;
  browserSession: BrowserSession;
  catalogue: Catalogue;
  kills: KillMatrix;
  /**
   * The restricted application's token on a reference of this worker (oauth.restrictedClientId, the
   * primary user), minted once through its control API to outlive fault switches: the proof that a
   * fault of the profile fails no core check runs CORE-DEVICE-SCOPE-RESTRICTED without a browser sign-in a fault.
   */
  keptRestrictedToken: (reference: Reference, target: Target) => Promise<string>;
  /**
   * Which core checks can see a fault (core-reach.ts), read off every core check run once against
   * this worker's clean reference with its fault guards traced.
   */
  coreReach: (reference: Reference, run: () => Promise<{ records: CheckRecord[] }>) => Promise<CoreReach>;
}

export const test = base.extend<object, WorkerFixtures>({
  reference: [
    async ({}, use) => {
      const started = new Map<string, Promise<Reference>>();
      await use((target, variant) => {
        const key = `${target} ${variant ?? ''}`;
        let r = started.get(key);
        // A CI gate's target: the reference's local one, its file giving long-lived tokens (kept across fault switches).
        if (!r) started.set(key, (r = startReference(target === 'local-ci' ? { variant, givenTokens: true } : { target, variant })));
        return r;
      });
      await Promise.all([...started.values()].map(async (r) => (await r.catch(() => undefined))?.stop()));
    },
    { scope: 'worker' },
  ],
  browserChoice: [async ({}, use) => use(chooseBrowser()), { scope: 'worker' }],
  browserSession: [
    async ({ browserChoice }, use) => {
      const browser = sharedBrowser(browserChoice);
      await use(browser.session);
      await browser.close();
    },
    { scope: 'worker' },
  ],
  catalogue: [async ({}, use) => use(loadCatalogue()), { scope: 'worker' }],
  kills: [async ({ catalogue }, use) => use(requirementKills(catalogue) ?? {}), { scope: 'worker' }],
  coreReach: [
    async ({ catalogue }, use) => {
      const traces = new Map<string, Promise<CoreReach>>();
      await use((reference, run) => {
        let trace = traces.get(reference.control);
        if (!trace) {
          traces.set(
            reference.control,
            (trace = (async () => {
              await reference.setFault(null);
              await reference.traceGuards(true);
              try {
                const { records } = await run();
                return new CoreReach(records, await reference.reachedGuards(), (id) => catalogue.requirement(id).judgesErrorsSeen);
              } finally {
                await reference.traceGuards(false);
              }
            })()),
          );
        }
        return trace;
      });
    },
    { scope: 'worker' },
  ],
  keptRestrictedToken: [
    async ({}, use) => {
      const tokens = new Map<string, Promise<string>>();
      await use((reference, target) => {
        let token = tokens.get(reference.control);
        if (!token) tokens.set(reference.control, (token = reference.keptToken(target.oauth!.restrictedClientId!, target.oauth!.username!)));
        return token;
      });
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
