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
