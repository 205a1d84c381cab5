// Sign-in pages as the authorization servers vendors deploy render them, reproduced from their public
// templates (the markup's shape, ids and names; not their code): the suite must get through each as a
// person does, with no selector given.
//   - Keycloak's login theme (login.ftl in template.ftl): a language menu of links and a language form
//     above the login form, the form posting to login-actions/authenticate with session codes in its
//     URL, a "Remember me" box, "Forgot Password?" and "Register" links, an <input type=submit>, a
//     hidden CSRF field; the session lives in a cookie (variant signin-keycloak).
//   - A consent-manager's cookie banner over the page: a modal dialog and a backdrop that take every
//     click until a person chooses (variant signin-cookie-banner).
import { escapeHtml } from './signin-page';

/** The fields a Keycloak-style login form carries besides the credentials. */
export interface KeycloakForm {
  /** The form's action: login-actions/authenticate with session_code, execution, client_id and tab_id. */
  action: string;
  csrf: string;
  applicationName: string;
  /** The sign-in link's parameters: the language menu's links and form reload the page with them. */
  signInParams: Record<string, string>;
  username?: string;
  error?: string;
}

const KEYCLOAK_STYLE = `body{font-family:"Red Hat Text",system-ui,sans-serif;background:#f0f0f0;margin:0}
#kc-header{padding:2rem 0 1rem;text-align:center;font-size:1.6rem;letter-spacing:.1em;text-transform:uppercase;color:#333}
.card-pf{background:#fff;max-width:28rem;margin:0 auto;padding:1.5rem 2.5rem;border-top:4px solid #0066cc}
#kc-locale{text-align:right;font-size:.85rem}#kc-locale ul{list-style:none;margin:0;padding:0;display:flex;gap:.6rem;justify-content:flex-end}
#kc-locale-form{display:flex;gap:.3rem;justify-content:flex-end;margin:.4rem 0}
.form-group{margin:.8rem 0}.form-group label{display:block;font-weight:600;margin-bottom:.3rem}
.form-control{width:100%;box-sizing:border-box;padding:.45rem;font-size:1rem}
#kc-form-options{display:flex;justify-content:space-between;font-size:.9rem}
.btn-primary{width:100%;padding:.6rem;background:#0066cc;color:#fff;border:0;font-size:1rem;cursor:pointer}
.alert-error{background:#fdeaea;border-left:3px solid #c9190b;padding:.5rem;margin:.5rem 0}
#kc-registration{text-align:center;margin-top:1rem;font-size:.9rem}`;

/** The languages of the language menu (the page itself stays in English). */
const LOCALES = [
  { code: 'en', label: 'English' },
  { code: 'de', label: 'Deutsch' },
  { code: 'fr', label: 'Français' },
  { code: 'es', label: 'Español' },
];

