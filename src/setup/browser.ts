// Which Chromium drives the sign-in page: VDS_BROWSER, else Debian's headless shell
// (/usr/bin/chromium-headless-shell), else Playwright's own build if installed, else Debian's
// /usr/bin/chromium. The headless shell is the build Playwright itself runs headless pages in: the
// same engine without the browser's window layers, measured here at half the time of a sign-in of the
// full browser (0.5 s against 1.1 s, its launch 0.25 s against 0.6 s). When there is none, the browser
// checks are not run (and say why, and how to get one). VDS_BROWSER=none runs without a browser on purpose.
import fs from 'node:fs';
import { runOptions } from '../options/options';
import { chromium, type Browser } from '@playwright/test';
import { reachOptions, type BrowserReach } from './browser-network';
import { stage } from '../transport/timeline';

export interface BrowserChoice extends Pick<BrowserReach, 'trustedKeys'> {
  executablePath?: string;
  /** Why there is no browser, when there is none. */
  missing?: string;
}

/** How to get a browser: the reason a browser check gives when there is none. */
const HOW_TO_GET_A_BROWSER =
  'get one with `npx playwright install chromium` (where downloads work), or the system package ' +
  '(Debian: `apt-get install chromium-headless-shell`, or `chromium`), or set VDS_BROWSER to a Chromium executable';

/** Debian's Chromium builds, the headless shell first (the lighter one). */
const SYSTEM_BUILDS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];

export function chooseBrowser(env: NodeJS.ProcessEnv = process.env): BrowserChoice {
  const given = runOptions(env).browser;
  if (given === 'none') return { missing: 'VDS_BROWSER=none (unset it where a Chromium is installed)' };
  if (given) {
    return fs.existsSync(given)
      ? { executablePath: given }
      : { missing: `VDS_BROWSER=${given} does not exist: point it at a Chromium executable, or unset it` };
  }
  if (fs.existsSync(SYSTEM_BUILDS[0])) return { executablePath: SYSTEM_BUILDS[0] };
  let bundled: string | undefined;
  try {
    bundled = chromium.executablePath();
  } catch {
    bundled = undefined;
  }
  if (bundled && fs.existsSync(bundled)) return { executablePath: bundled };
  const system = SYSTEM_BUILDS.slice(1).find((p) => fs.existsSync(p));
  if (system) return { executablePath: system };
  return {
    missing: `no Chromium found: ${HOW_TO_GET_A_BROWSER}`,
  };
}

/**
 * Chromium's own services that no page loads (autofill's field predictions, asked on every page with
 * a form; component updates), kept from the network: where DNS does not answer (a closed CI network),
 * each lookup stalls the sign-in page's loads (measured: thirteen sign-ins 58.7 s against 15.9 s).
 * Every other name resolves as the HTTP client resolves it.
 */
const CHROMIUM_SERVICES = ['content-autofill.googleapis.com', 'update.googleapis.com'];

/**
 * Launches the chosen Chromium to reach the target as the suite's HTTP client does (browser-network.ts:
 * the same proxy, the certificates the target's caFile vouches for); Playwright's own arguments
 * already keep it from most of its background traffic (shared/notes).
 */
export async function launchBrowser(choice: BrowserChoice): Promise<Browser> {
  if (!choice.executablePath) throw new Error(choice.missing);
  const reach = reachOptions(choice);
  const services = `--host-resolver-rules=${CHROMIUM_SERVICES.map((h) => `MAP ${h} ~NOTFOUND`).join(' , ')}`;
  return chromium.launch({ executablePath: choice.executablePath, ...reach, args: [...(reach.args ?? []), services] });
}

/** Runs `use` with the worker's browser; at most SIGN_INS_AT_ONCE uses at a time (sharedBrowser). */
export type BrowserSession = <T>(use: (browser: Browser) => Promise<T>) => Promise<T>;

/**
 * Sign-ins at once in a worker's browser (each in a context of its own). A sign-in mostly waits: for
 * its pages, a form rendered late, the redirect, and on a distant server its round trips, so a few at
 * once cost little more than one; more would compete for the two cores Chromium shares with the run.
 * The signin and unlabelled-form scenarios of npm run bench (every token through the sign-in page)
 * measure it, this constant changed.
 */
export const SIGN_INS_AT_ONCE = 4;

/**
 * One browser for a worker's checks, launched when a check first asks for it, and used by `uses`
 * sign-ins at a time (SIGN_INS_AT_ONCE unless told). `close` ends it, if it was launched.
 */
export function sharedBrowser(choice: BrowserChoice, uses = SIGN_INS_AT_ONCE): { session: BrowserSession; close: () => Promise<void> } {
  let launched: Promise<Browser> | undefined;
  // `uses` lanes, each one sign-in at a time; a sign-in takes the lane free soonest.
  const lanes: Array<Promise<unknown>> = Array.from({ length: Math.max(1, uses) }, () => Promise.resolve());
  let busy = lanes.map(() => 0);
  const session: BrowserSession = (fn) => {
    const lane = busy.indexOf(Math.min(...busy));
    busy = busy.map((n, i) => (i === lane ? n + 1 : n));
    const turn = lanes[lane].then(async () => fn(await (launched ??= launchBrowser(choice).finally(() => stage('browser launched')))));
    lanes[lane] = turn.catch(() => undefined);
    void lanes[lane].then(() => {
      busy = busy.map((n, i) => (i === lane ? n - 1 : n));
    });
    return turn;
  };
  const close = async () => {
    if (launched) await (await launched.catch(() => undefined))?.close().catch(() => undefined);
  };
  return { session, close };
}
