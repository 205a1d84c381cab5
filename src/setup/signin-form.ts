// Finds the sign-in form on the service's page as a person would. The profile says only that
// GET /auth/auth is a sign-in web page (v3-profile.md § Sign-in page): nothing of its markup. So a
// field is taken from, in turn,
//   1. the target file's selector (oauth.signInPage.{username,password,submit}), and then only that;
//   2. its label (a <label>, aria-label, aria-labelledby), in the form that holds the password field;
//   3. the form's layout: its password field, the text or e-mail field just before it, and the
//      form's submit control (the one named like "sign in" or "continue" first): what a person
//      sees when the fields carry no label (a placeholder only, an <input type=email>, an
//      <input type=submit value=...>), skipping what is hidden (honeypots) and what is not an entry
//      (a "show password" button, a "remember me" box).
// A page that shows no control at all within the wait has no form (the server's doing: SIGNIN-PAGE
// fails on it); one whose controls cannot be told apart is the suite's limit, and its checks are not
// run, naming oauth.signInPage (signin-page-state.ts remembers it for the run).
// A sign-in in two steps (the e-mail and "Next", then the password on a page of its own) is read as
// such: a username field and a submit control without a password field, still so a moment after
// they showed, is the first step (`stage: 'password'` then finds the second page's field).
import type { Locator, Page } from '@playwright/test';
import type { Target } from './target';

type FieldName = 'username' | 'password' | 'submit';
const FIELD_NAMES: readonly FieldName[] = ['username', 'password', 'submit'];

interface SignInForm {
  /** Absent on the second page of a two-step sign-in (the account was given on the first). */
  username?: Locator;
  /** Absent on the first page of a two-step sign-in: the password comes on the next page. */
  password?: Locator;
  submit: Locator;
  /** Some field was found by the form's layout (no selector, no label): a reading of the page, not its word. */
  byLayout: boolean;
}

/** Which page of the sign-in is looked for: the first (one or two steps), or a two-step sign-in's password page. */
export type FormStage = 'first' | 'password';

export interface FormProblem {
  /** no-form: the page shows no control to sign in with; unidentified: controls the suite cannot tell apart. */
  kind: 'no-form' | 'unidentified';
  /** What was not found, in a reader's words. */
  missing: string[];
  /** On the second page of a two-step sign-in (the account was given on the first). */
  secondPage?: boolean;
}

export type FormSearch = { form: SignInForm } | { problem: FormProblem };

/** How long the form is awaited after the page loaded (a single-page application renders it later). */
export const FORM_WAIT_MS = 5_000;
const POLL_MS = 100;
/** A username field and a submit control without a password field for this long: the first page of two. */
const TWO_STEP_AFTER_MS = 300;

const USERNAME_LABEL = /e-?mail|user(name)?|login|identifier/i;
const PASSWORD_LABEL = /password|passcode/i;
const SUBMIT_NAME = /sign ?in|log ?in|connect|submit|continue|next/i;
/** A control that signs in another way than the form's fields: an identity provider, a passkey, a code by e-mail. */
const OTHER_WAY = /\bwith\b|\bvia\b|google|github|apple|microsoft|facebook|passkey|security key|\bsso\b|magic link|one-time|code by/i;
/** Inputs a username is typed into (type text is also what a missing or unknown type reads as). */
const TEXT_INPUT = 'input:is([type=text], [type=email], [type=tel], :not([type]))';
/** The attribute the layout reading puts on the fields it found, so that locators can name them. */
const MARK = 'data-vds-signin-field';

const WHAT: Record<FieldName, string> = { username: 'a username field', password: 'a password field', submit: 'a submit control' };

/** Looks for the fields, again and again until they are found or `waitMs` has passed. */
export async function findSignInForm(page: Page, target: Pick<Target, 'oauth'>, waitMs = FORM_WAIT_MS, stage: FormStage = 'first'): Promise<FormSearch> {
  const custom = target.oauth?.signInPage ?? {};
  const deadline = Date.now() + waitMs;
  let firstStepSince: number | undefined;
  for (;;) {
    const layout = await readLayout(page);
    const scope = layout.passwordInForm ? page.locator(`form:has([${MARK}="password"])`) : page;
    const found: Partial<Record<FieldName, Locator>> = {};
    let byLayout = false;
    for (const name of FIELD_NAMES) {
      const selector = custom[name];
      if (selector) {
        const given = page.locator(selector).filter({ visible: true }).first();
        if (await given.count()) found[name] = given;
        continue;
      }
      const labelled =
        name === 'username'
          ? scope.getByLabel(USERNAME_LABEL).and(page.locator(TEXT_INPUT))
          : name === 'password'
            ? scope.getByLabel(PASSWORD_LABEL).and(page.locator('input[type=password]'))
            : undefined;
      const first = labelled?.filter({ visible: true }).first();
      if (first && (await first.count())) {
        found[name] = first;
      } else if (layout.marked.includes(name)) {
        found[name] = page.locator(`[${MARK}="${name}"]`);
        // A submit control is the form's by HTML's own rules; the entry fields are a reading of the page.
        if (name !== 'submit') byLayout = true;
      } else if (name === 'submit') {
        const named = page.getByRole('button', { name: SUBMIT_NAME }).filter({ visible: true }).first();
        if (await named.count()) found[name] = named;
      }
    }
    if (found.username && found.password && found.submit) {
      return { form: { username: found.username, password: found.password, submit: found.submit, byLayout } };
    }
    // The second page of a two-step sign-in: its password field (the account was given before).
    if (stage === 'password' && found.password && found.submit) return { form: { password: found.password, submit: found.submit, byLayout } };
    // The first page of a two-step sign-in: the account, "Next", and no password field a moment later.
    if (stage === 'first' && found.username && found.submit && !found.password) {
      firstStepSince ??= Date.now();
      if (Date.now() - firstStepSince >= TWO_STEP_AFTER_MS) return { form: { username: found.username, submit: found.submit, byLayout } };
    } else firstStepSince = undefined;
    if (Date.now() >= deadline) {
      const wanted = stage === 'password' ? FIELD_NAMES.filter((n) => n !== 'username') : FIELD_NAMES;
      const missing = wanted.filter((n) => !found[n]).map((n) => (custom[n] ? `oauth.signInPage.${n} (${custom[n]}) matches nothing visible` : WHAT[n]));
      return { problem: { kind: layout.controls === 0 && !Object.keys(custom).length ? 'no-form' : 'unidentified', missing } };
    }
    await page.waitForTimeout(POLL_MS);
  }
}