/** Keycloak's login page (theme "keycloak", login.ftl): what GET /auth/auth answers with the variant. */
export function renderKeycloakLogin(p: KeycloakForm): string {
  const link = (code: string) => `auth?${new URLSearchParams({ ...p.signInParams, kc_locale: code }).toString()}`;
  const locales = LOCALES.map((l) => `<li><a class="kc-locale-item" href="${escapeHtml(link(l.code))}">${escapeHtml(l.label)}</a></li>`).join('');
  const options = LOCALES.map((l) => `<option value="${l.code}">${escapeHtml(l.label)}</option>`).join('');
  const kept = Object.entries(p.signInParams)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('');
  const error = p.error ? `\n<div class="alert-error" role="alert"><span class="kc-feedback-text">${escapeHtml(p.error)}</span></div>` : '';
  const username = p.username === undefined ? '' : escapeHtml(p.username);
  return `<!DOCTYPE html>
<html class="login-pf" lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex, nofollow">
<title>Sign in to Vehicle Data Service</title>
<style>${KEYCLOAK_STYLE}</style>
</head>
<body class="">
<div class="login-pf-page">
  <div id="kc-header" class="login-pf-page-header"><div id="kc-header-wrapper">Vehicle Data Service</div></div>
  <div class="card-pf">
    <header class="login-pf-header">
      <div id="kc-locale">
        <div id="kc-locale-wrapper">
          <div id="kc-locale-dropdown"><a href="#" id="kc-current-locale-link">English</a><ul>${locales}</ul></div>
          <form id="kc-locale-form" method="get" action="auth">${kept}
            <select name="kc_locale" aria-label="Language">${options}</select>
            <button type="submit">Change language</button>
          </form>
        </div>
      </div>
      <h1 id="kc-page-title">Sign in to your account</h1>
      <p>${escapeHtml(p.applicationName)} wants to access your account.</p>
    </header>
    <div id="kc-content"><div id="kc-content-wrapper">${error}
      <form id="kc-form-login" onsubmit="login.disabled = true; return true;" action="${escapeHtml(p.action)}" method="post">
        <div class="form-group">
          <label for="username" class="control-label">Username or email</label>
          <input tabindex="1" id="username" class="form-control" name="username" value="${username}" type="text" autofocus autocomplete="off">
        </div>
        <div class="form-group">
          <label for="password" class="control-label">Password</label>
          <input tabindex="2" id="password" class="form-control" name="password" type="password" autocomplete="off">
        </div>
        <div class="form-group">
          <div id="kc-form-options">
            <div class="checkbox"><label><input tabindex="3" id="rememberMe" name="rememberMe" type="checkbox"> Remember me</label></div>
            <span><a tabindex="5" href="#forgot-credentials">Forgot Password?</a></span>
          </div>
        </div>
        <input type="hidden" id="id-hidden-input" name="credentialId">
        <input type="hidden" name="csrf_token" value="${escapeHtml(p.csrf)}">
        <div id="kc-form-buttons" class="form-group">
          <input tabindex="4" class="btn-primary" name="login" id="kc-login" type="submit" value="Sign In">
        </div>
      </form>
      <div id="kc-registration"><span>New user? <a tabindex="6" href="#registration">Register</a></span></div>
    </div></div>
  </div>
</div>
</body>
</html>
`;
}

/** Keycloak's page for a request it cannot go on with (an expired or foreign session code, cookies off). */
export function renderKeycloakError(message: string): string {
  return `<!DOCTYPE html>
<html class="login-pf" lang="en"><head><meta charset="utf-8"><title>Sign in to Vehicle Data Service</title><style>${KEYCLOAK_STYLE}</style></head>
<body><div class="login-pf-page"><div id="kc-header"><div id="kc-header-wrapper">Vehicle Data Service</div></div>
<div class="card-pf"><h1 id="kc-page-title">We are sorry...</h1><p id="kc-error-message" class="instruction">${escapeHtml(message)}</p></div></div></body></html>
`;
}

/** The cookie the banner's choice is kept in: once chosen, the banner is not shown again. */
const BANNER_COOKIE = 'vds_cookie_consent';

/** How long after the load event the banner appears (a consent manager's script loads after the page). */
const BANNER_DELAY_MS = 150;

/**
 * A consent manager's banner: a backdrop over the whole page and a modal dialog ("We value your
 * privacy"), whose buttons are, in this order, "Customize" (opens the choices: it does not close),
 * "Reject all" and "Accept all"; a link to the privacy policy. Until one is chosen, every click on the
 * page lands on the backdrop. The choice is kept in a cookie.
 */
