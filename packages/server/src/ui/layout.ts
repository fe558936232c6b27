/**
 * The frame every page a person sees wears (login, sign-out, errors, the pages a mail leads to): no
 * JavaScript, no external assets; colours from the organisation's label policy and links from its
 * privacy policy, as `PageLook` (domain/login/page-look.ts) says whose they are.
 */

import type { PageLook } from '../domain/login/page-look.js';
import type { Label } from '../domain/policies/label.js';
import type { Privacy } from '../domain/policies/privacy.js';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#222}
label{display:block;margin-top:1rem}input{width:100%;padding:.5rem;box-sizing:border-box;font-size:1rem}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}.error{color:#a00;border:1px solid #a00;padding:.6rem;margin-top:1rem}.app{color:#555;margin-top:-.5rem}.hint{margin:.35rem 0 0;font-size:.9rem;opacity:.75}
.providers{margin-top:2rem;border-top:1px solid #ddd}a.button{display:inline-block;margin-top:1rem;padding:.6rem 1.2rem;background:#333;color:#fff;text-decoration:none;border-radius:4px}.provider{display:block;width:100%;margin-top:.6rem;background:#fff;border:1px solid #888}`;

function themeCss(label: Label): string {
  const vars = (c: { primary: string; background: string; font: string; warn: string }) =>
    [c.primary && `--primary:${c.primary}`, c.background && `--bg:${c.background}`, c.font && `--fg:${c.font}`, c.warn && `--warn:${c.warn}`].filter(Boolean).join(';');
  const light = vars({ primary: label.primaryColor, background: label.backgroundColor, font: label.fontColor, warn: label.warnColor });
  const dark = vars({ primary: label.primaryColorDark, background: label.backgroundColorDark, font: label.fontColorDark, warn: label.warnColorDark });
  const base = `body{background:var(--bg,#fff);color:var(--fg,#222)}button[type=submit]:not(.provider),a.button{background:var(--primary,#333);color:#fff;border:0;border-radius:4px}a{color:var(--primary,#333)}.error{color:var(--warn,#a00);border-color:var(--warn,#a00)}footer{margin-top:3rem;font-size:.85rem}footer a{color:var(--primary,#333);margin-right:1rem}`;
  if (label.themeMode === 'THEME_MODE_DARK') return `${base}:root{${dark}}`;
  if (label.themeMode === 'THEME_MODE_LIGHT') return `${base}:root{${light}}`;
  return `${base}:root{${light}}@media (prefers-color-scheme: dark){:root{${dark}}}`;
}

/** Only links a browser can follow safely: http(s) and mailto. */
const safeLink = (href: string) => /^(https?:\/\/|mailto:)/i.test(href.trim());

function privacyFooter(p: Privacy): string {
  const links = [
    [p.tosLink, 'Terms of service', 'tos-link'],
    [p.privacyLink, 'Privacy policy', 'privacy-link'],
    [p.helpLink, 'Help', 'help-link'],
    [p.docsLink, 'Documentation', 'docs-link'],
    [p.customLink, p.customLinkText || 'More', 'custom-link'],
    [p.supportEmail && `mailto:${p.supportEmail}`, p.supportEmail ? `Support: ${p.supportEmail}` : '', 'support-email'],
  ].filter(([href]) => href && safeLink(href));
  return links.length ? `<footer>${links.map(([href, text, id]) => `<a id="${id}" href="${escapeHtml(href)}" rel="noopener">${escapeHtml(text)}</a>`).join('')}</footer>` : '';
}

/** Every page's frame: the title, the base style, the organisation's colours and its privacy links. */
export function layout(title: string, body: string, look?: PageLook): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}${look ? themeCss(look.label) : ''}</style></head><body>${body}${look ? privacyFooter(look.privacy) : ''}</body></html>`;
}