interface Layout {
  /** Visible controls of any kind on the page; undefined when the page could not be read (it was navigating). */
  controls?: number;
  /** The fields the layout reading found (and marked). */
  marked: FieldName[];
  passwordInForm: boolean;
}

/**
 * The layout reading, run in the page: marks its password field, the text field before it and its
 * submit control, and counts the page's visible controls. Plain JavaScript in a string on purpose: a
 * TypeScript transpiler may add helpers to a function (esbuild's __name) that the page does not have.
 */
const LAYOUT_SCRIPT = String.raw`({ mark, submitName, otherWay }) => {
  const submitWords = new RegExp(submitName, 'i');
  const otherWords = new RegExp(otherWay, 'i');
  // Every element matching a selector, in the document and in the open shadow roots within it (a page
  // made of web components renders its form in one).
  const deep = (root, selector) => {
    const out = [...root.querySelectorAll(selector)];
    for (const host of root.querySelectorAll('*')) if (host.shadowRoot) out.push(...deep(host.shadowRoot, selector));
    return out;
  };
  for (const el of deep(document, '[' + mark + ']')) el.removeAttribute(mark);
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none' && Number(style.opacity) !== 0;
  };
  // What a person can use: shown on the page (not moved off it, as a field for bots is), enabled,
  // editable, reachable with the keyboard, and not hidden from assistive technology.
  const onPage = (el) => { const box = el.getBoundingClientRect(); return box.right + window.scrollX > 0 && box.bottom + window.scrollY > 0; };
  const usable = (el) => visible(el) && onPage(el) && !el.disabled && !el.readOnly && el.tabIndex >= 0 && !el.closest('[aria-hidden=true]');
  // In one tree, document order; across shadow trees, the order deep() found them in.
  const order = new Map(deep(document, '*').map((el, i) => [el, i]));
  const precedes = (a, b) => (order.get(a) ?? 0) < (order.get(b) ?? 0);
  const controls = deep(document, 'input:not([type=hidden]), textarea, select, button, [role=button], [contenteditable=true], [contenteditable=""]').filter(visible).length;
  const layout = { controls, marked: [], passwordInForm: false };
  const textLike = (el) => ['text', 'email', 'tel'].includes(el.type) && usable(el);
  const password = deep(document, 'input[type=password]').find(usable);
  // Without a password field (the first step of a two-step sign-in), the first text field stands
  // for the form, so that what is missing is named: the password field.
  const anchor = password || deep(document, 'input').find(textLike);
  if (!anchor) return layout;
  const form = anchor.form || anchor.closest('form');
  const within = (selector) => (form ? [...form.querySelectorAll(selector)] : deep(document, selector));
  let username = anchor;
  if (password) {
    password.setAttribute(mark, 'password');
    layout.marked.push('password');
    layout.passwordInForm = Boolean(form);
    // The text or e-mail field just before the password; in a form, else its first such field.
    const texts = within('input').filter(textLike);
    username = texts.filter((el) => precedes(el, password)).pop() || (form ? texts[0] : undefined);
  }
  if (username) {
    username.setAttribute(mark, 'username');
    layout.marked.push('username');
  }
  // The form's submit controls (a <button> without type submits; type=button does not); without a
  // form, the controls after the fields. The one a person presses after typing is the first after the
  // fields named like signing in, not one that signs in another way ("Sign in with GitHub", a passkey)
  // that some pages put in the same form above the fields.
  const name = (el) => (el.innerText || '') + ' ' + (el.value || '') + ' ' + (el.getAttribute('aria-label') || '');
  const submits = within('button, input[type=submit], input[type=image], [role=button]')
    .filter((el) => usable(el) && (el.tagName !== 'BUTTON' || el.type === 'submit') && (form || precedes(anchor, el)));
  const after = submits.filter((el) => precedes(anchor, el));
  const plain = (el) => !otherWords.test(name(el));
  const named = (el) => submitWords.test(name(el));
  const submit =
    after.find((el) => named(el) && plain(el)) ||
    submits.find((el) => named(el) && plain(el)) ||
    after.find(plain) ||
    submits.find(named) ||
    (form ? submits.find((el) => el.tagName === 'BUTTON' || el.tagName === 'INPUT') : undefined);
  if (submit) {
    submit.setAttribute(mark, 'submit');
    layout.marked.push('submit');
  }
  return layout;
}`;

async function readLayout(page: Page): Promise<Layout> {
  const args = JSON.stringify({ mark: MARK, submitName: SUBMIT_NAME.source, otherWay: OTHER_WAY.source });
  // A page that is navigating cannot be read: the layout is then unknown (never "no control").
  return page
    .evaluate(`(${LAYOUT_SCRIPT})(${args})`)
    .then((l) => l as Layout)
    .catch(() => ({ marked: [], passwordInForm: false }));
}