export function cookieBanner(): string {
  return `<div id="consent-root" hidden>
<div class="cmp-backdrop" style="position:fixed;inset:0;background:rgba(0,0,0,.55);z-index:9998"></div>
<div class="cmp-dialog" role="dialog" aria-modal="true" aria-labelledby="cmp-title" style="position:fixed;left:50%;top:50%;transform:translate(-50%,-50%);z-index:9999;background:#fff;max-width:30rem;padding:1.5rem;border-radius:8px;box-shadow:0 8px 30px rgba(0,0,0,.3)">
  <h2 id="cmp-title">We value your privacy</h2>
  <p>We use cookies to keep you signed in, to measure the audience of this site and to improve it. <a href="#privacy-policy">Privacy policy</a></p>
  <div class="cmp-choices" hidden><label><input type="checkbox" checked disabled> Strictly necessary</label><br><label><input type="checkbox" name="analytics"> Audience measurement</label></div>
  <div class="cmp-buttons" style="display:flex;gap:.5rem;justify-content:flex-end">
    <button type="button" data-cmp="customize">Customize</button>
    <button type="button" data-cmp="reject">Reject all</button>
    <button type="button" data-cmp="accept">Accept all</button>
  </div>
</div>
</div>
<script>
(() => {
  if (document.cookie.split('; ').some((c) => c.startsWith('${BANNER_COOKIE}='))) return;
  const root = document.getElementById('consent-root');
  root.addEventListener('click', (e) => {
    const choice = e.target.closest('[data-cmp]')?.dataset.cmp;
    if (!choice) return;
    if (choice === 'customize') { root.querySelector('.cmp-choices').hidden = false; return; }
    document.cookie = '${BANNER_COOKIE}=' + choice + '; path=/; SameSite=Lax';
    root.remove();
  });
  addEventListener('load', () => setTimeout(() => { root.hidden = false; }, ${BANNER_DELAY_MS}));
})();
</script>`;
}

const ORY_STYLE = `body{font-family:Inter,system-ui,sans-serif;background:#f5f7fa;margin:0}
.card{background:#fff;max-width:24rem;margin:4rem auto;padding:2rem;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.1)}
.field{display:grid;gap:.3rem;margin:.8rem 0}.field input{padding:.55rem;font-size:1rem;border:1px solid #ccd;border-radius:6px}
button{width:100%;padding:.6rem;font-size:1rem;border-radius:6px;cursor:pointer}.primary{background:#3d53f5;color:#fff;border:0}
.social{background:#fff;border:1px solid #ccd;margin-bottom:.5rem}.divider{text-align:center;color:#889;margin:1rem 0}
.message{color:#c01;font-size:.9rem}.links{display:flex;justify-content:space-between;font-size:.9rem;margin-top:1rem}`;

/**
 * Ory's login UI (kratos-selfservice-ui-node, Ory Elements): one form carrying the flow's CSRF field,
 * a social sign-in button above the fields ("Sign in with GitHub", a submit of the same form), the
 * identifier (labelled as the identity schema titles it) and the password, and the password
 * method's own submit button.
 */
