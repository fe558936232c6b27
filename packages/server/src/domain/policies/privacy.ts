/**
 * The privacy policy (ZITADEL's): the links the login pages show at their foot (terms of service,
 * privacy, help, docs, a custom link) and the support address. Until the instance's default is changed
 * it has no links (ZITADEL's built-in one points at zitadel.com, which is not this service's). Only
 * http(s) and mailto links are rendered; others are kept (an import is lossless) but not shown.
 */
import { PrivacyPolicy as PrivacyDocument } from '../transfer/document.js';
import { parseWith, policyOperations } from './policy.js';

export interface Privacy {
  tosLink: string;
  privacyLink: string;
  helpLink: string;
  supportEmail: string;
  docsLink: string;
  customLink: string;
  customLinkText: string;
}

const EMPTY: Privacy = { tosLink: '', privacyLink: '', helpLink: '', supportEmail: '', docsLink: '', customLink: '', customLinkText: '' };

export const privacy = policyOperations({
  kind: 'privacy',
  eventName: 'privacy',
  label: 'privacy policy',
  builtIn: EMPTY,
  parse: (input: unknown): Privacy => {
    const p = parseWith(PrivacyDocument, input);
    return Object.fromEntries(Object.keys(EMPTY).map((k) => [k, (p as Record<string, string | undefined>)[k] ?? ''])) as unknown as Privacy;
  },
  show: (p: Privacy) => ({ ...p }),
  documentField: 'privacyPolicy',
  importType: 'privacy_policy',
  toDocument: (p: Privacy) => ({ ...p }),
});
