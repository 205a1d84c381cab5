// What the power and precision tests of one worker share: one reference server per mode (started
// when a test first needs it, then moved from fault to fault through its control API), one
// browser, the catalogue and the kill matrix. A test never starts a runner or a server of its own
// but where what it proves needs one (a conforming variant is a server of its own; the command
// sample runs the command).
import { test as base } from '@playwright/test';
import { chooseBrowser, sharedBrowser, type BrowserChoice, type BrowserSession } from '../../../harness/browser';
import { loadCatalogue, type Catalogue } from '../../../harness/catalogue';
import { requirementKills, type KillMatrix } from '../../../scripts/kill-matrix';
import { startReference, type Reference } from '../../../scripts/reference-process';

export type FaultTargetName = 'local' | 'local-sandbox';

interface WorkerFixtures {
  /** This worker's reference for a target (cloud or sandbox mode), started on first use. */
  reference: (target: FaultTargetName) => Promise<Reference>;
  browserChoice: BrowserChoice;
  browserSession: BrowserSession;
  catalogue: Catalogue;
  kills: KillMatrix;
}

export const test = base.extend<object, WorkerFixtures>({
  reference: [async ({}, use) => {
    const started = new Map<FaultTargetName, Promise<Reference>>();
    await use((target) => {
      let r = started.get(target);
      if (!r) started.set(target, (r = startReference({ target })));
      return r;
    });
    await Promise.all([...started.values()].map(async (r) => (await r.catch(() => undefined))?.stop()));
  }, { scope: 'worker' }],
  browserChoice: [async ({}, use) => use(chooseBrowser()), { scope: 'worker' }],
  browserSession: [async ({ browserChoice }, use) => {
    const browser = sharedBrowser(browserChoice);
    await use(browser.session);
    await browser.close();
  }, { scope: 'worker' }],
  catalogue: [async ({}, use) => use(loadCatalogue()), { scope: 'worker' }],
  kills: [async ({ catalogue }, use) => use(requirementKills(catalogue) ?? {}), { scope: 'worker' }],
});

export { expect } from '@playwright/test';
