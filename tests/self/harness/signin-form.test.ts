// Finding the sign-in form as a person would (src/setup/signin-form.ts), on realistic markups with and
// without labels, in a real Chromium: the right field each time (never a search box, a honeypot, a
// "remember me" box or a "show password" button), a page with nothing to sign in with as no-form,
// and fields that cannot be told apart as unidentified. Skipped (with the reason) without a browser.
import { expect, test, type Browser, type Page } from '@playwright/test';
import { chooseBrowser, launchBrowser } from '../../../src/setup/browser';
import { findSignInForm, type FormSearch } from '../../../src/setup/signin-form';
import { signInRefused } from '../../../src/setup/oauth';
import { signInProblem } from '../../../src/setup/signin-page-state';
import { uncover } from '../../../src/setup/signin-overlay';

const choice = chooseBrowser();
let browser: Browser;

test.describe('sign-in form in Chromium', () => {
  test.skip(!choice.executablePath, `no Chromium: ${choice.missing}`);
  test.beforeAll(async () => {
    browser = await launchBrowser(choice);
  });
  test.afterAll(async () => browser?.close());

  /** The form search on this markup; the fields it found, by their name (or text, for a control). */
  async function search(html: string, signInPage: Record<string, string> = {}, waitMs = 400): Promise<{ result: FormSearch; names?: string[]; page: Page }> {
    const page = await browser.newPage();
    await page.setContent(`<!DOCTYPE html><html><body>${html}</body></html>`);
    const result = await findSignInForm(page, { oauth: { signInPage } }, waitMs);
    if (!('form' in result)) return { result, page };
    const id = (el: Element) => (el as HTMLInputElement).name || (el as HTMLElement).innerText || (el as HTMLInputElement).value;
    const names = await Promise.all([result.form.username, result.form.password, result.form.submit].map((l) => (l ? l.evaluate(id) : '')));
    return { result, names, page };
  }

  const cases: Array<{ name: string; html: string; expected: [string, string, string]; byLayout: boolean }> = [
    {
      name: 'labelled fields (the reference page)',
      html: `<form><label for="u">Email</label><input id="u" name="username" type="email"><label for="p">Password</label><input id="p" name="password" type="password"><button type="submit">Sign in</button></form>`,
      expected: ['username', 'password', 'Sign in'],
      byLayout: false,
    },
    {
      name: 'no label: a text field with a placeholder, a password, a "Continue" button',
      html: `<form><input name="login" type="text" placeholder="Email or username"><input name="password" type="password" placeholder="Password"><button>Continue</button></form>`,
      expected: ['login', 'password', 'Continue'],
      byLayout: true,
    },
    {
      name: 'no label: an e-mail field and an <input type=submit value=...>',
      html: `<form><input name="user" type="email"><input name="pass" type="password"><input type="submit" value="Log in"></form>`,
      expected: ['user', 'pass', 'Log in'],
      byLayout: true,
    },
    {
      name: 'a search box outside the form, a honeypot moved off the page, a "Show" button and a link in it',
      html: `<header><input name="q" type="text" placeholder="Search"></header>
        <form><input name="login" type="text"><input name="website" type="text" tabindex="-1" style="position:absolute;left:-10000px">
        <div><input name="password" type="password"><button type="button">Show</button></div><a href="#">Forgot your password?</a><button class="primary">Continue</button></form>`,
      expected: ['login', 'password', 'Continue'],
      byLayout: true,
    },
    {
      name: 'a "remember my login" box and a labelled "show password" button are not fields',
      html: `<form><input name="id" type="text" placeholder="Identifier"><input name="secret" type="password"><button type="button" aria-label="Show password">👁</button>
        <label><input name="remember" type="checkbox"> Remember my login</label><button type="button">Sign in with another account</button><button type="submit">Go</button></form>`,
      expected: ['id', 'secret', 'Go'],
      byLayout: true,
    },
    {
      name: 'no <form> (a single-page application): the fields and a role=button after them',
      html: `<div><input name="email" type="email"><input name="password" type="password"><div role="button" tabindex="0">Continue</div></div>`,
      expected: ['email', 'password', 'Continue'],
      byLayout: true,
    },
    {
      name: "the target file's selectors win over labels and layout",
      html: `<form><label for="a">Email</label><input id="a" name="decoy" type="email"><input name="real" type="text"><input name="pw" type="password"><button>Enter</button></form>`,
      expected: ['real', 'pw', 'Enter'],
      byLayout: false,
    },
    {
      name: 'a "Sign in with GitHub" submit above the fields in the same form (Ory Elements): the form\'s own "Sign in" after the fields',
      html: `<form method="POST"><input type="hidden" name="csrf_token" value="x"><button name="provider" value="github" type="submit">Sign in with GitHub</button>
        <label for="i">E-Mail</label><input id="i" name="identifier" type="text"><label for="p">Password</label><input id="p" name="password" type="password">
        <button name="method" value="password" type="submit">Sign in</button></form>`,
      expected: ['identifier', 'password', 'method'],
      byLayout: false,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const selectors: Record<string, string> = c.name.startsWith('the target file')
        ? { username: '[name=real]', password: '[name=pw]', submit: 'text=Enter' }
        : {};
      const { result, names, page } = await search(c.html, selectors);
      try {
        expect('form' in result ? names : result).toEqual(c.expected);
        expect('form' in result && result.form.byLayout).toBe(c.byLayout);
      } finally {
        await page.close();
      }
    });
  }

  test('a form rendered by a script after the page loaded is awaited', async () => {
    const page = await browser.newPage();
    try {
      await page.setContent(
        `<main></main><script>setTimeout(() => { document.querySelector('main').innerHTML = '<form><input name="login"><input name="password" type="password"><button>Continue</button></form>'; }, 300)</script>`,
      );
      const result = await findSignInForm(page, { oauth: {} }, 3000);
      expect('form' in result).toBe(true);
    } finally {
      await page.close();
    }
  });

  test('a page with no control at all shows no form; the first page of a two-step sign-in is one; fields that cannot be told apart are unidentified', async () => {
    const notice = await search('<h1>Sign in</h1><p>Signing in is not available at the moment.</p>');
    expect(notice.result).toEqual({ problem: { kind: 'no-form', missing: ['a username field', 'a password field', 'a submit control'] } });
    // The first step of a two-step sign-in: an e-mail field and "Next", the password on another page.
    const twoStep = await search('<form><input name="email" type="email"><button>Next</button></form>', {}, 1500);
    expect(twoStep.names, 'the first page of two: the account and "Next", no password field').toEqual(['email', '', 'Next']);
    // Two password fields and no field for the account: which is which cannot be told.
    const twoSecrets = await search('<form><input name="a" type="password"><input name="b" type="password"><button>Go</button></form>');
    expect(twoSecrets.result).toEqual({ problem: { kind: 'unidentified', missing: ['a username field'] } });
    const wrongSelector = await search('<form><input name="u"><input name="p" type="password"><button>Sign in</button></form>', { username: '#nope' });
    expect(wrongSelector.result).toEqual({ problem: { kind: 'unidentified', missing: ['oauth.signInPage.username (#nope) matches nothing visible'] } });
    for (const s of [notice, twoStep, twoSecrets, wrongSelector]) await s.page.close();
  });

  test('fields without labels in a shadow root are read from its layout (web components)', async () => {
    const page = await browser.newPage();
    try {
      await page.setContent(
        `<x-login></x-login><script>customElements.define('x-login', class extends HTMLElement { connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = '<form><input name="uid" placeholder="Login"><input name="pw" type="password"><button>Log in</button></form>'; } });</script>`,
      );
      const result = await findSignInForm(page, { oauth: {} }, 1000);
      expect('form' in result && (await result.form.password!.evaluate((el) => (el as HTMLInputElement).name))).toBe('pw');
    } finally {
      await page.close();
    }
  });

  test('a banner over the form is closed by the least a person agrees to; "Customize" and a consent "Deny" are never clicked', async () => {
    const page = await browser.newPage();
    try {
      const banner = (buttons: string) =>
        `<form><input name="u"><button id="go" type="submit">Connexion</button></form>
        <div id="cover" style="position:fixed;inset:0;background:rgba(0,0,0,.5)"><div role="dialog" aria-modal="true" style="background:#fff;margin:5rem;padding:1rem">${buttons}</div></div>
        <script>for (const b of document.querySelectorAll('#cover button')) b.onclick = () => { window.clicked = b.innerText; if (b.dataset.close) document.getElementById('cover').remove(); };</script>`;
      await page.setContent(banner('<button>Paramètres</button><button data-close="1">Tout refuser</button><button data-close="1">Tout accepter</button>'));
      expect(await uncover(page, page.locator('#go'))).toEqual(['Tout refuser']);
      expect(await page.evaluate(() => (window as unknown as { clicked: string }).clicked)).toBe('Tout refuser');
      await page.evaluate(() => delete (window as unknown as { clicked?: string }).clicked);
      await page.setContent(banner('<button>Deny</button><button>Manage settings</button>'));
      expect(await uncover(page, page.locator('#go')), 'nothing a person would choose to go on').toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { clicked?: string }).clicked)).toBeUndefined();
    } finally {
      await page.close();
    }
  });
});

test("a sign-in with the right credentials answered with an error status is the server's failure: a 5xx always, a 4xx unless the fields were read from the form's layout", () => {
  const refused = (errorStatus: number | undefined, byLayout: boolean, code?: string) => signInRefused({ errorStatus, byLayout, code });
  expect([refused(500, false), refused(503, true), refused(403, false), refused(401, false)]).toEqual([true, true, true, true]);
  // Read from the layout, the fields may not be the username and password: not run (signin-page-state.ts).
  expect(refused(401, true)).toBe(false);
  // No error status (a page the suite cannot go on from), or a code after all: nothing refused.
  expect([refused(undefined, false), refused(200, false), refused(500, false, 'a-code')]).toEqual([false, false, false]);
  expect(signInProblem({ errorStatus: 403, byLayout: false, pageText: 'Invalid CSRF token' }, { source: 't.yaml' })).toBeUndefined();
  expect(signInProblem({ errorStatus: 401, byLayout: true, pageText: 'Wrong password' }, { source: 't.yaml' })?.kind).toBe('layout-sign-in');
});
