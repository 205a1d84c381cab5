// HTML of the sign-in page (GET/POST /v3/auth/auth) and of its 404 page. Every interpolated value
// is escaped: client_id, redirect_uri, scope and state come straight from the query string.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export interface SignInPage {
  applicationName: string;
  clientId: string;
  /** Hidden fields are written only for parameters the client sent, so "absent" survives the round trip. */
  redirectUri?: string;
  scope?: string;
  state?: string;
  username?: string;
  error?: string;
  /** Variant signin-form-scripted: the form is inserted by a script some time after the page loaded. */
  scripted?: boolean;
  /** Variant signin-form-unlabelled: a form without any label (see unlabelledForm). */
  unlabelled?: boolean;
  /** Variant signin-two-step: the first page asks for the e-mail only ("Next"); the password comes on a second page. */
  twoStep?: boolean;
  /** Variant signin-csrf-cookie: the hidden CSRF field, matched to the cookie set with the page. */
  csrf?: string;
  /** Fault signin-form-get: the form's method (default post). */
  formMethod?: 'get' | 'post';
  /** Fault blind-signin-state-xss: the state written as it came, not escaped. */
  rawState?: boolean;
}

/** The opening tag of a sign-in form: posted to the sign-in route (fault signin-form-get: sent as a query). */
const formTag = (p: SignInPage) => `<form method="${p.formMethod ?? 'post'}" action="/v3/auth/auth"`;

/** The hidden fields every sign-in form carries: the sign-in link's parameters the client sent, and the CSRF field. */
const linkFields = (p: SignInPage) =>
  `${hidden('client_id', p.clientId)}${hidden('redirect_uri', p.redirectUri)}${hidden('scope', p.scope)}${hidden('state', p.state, p.rawState)}${hidden('csrf_token', p.csrf)}`;

/** The field of the unlabelled form a person never sees: a bot fills it, and its sign-in is refused. */
export const HONEYPOT_FIELD = 'website';

/** How long after the load event the scripted form appears. */
const SCRIPTED_FORM_DELAY_MS = 400;

const STYLE = `body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
form{display:grid;gap:.6rem}label{font-weight:600}input{padding:.5rem;font-size:1rem}
button{padding:.6rem;font-size:1rem;cursor:pointer}.error{color:#b00020;font-weight:600}`;

export function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

const hidden = (name: string, value: string | undefined, raw = false) =>
  value === undefined ? '' : `\n  <input type="hidden" name="${name}" value="${raw ? value : escapeHtml(value)}">`;

/**
 * Variant signin-form-unlabelled, as many vendors' pages are: no <label> at all, the login field
 * named `login` with a placeholder only, a "Show" toggle (a plain button) beside the password, a
 * link, a field hidden off-screen for bots (a honeypot: filled, the sign-in is refused), and a
 * "Continue" button.
 */
function unlabelledForm(p: SignInPage, hiddenFields: string): string {
  const login = p.username === undefined ? '' : ` value="${escapeHtml(p.username)}"`;
  return `${formTag(p)} class="signin">
  <input name="login" type="text" placeholder="Email or username"${login}>
  <input name="${HONEYPOT_FIELD}" type="text" tabindex="-1" autocomplete="off" style="position:absolute;left:-10000px;top:auto">
  <div class="secret">
    <input name="password" type="password" placeholder="Password">
    <button type="button" onclick="const f=this.previousElementSibling;f.type=f.type==='password'?'text':'password'">Show</button>
  </div>
  <a href="#forgot">Forgot your password?</a>${hiddenFields}
  <button class="primary">Continue</button>
</form>`;
}

/** Variant signin-two-step, first page: the e-mail and "Next", as identity providers that look up the account first. */
function emailStep(p: SignInPage, hiddenFields: string): string {
  const username = p.username === undefined ? '' : ` value="${escapeHtml(p.username)}"`;
  return `${formTag(p)}>
  <label for="username">Email</label>
  <input id="username" name="username" type="email" autocomplete="username" required${username}>${hiddenFields}
  <button type="submit">Next</button>
</form>`;
}

/** Variant signin-two-step, second page: the account chosen, its password. */
export function renderPasswordStep(p: SignInPage & { username: string }): string {
  const error = p.error ? `\n<p class="error" role="alert">${escapeHtml(p.error)}</p>` : '';
  const hiddenFields = `${linkFields(p)}${hidden('username', p.username)}`;
  return page(
    'Sign in - Vehicle Data Service',
    `<main>
<h1>Welcome</h1>
<p>${escapeHtml(p.username)} <a href="#change">Not you?</a></p>${error}
${formTag(p)}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>${hiddenFields}
  <button type="submit">Sign in</button>
</form>
</main>`,
  );
}

/**
 * Variant signin-consent-page: after the password, the user approves the application (its scopes
 * listed, Allow and Deny); variant signin-continue-page: a page that only offers to go on.
 */
export function renderConsentPage(p: { applicationName: string; ticket: string; scopes: string[]; choice: boolean; userName: string }): string {
  const ticket = hidden('ticket', p.ticket);
  if (!p.choice) {
    return page(
      'Signed in - Vehicle Data Service',
      `<main>
<h1>You are signed in</h1>
<p>Signed in as ${escapeHtml(p.userName)}. You will now go back to <strong>${escapeHtml(p.applicationName)}</strong>.</p>
<form method="post" action="/v3/auth/consent">${ticket}
  <button type="submit">Continue</button>
</form>
</main>`,
    );
  }
  const scopes = p.scopes.length ? p.scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('') : '<li>your name only</li>';
  return page(
    'Authorize - Vehicle Data Service',
    `<main>
<h1>Allow ${escapeHtml(p.applicationName)} to access your data?</h1>
<p>${escapeHtml(p.applicationName)} will be able to:</p>
<ul>${scopes}</ul>
<form method="post" action="/v3/auth/consent">${ticket}
  <button type="submit" name="decision" value="deny">Deny</button>
  <button type="submit" name="decision" value="allow">Allow</button>
</form>
</main>`,
  );
}

export function renderSignInPage(p: SignInPage): string {
  const error = p.error ? `\n<p class="error" role="alert">${escapeHtml(p.error)}</p>` : '';
  const username = p.username === undefined ? '' : ` value="${escapeHtml(p.username)}"`;
  const hiddenFields = linkFields(p);
  const form = p.twoStep
    ? emailStep(p, hiddenFields)
    : p.unlabelled
      ? unlabelledForm(p, hiddenFields)
      : `${formTag(p)}>
  <label for="username">Email</label>
  <input id="username" name="username" type="email" autocomplete="username" required${username}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>${hiddenFields}
  <button type="submit">Sign in</button>
</form>`;
  // variant signin-form-scripted: as a single-page application renders it, after the load event.
  const body = p.scripted
    ? `<template id="signin-form">${form}</template>
<script>addEventListener('load', () => setTimeout(() => {
  document.querySelector('main').append(document.getElementById('signin-form').content.cloneNode(true));
}, ${SCRIPTED_FORM_DELAY_MS}));</script>`
    : form;
  return page(
    'Sign in - Vehicle Data Service',
    `<main>
<h1>Sign in</h1>
<p><strong>${escapeHtml(p.applicationName)}</strong> asks to access your Vehicle Data Service account.</p>${error}
${body}
</main>`,
  );
}

export function renderErrorPage(title: string, message: string): string {
  return page(`${title} - Vehicle Data Service`, `<main>\n<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n</main>`);
}
