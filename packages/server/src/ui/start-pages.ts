/**
 * Pages for a person who arrives without an application: the service's root (`/`) and the login's
 * root (`/ui/login`), and the page of a sign-in that expired. Each says what this is and links on
 * (http/routes/start-pages.ts), instead of the API's JSON 404.
 */
import type { PageLook } from '../domain/login/page-look.js';
import { escapeHtml, layout } from './layout.js';

const safeHttp = (href: string | undefined) => (href && /^https?:\/\//i.test(href) ? href : undefined);

/** `/`: what the service is, and where its API, its reference and its health check are. */
export function landingPage(view: { look?: PageLook; continueTo?: string }): string {
  const onward = safeHttp(view.continueTo);
  return layout(
    'Identity service',
    `<h1>Identity service</h1><p id="about">This service signs people in to applications and manages their users, organisations and projects through an API.</p>
<ul id="links">
<li><a id="docs" href="/docs">API reference</a> (every operation, to try out)</li>
<li><a id="openapi" href="/openapi.json">OpenAPI document</a> (for clients and code generators)</li>
<li><a id="health" href="/healthz">Health check</a> (<code>/healthz</code>; readiness: <code>/readyz</code>)</li>
<li><a id="sign-in-help" href="/ui/login">Signing in</a></li>
</ul>${onward ? `<p><a id="continue" class="button" href="${escapeHtml(onward)}">Continue to the application</a></p>` : ''}`,
    view.look,
  );
}

/** `/ui/login` (and a sign-in that expired, `expired: true`): signing in starts at an application. */
export function signInStartPage(view: { look?: PageLook; continueTo?: string; expired?: boolean }): string {
  const onward = safeHttp(view.continueTo);
  const next = onward
    ? `<p><a id="continue" class="button" href="${escapeHtml(onward)}">Go to the application</a></p>`
    : '<p id="next-step">Open the application you want to use (or go back to its tab) and choose its sign-in button again: it sends you back here with a new sign-in.</p>';
  const [title, heading, lead] = view.expired
    ? ['Sign-in expired', 'This sign-in has expired', 'This sign-in attempt has expired, was finished already, or was opened in another browser than the one that started it.']
    : [
        'Sign in',
        'Signing in starts at an application',
        'There is nothing to sign in to here directly: an application sends you to this page when you choose to sign in to it, and you come back to it afterwards.',
      ];
  return layout(title, `<h1>${heading}</h1><p id="message">${lead}</p>${next}<p><a id="home" href="/">About this service</a></p>`, view.look);
}
