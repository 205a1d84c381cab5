// What covers a sign-in page's control, and the choice a person makes to close it. Deployed sign-in
// pages often show, over their form, a cookie or consent banner (a consent manager's modal dialog and
// its backdrop) that takes every click until a choice is made; a person closes it first. Before it
// types into a field or clicks a control, the suite asks the page what its centre shows: the control
// itself, or something over it. When something is over it, the control to close that thing is looked
// for in it (its dialog, or the page's dialogs), and clicked: the most neutral choice first ("Close",
// "OK"), then the one that allows least ("Reject all", "Only necessary"), then "Accept"; never a
// control that leaves, refuses the application (a consent page's "Deny") or opens more choices
// ("Customize", "Settings"). Words in the languages the suite knows pages in (English, French,
// German, Spanish, Italian), as for the pages between the sign-in and the redirect (oauth.ts).
// A cover the suite cannot close stays: the click then waits it out and the sign-in fails, as it would
// for a person who cannot close it.
import type { Locator, Page } from '@playwright/test';

/** The attribute the page script puts on the control to click, so that Playwright clicks it as a person would. */
const MARK = 'data-vds-dismiss';

/** How many covers are closed in a row over one control, at most (a banner, then a second one). */
const MAX_COVERS = 3;

/**
 * The choices that close a cover, most neutral first. Each is matched against a control's whole name
 * (its text, value or aria-label), so that "Accept all" matches and "Accept the terms and sign in" does not.
 */
const CLOSE_CHOICES = [
  /^(×|✕|✖|x|close|dismiss|ok|okay|got it|fermer|d'accord|schließen|schliessen|verstanden|cerrar|entendido|de acuerdo|chiudi|ho capito)$/iu,
  /^(reject all|decline all|refuse all|reject|decline|only necessary|necessary only|essential only|use necessary cookies only|continue without accepting|tout refuser|refuser tout|refuser|continuer sans accepter|alle ablehnen|ablehnen|nur notwendige|rechazar todo|rechazar todas|rechazar|rifiuta tutto|rifiuta)$/iu,
  /^(accept|accept all|accept cookies|accept all cookies|allow all|allow all cookies|agree|i agree|i accept|accepter|tout accepter|j'accepte|accepter tout|akzeptieren|alle akzeptieren|zustimmen|alle zulassen|einverstanden|aceptar|aceptar todo|aceptar todas|acepto|accetta|accetta tutto|accetto)$/iu,
];

/**
 * Run in the page: whether the element's centre shows the element (or what it holds), and if not, the
 * control that closes what covers it (marked). Plain JavaScript in a string, as signin-form.ts's layout
 * reading: a transpiler's helpers would not exist in the page.
 */
const COVER_SCRIPT = String.raw`(el, { mark, choices }) => {
  for (const old of document.querySelectorAll('[' + mark + ']')) old.removeAttribute(mark);
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return { covered: false };
  if (box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth) el.scrollIntoView({ block: 'center', inline: 'center' });
  const at = el.getBoundingClientRect();
  const x = at.left + at.width / 2;
  const y = at.top + at.height / 2;
  // The element at that point, through open shadow roots.
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return { covered: false };
  const up = (node) => node.parentElement || (node.getRootNode() instanceof ShadowRoot ? node.getRootNode().host : null);
  const holds = (outer, inner) => { for (let n = inner; n; n = up(n)) if (n === outer) return true; return false; };
  // A label names its field: a click on it reaches the field.
  if (holds(el, hit) || holds(hit, el) || (hit.tagName === 'LABEL' && hit.control === el)) return { covered: false };
  const visible = (n) => { const b = n.getBoundingClientRect(); const s = getComputedStyle(n); return b.width > 0 && b.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const name = (n) => ((n.getAttribute('aria-label') || n.innerText || n.value || '') + '').replace(/\s+/g, ' ').trim();
  const controls = (root) => [...root.querySelectorAll('button, input[type=button], input[type=submit], [role=button], a[href="#"], a[role=button]')].filter(visible);
  // The cover: the outermost fixed, sticky or dialog element around what the point shows.
  let cover = null;
  for (let n = hit; n && n !== document.body && n !== document.documentElement; n = up(n)) {
    const s = getComputedStyle(n);
    if (s.position === 'fixed' || s.position === 'sticky' || n.getAttribute('role') === 'dialog' || n.getAttribute('role') === 'alertdialog' || n.getAttribute('aria-modal') === 'true' || n.tagName === 'DIALOG') cover = n;
  }
  // Its own controls, else those of the page's dialogs and fixed layers (a backdrop beside its dialog).
  const layers = [...document.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true], body *')].filter((n) => {
    if (n.closest('form') && n.closest('form').contains(el)) return false;
    const s = getComputedStyle(n);
    return n.matches('dialog, [role=dialog], [role=alertdialog], [aria-modal=true]') || s.position === 'fixed';
  });
  const candidates = [...new Set([...(cover ? controls(cover) : []), ...layers.flatMap(controls)])].filter((c) => !holds(c, el) && !holds(el, c));
  for (const words of choices.map((c) => new RegExp(c, 'iu'))) {
    const found = candidates.find((c) => words.test(name(c)));
    if (found) {
      found.setAttribute(mark, '');
      return { covered: true, close: name(found).slice(0, 40) };
    }
  }
  return { covered: true, by: (hit.getAttribute('aria-label') || hit.id || hit.className || hit.tagName || '') + '' };
}`;

/** COVER_SCRIPT as a function Playwright sends to the page as it is written (its source, not a transpiled copy). */
const coverReader = new Function(`return ${COVER_SCRIPT}`)() as (el: Element, args: { mark: string; choices: string[] }) => Cover;

interface Cover {
  covered: boolean;
  /** The name of the control marked to close it. */
  close?: string;
  /** What covers the control, when nothing closes it. */
  by?: string;
}

/**
 * Makes sure a person could reach the control: closes what covers it (a cookie banner), up to a few
 * covers in a row. Returns the choices clicked ("Reject all"); the control may still be covered when
 * nothing the suite recognises closes what is over it.
 */
export async function uncover(page: Page, control: Locator): Promise<string[]> {
  const clicked: string[] = [];
  const args = { mark: MARK, choices: CLOSE_CHOICES.map((c) => c.source) };
  for (let i = 0; i < MAX_COVERS; i++) {
    const { covered, close } = await control.evaluate(coverReader, args).catch((): Cover => ({ covered: false }));
    if (!covered || !close) break;
    await page.locator(`[${MARK}]`).first().click({ timeout: 5_000 });
    clicked.push(close);
    // The cover goes (a script removes it, or an animation ends): a moment before looking again.
    await page.waitForTimeout(100);
  }
  return clicked;
}