export function renderOryLogin(p: { action: string; csrf: string; applicationName: string; identifier?: string; message?: string }): string {
  const message = p.message ? `\n    <div class="message" role="alert" data-testid="ui/message/4000006">${escapeHtml(p.message)}</div>` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in</title><style>${ORY_STYLE}</style></head>
<body>
<div class="card" data-testid="login-flow">
  <h2>Sign in</h2>
  <p>To continue to ${escapeHtml(p.applicationName)}</p>
  <form action="${escapeHtml(p.action)}" method="POST">
    <input name="csrf_token" type="hidden" value="${escapeHtml(p.csrf)}">
    <button class="social" name="provider" type="submit" value="github" data-testid="ory/form/node/input/provider">Sign in with GitHub</button>
    <div class="divider">or</div>${message}
    <div class="field"><label for="identifier">E-Mail</label><input id="identifier" name="identifier" type="text" autocomplete="username" required value="${escapeHtml(p.identifier ?? '')}"></div>
    <div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
    <button class="primary" name="method" type="submit" value="password" data-testid="ory/form/node/input/method">Sign in</button>
  </form>
  <div class="links"><a href="#recovery">Forgot password?</a><a href="#registration">Sign up</a></div>
</div>
</body>
</html>
`;
}

/**
 * Authentik's flow executor: an empty page whose web components render each stage of the flow in
 * their shadow roots, from the flow API's challenges (identification, then password, then a
 * redirect), and a form for password managers left in the page outside them, off screen.
 */
export function renderAuthentikFlow(p: { api: string; title: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(p.title)}</title>
<style>body{font-family:"RedHatText",system-ui,sans-serif;background:#151515;color:#fff;margin:0}</style></head>
<body>
<ak-flow-executor flowSlug="default-authentication-flow"></ak-flow-executor>
<script>
(() => {
  const API = ${JSON.stringify(p.api)};
  const css = '<style>:host{display:block}.pf-c-login__main{background:#fff;color:#151515;max-width:26rem;margin:4rem auto;padding:2rem}'
    + '.pf-c-form__group{display:grid;gap:.3rem;margin:.8rem 0}input{padding:.5rem;font-size:1rem}button{width:100%;padding:.6rem;font-size:1rem;background:#06c;color:#fff;border:0}'
    + '.pf-m-error{color:#c9190b}</style>';
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  class Stage extends HTMLElement {
    constructor() { super(); this.attachShadow({ mode: 'open' }); }
    show(challenge, submit) {
      const errors = Object.values(challenge.response_errors || {}).flat().map((e) => '<p class="pf-m-error" role="alert">' + esc(e.string) + '</p>').join('');
      const fields = challenge.component === 'ak-stage-identification'
        ? '<div class="pf-c-form__group"><label for="uid">Email or Username</label><input id="uid" name="uidField" type="text" autocomplete="username" required></div>'
        : '<p>' + esc(challenge.pending_user) + ' <a href="#not-you">Not you?</a></p>'
          + '<div class="pf-c-form__group"><label for="ak-stage-password-input">Password</label><input id="ak-stage-password-input" name="password" type="password" autocomplete="current-password" required></div>'
          + '<a href="#recovery">Forgot username or password?</a>';
      const action = challenge.component === 'ak-stage-identification' ? challenge.primary_action : 'Continue';
      this.shadowRoot.innerHTML = css + '<div class="pf-c-login__main"><h1>' + esc(challenge.flow_info.title) + '</h1><form class="pf-c-form">' + errors + fields
        + '<div class="pf-c-form__group"><button type="submit" class="pf-c-button pf-m-primary">' + esc(action) + '</button></div></form></div>';
      this.shadowRoot.querySelector('form').addEventListener('submit', (event) => {
        event.preventDefault();
        const data = Object.fromEntries(new FormData(event.target));
        submit({ component: challenge.component, ...(data.uidField !== undefined ? { uid_field: data.uidField } : {}), ...(data.password !== undefined ? { password: data.password } : {}) });
      });
    }
  }
  customElements.define('ak-stage-identification', class extends Stage {});
  customElements.define('ak-stage-password', class extends Stage {});
  customElements.define('ak-flow-executor', class extends HTMLElement {
    constructor() { super(); this.attachShadow({ mode: 'open' }); }
    async connectedCallback() { this.render(await (await fetch(API, { credentials: 'same-origin' })).json()); }
    async submit(body) {
      const res = await fetch(API, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      this.render(await res.json());
    }
    render(challenge) {
      if (challenge.component === 'xak-flow-redirect') { location.assign(challenge.to); return; }
      this.shadowRoot.innerHTML = '';
      const stage = document.createElement(challenge.component);
      this.shadowRoot.append(stage);
      stage.show(challenge, (body) => this.submit(body));
    }
  });
  // For password managers, which do not look into shadow roots: a form of the page itself, off screen.
  const helper = document.createElement('form');
  helper.innerHTML = '<input type="text" name="username" autocomplete="username"><input type="password" name="password" autocomplete="current-password">';
  helper.style.cssText = 'position:absolute;top:-2000px;left:-2000px;opacity:0';
  document.documentElement.append(helper);
})();
</script>
</body>
</html>
`;
}

/**
 * Okta's sign-in widget (identifier first, then the password: "Next", then "Verify"): the page holds
 * its container and the widget, which renders each step in it from the identity engine's answers
 * (JSON), a "Keep me signed in" box and help links around; the last answer sends the browser on.
 */
