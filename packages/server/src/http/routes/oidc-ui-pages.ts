/** Server-rendered pages of the login UI: no JavaScript, no external assets. */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#222}
label{display:block;margin-top:1rem}input{width:100%;padding:.5rem;box-sizing:border-box;font-size:1rem}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}.error{color:#a00;border:1px solid #a00;padding:.6rem;margin-top:1rem}.app{color:#555;margin-top:-.5rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function loginPage(uid: string, loginName = '', error?: string, appName?: string): string {
  const alert = error ? `<p class="error" role="alert" id="login-error">${escapeHtml(error)}</p>` : '';
  // Which application the user signs in to, so a phishing page is easier to tell apart.
  const to = appName ? `<p class="app">to continue to <strong id="app-name">${escapeHtml(appName)}</strong></p>` : '';
  return layout(
    appName ? `Sign in to ${appName}` : 'Sign in',
    `<h1>Sign in</h1>${to}${alert}
<form method="post" action="/ui/login/${encodeURIComponent(uid)}">
<label for="loginName">Login name</label><input id="loginName" name="loginName" autocomplete="username" required value="${escapeHtml(loginName)}"${loginName ? '' : ' autofocus'}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required${loginName ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** What a person can do about each OAuth error the authorization server shows in the browser. */
const NEXT_STEP: Record<string, string> = {
  invalid_client:
    'The application that sent you here is not registered with this service, or it is deactivated. Go back to the application and tell its administrator: its client id must name an active OIDC application.',
  invalid_redirect_uri:
    'The application asked to send you back to an address it has not registered. Tell its administrator to add that redirect URI to the application.',
  unauthorized_client: 'The application is not allowed to sign you in this way. Tell its administrator to check its grant and response types.',
  invalid_scope: 'The application asked for something this service does not offer. Tell its administrator which scopes it requested.',
  invalid_request: 'The sign-in request is incomplete or malformed. Go back to the application and start signing in again.',
};
const DEFAULT_NEXT_STEP = 'Go back to the application and start signing in again. If this happens again, tell the application’s administrator the error below.';

/** oidc-provider's error page (renderError), in the login's style: the error, and what to do next. */
export function errorPage(error: string, description?: string): string {
  const next = NEXT_STEP[error] ?? DEFAULT_NEXT_STEP;
  return layout(
    'Sign-in error',
    `<h1>Signing in did not work</h1><p>${escapeHtml(next)}</p>
<p class="error" role="alert"><code id="error-code">${escapeHtml(error)}</code>${description ? `: <span id="error-description">${escapeHtml(description)}</span>` : ''}</p>`,
  );
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`);
}

/**
 * The sign-out confirmation of RP-initiated logout. `form` is oidc-provider's hidden form
 * (`id="op.logoutForm"`, carrying the xsrf token); the buttons submit it, so no JavaScript is needed.
 */
export function logoutPage(form: string, host: string): string {
  return layout(
    'Sign out',
    `<h1>Sign out</h1><p>Do you want to sign out from ${escapeHtml(host)}?</p>${form}
<button autofocus type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`,
  );
}
