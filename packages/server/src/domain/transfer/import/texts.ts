/**
 * Login and message texts: into the imported organisation (ZITADEL writes message texts to the
 * caller's organisation). Languages are the supported ones; message texts this service renders are
 * checked as SetCustomMessageText checks them (templateProblem, domain/notifications/template.ts).
 */
import type { Repositories } from '../../../store/store.js';
import { SUPPORTED_LANGUAGES } from '../../languages.js';
import { templateProblem } from '../../notifications/template.js';
import { type DataOrg, MESSAGE_TEXT_LISTS } from '../document.js';
import { msg, type OrgImport, stripUndefined } from './report.js';

const MESSAGE_ERROR_TYPES: Record<string, string> = {
  initMessages: 'init_message',
  passwordResetMessages: 'password_reset_message',
  verifyEmailMessages: 'verify_email_message',
  verifyPhoneMessages: 'verify_phone_message',
  domainClaimedMessages: 'domain_claimed_message',
  passwordlessRegistrationMessages: 'passwordless_registration_message',
  verifySmsOtpMessages: 'verify_sms_otp_message',
  verifyEmailOtpMessages: 'verify_email_otp_message',
  inviteUserMessages: 'invite_user_messages',
};

export async function importTexts(tx: Repositories, org: DataOrg, run: OrgImport): Promise<void> {
  const { orgId } = run;
  const supported = new Set<string>(SUPPORTED_LANGUAGES);
  const takenLogin = await tx.transfer.existingLoginTextLanguages(orgId);
  const loginRows: Parameters<Repositories['transfer']['insertLoginTexts']>[0] = [];
  for (const l of org.loginTexts ?? []) {
    const language = l.language.toLowerCase();
    const id = `${orgId}_${language}`;
    if (!supported.has(language)) {
      run.refuse('login_texts', id, msg('LANG-lg4DP', 'Errors.Language.NotSupported'));
      continue;
    }
    const { language: _, ...screens } = l;
    if (takenLogin.has(language)) {
      if (!run.exists('login_texts', id, msg('IMPORT-t3xtE', 'custom login texts for this language already exist; not changed'))) continue;
      const here = await tx.loginTexts.get(orgId, language);
      // Given twice in the document: the first is imported.
      if (!here) {
        run.unchanged('login_texts', id);
        continue;
      }
      // The API's event (domain/texts/login-texts.ts).
      await run.overwrite(tx, {
        type: 'login_texts',
        id,
        aggregate: ['org', orgId],
        eventType: 'org.customtext.login.set',
        payload: { language },
        current: { screens: here.screens },
        wanted: { screens },
        apply: (_change, at) => tx.loginTexts.upsert({ ...here, screens: screens as Record<string, Record<string, string>>, sequence: at.sequence, changedAt: at.changedAt }),
      });
      continue;
    }
    takenLogin.add(language);
    loginRows.push({ ownerId: orgId, language, screens: screens as Record<string, Record<string, string>>, ...run.stamp });
    run.imported('loginTexts', language, id);
  }
  await tx.transfer.insertLoginTexts(loginRows);

  const takenTexts = await tx.transfer.existingMessageTextKeys(orgId);
  const textRows: Parameters<Repositories['transfer']['insertMessageTexts']>[0] = [];
  for (const [list, messageType] of Object.entries(MESSAGE_TEXT_LISTS)) {
    for (const text of (org as Record<string, { language: string }[]>)[list] ?? []) {
      const language = text.language.toLowerCase();
      const type = MESSAGE_ERROR_TYPES[list];
      const id = `${orgId}_${language}`;
      if (!supported.has(language)) {
        run.refuse(type, id, msg('LANG-lg4DP', 'Errors.Language.NotSupported'));
        continue;
      }
      const exists = takenTexts.has(`${messageType}_${language}`);
      if (exists && !run.exists(type, id, msg('IMPORT-t3xtE', 'a custom text of this type and language already exists; not changed'))) continue;
      const { language: _, ...fields } = text as Record<string, string>;
      // Texts this service renders always render (notifications/template.ts): a broken one is reported, not stored.
      const rendered = messageType === 'VerifyEmail' || messageType === 'InitCode';
      const broken = !rendered
        ? undefined
        : Object.entries(fields)
            .map(([key, value]) => [key, typeof value === 'string' ? templateProblem(value) : undefined] as const)
            .find(([, problem]) => problem);
      if (broken) {
        run.refuse(type, id, msg('TEXT-t3mpl', `invalid ${broken[0]}: ${broken[1]}`));
        continue;
      }
      if (exists) {
        const here = await tx.messageTexts.get(orgId, messageType, language);
        if (!here) {
          run.unchanged(type, id);
          continue;
        }
        // The API's event (domain/texts/custom-message-texts.ts).
        await run.overwrite(tx, {
          type,
          id,
          aggregate: ['org', orgId],
          eventType: 'org.customtext.set',
          payload: { template: messageType, language },
          current: { fields: stripUndefined(here.fields as Record<string, unknown>) },
          wanted: { fields: stripUndefined(fields) },
          apply: (_change, at) => tx.messageTexts.update(orgId, messageType, language, stripUndefined(fields), at.sequence, at.changedAt),
        });
        continue;
      }
      takenTexts.add(`${messageType}_${language}`);
      textRows.push({ ownerId: orgId, messageType, language, fields: stripUndefined(fields), ...run.stamp });
      run.imported('messageTexts', `${messageType}_${language}`, id, type);
    }
  }
  await tx.transfer.insertMessageTexts(textRows);
}
