/** Server-rendered pages of the login UI: no JavaScript, no external assets. */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#222}
label{display:block;margin-top:1rem}input{width:100%;padding:.5rem;box-sizing:border-box;font-size:1rem}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}.error{color:#a00;border:1px solid #a00;padding:.6rem;margin-top:1rem}`;

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function loginPage(uid: string, loginName = '', error?: string): string {
  const alert = error ? `<p class="error" role="alert" id="login-error">${escapeHtml(error)}</p>` : '';
  return layout(
    'Sign in',
    `<h1>Sign in</h1>${alert}
<form method="post" action="/ui/login/${encodeURIComponent(uid)}">
<label for="loginName">Login name</label><input id="loginName" name="loginName" autocomplete="username" required value="${escapeHtml(loginName)}"${loginName ? '' : ' autofocus'}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required${loginName ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>`,
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