export function renderOktaWidget(p: { stateHandle: string; base: string; applicationName: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Vehicle Data Service - Sign In</title>
<style>body{font-family:"Public Sans",system-ui,sans-serif;background:#f4f4f4;margin:0}
#okta-sign-in{background:#fff;max-width:25rem;margin:4rem auto;padding:2rem;border:1px solid #ddd}
.o-form-fieldset{display:grid;gap:.3rem;margin:.8rem 0}.o-form-input input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
.button-primary{width:100%;padding:.6rem;font-size:1rem;background:#1662dd;color:#fff;border:0}.o-form-error-container{color:#d10}
.auth-footer{display:flex;justify-content:space-between;font-size:.9rem;margin-top:1rem}</style></head>
<body>
<main><div id="okta-login-container"><div id="okta-sign-in" class="auth-container main-container" role="main"></div></div></main>
<script>
(() => {
  const config = ${JSON.stringify({ stateHandle: p.stateHandle, base: p.base, app: p.applicationName })};
  const root = document.getElementById('okta-sign-in');
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  let n = 20;
  const field = (label, type, name, autocomplete) => {
    const id = 'input' + (n += 8);
    return '<div class="o-form-fieldset" data-se="o-form-fieldset-' + name + '"><div class="okta-form-label o-form-label"><label for="' + id + '">' + label + '</label></div>'
      + '<div class="o-form-input"><span class="o-form-input-name-' + name + '"><input type="' + type + '" name="' + name + '" id="' + id + '" autocomplete="' + autocomplete + '"></span></div></div>';
  };
  const step = (title, body, action, error, after) => {
    root.innerHTML = '<div class="okta-sign-in-header auth-header"><h1>' + esc(config.app) + '</h1></div>'
      + '<form novalidate method="POST" action="#" data-se="o-form" class="ion-form o-form o-form-edit-mode">'
      + '<div class="o-form-content"><h2 data-se="o-form-head" class="okta-form-title o-form-head">' + title + '</h2>'
      + '<div class="o-form-error-container" data-se="o-form-error-container">' + (error ? '<div role="alert" class="okta-form-infobox-error infobox infobox-error"><p>' + esc(error) + '</p></div>' : '') + '</div>'
      + body + '</div><div class="o-form-button-bar"><input class="button button-primary" type="submit" value="' + action + '" data-type="save"></div></form>'
      + '<div class="auth-footer">' + after + '</div>';
    return root.querySelector('form');
  };
  const post = async (path, body) => (await fetch(config.base + path, { method: 'POST', headers: { 'content-type': 'application/ion+json; okta-version=1.0.0' }, body: JSON.stringify({ ...body, stateHandle: config.stateHandle }) })).json();
  const identify = (error) => {
    const form = step('Sign In', field('Username', 'text', 'identifier', 'username')
      + '<div class="o-form-fieldset"><span><input type="checkbox" name="rememberMe" id="input-remember"><label for="input-remember">Keep me signed in</label></span></div>', 'Next', error,
      '<a href="#help" class="link help">Help</a><a href="#signup" class="link">Sign up</a>');
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const answer = await post('/idp/idx/identify', { identifier: form.identifier.value });
      if (answer.messages) identify(answer.messages[0]); else challenge();
    });
  };
  const challenge = (error) => {
    const form = step('Verify with your password', field('Password', 'password', 'credentials.passcode', 'current-password'), 'Verify', error,
      '<a href="#recover" class="link">Forgot password?</a><a href="#" class="link js-go-back">Back to sign in</a>');
    form.querySelector('.js-go-back')?.addEventListener('click', (e) => { e.preventDefault(); identify(); });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const answer = await post('/idp/idx/challenge/answer', { credentials: { passcode: form.querySelector('[name="credentials.passcode"]').value } });
      if (answer.success) location.href = answer.success.href; else challenge(answer.messages ? answer.messages[0] : 'Unable to sign in');
    });
  };
  identify();
})();
</script>
</body>
</html>
`;
}
