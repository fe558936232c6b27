/**
 * The vocabulary of the audit trail: every event type and aggregate type this service appends, each
 * with the English text ZITADEL's console shows for it (ZITADEL localizes the key
 * `EventTypes.<type>` / `AggregateTypes.<type>`; this service answers in English).
 *
 * One list, so that ListEventTypes and ListAggregateTypes answer what can really be found in the
 * log, and so that nothing is appended under a name nobody knows: the events repository refuses an
 * event whose type is not registered here (`assertRegisteredEvent`), which makes every test that
 * reaches a new, unregistered type fail at once.
 */

/** Aggregate type → its English name. */
export const AGGREGATE_TYPES = {
  instance: 'Instance',
  org: 'Organization',
  user: 'User',
  usergrant: 'Authorization',
  project: 'Project',
  import_job: 'Import job',
} as const satisfies Record<string, string>;

export type AggregateType = keyof typeof AGGREGATE_TYPES;

/** The event types of one policy kind on one owner (domain/policies: `eventName`). */
const POLICY_NAMES = {
  'password.complexity': 'Password complexity policy',
  lockout: 'Lockout policy',
  login: 'Login policy',
  privacy: 'Privacy policy',
  label: 'Label policy',
  domain: 'Domain policy',
} as const;

/** What both owners of identity providers, members and texts (the instance and an organisation) append. */
function ownerEvents<P extends 'instance' | 'org'>(owner: P, ownerName: string) {
  return {
    [`${owner}.member.added`]: `${ownerName} member added`,
    [`${owner}.member.changed`]: `${ownerName} member changed`,
    [`${owner}.member.removed`]: `${ownerName} member removed`,
    [`${owner}.member.cascade.removed`]: `${ownerName} member removed with the user`,
    [`${owner}.idp.config.added`]: 'Identity provider added',
    [`${owner}.idp.config.changed`]: 'Identity provider changed',
    [`${owner}.idp.config.deactivated`]: 'Identity provider deactivated',
    [`${owner}.idp.config.reactivated`]: 'Identity provider reactivated',
    [`${owner}.idp.config.removed`]: 'Identity provider removed',
    [`${owner}.idp.oidc.config.changed`]: 'OIDC settings of an identity provider changed',
    [`${owner}.idp.jwt.config.changed`]: 'JWT settings of an identity provider changed',
    [`${owner}.customtext.set`]: 'Message text set',
    [`${owner}.customtext.template.removed`]: 'Message text reset',
    [`${owner}.customtext.login.set`]: 'Login texts set',
    [`${owner}.customtext.login.removed`]: 'Login texts reset',
  } as Record<string, string>;
}

function policyEvents(owner: 'instance' | 'org', changes: readonly ('added' | 'changed' | 'removed')[]) {
  const texts = { added: 'set', changed: 'changed', removed: 'reset to the default' } as const;
  const events: Record<string, string> = {};
  for (const [name, text] of Object.entries(POLICY_NAMES)) for (const change of changes) events[`${owner}.policy.${name}.${change}`] = `${text} ${texts[change]}`;
  return events;
}

/** Event type → its English description. */
export const EVENT_TYPES: Readonly<Record<string, string>> = {
  'instance.added': 'Instance set up',
  'instance.data.imported': 'Data imported',
  'instance.smtp.config.added': 'SMTP provider added',
  'instance.smtp.config.changed': 'SMTP provider changed',
  'instance.smtp.config.password.changed': 'SMTP password changed',
  'instance.smtp.config.activated': 'SMTP provider activated',
  'instance.smtp.config.deactivated': 'SMTP provider deactivated',
  'instance.smtp.config.removed': 'SMTP provider removed',
  ...ownerEvents('instance', 'Instance'),
  ...policyEvents('instance', ['changed']),

  'org.added': 'Organization added',
  'org.changed': 'Organization changed',
  'org.deactivated': 'Organization deactivated',
  'org.reactivated': 'Organization reactivated',
  'org.removed': 'Organization removed',
  'org.data.imported': 'Organization imported',
  'org.domain.added': 'Domain added',
  'org.domain.changed': 'Domain changed',
  'org.domain.verification.added': 'Domain verification started',
  'org.domain.verified': 'Domain verified',
  'org.domain.primary.set': 'Primary domain set',
  'org.domain.removed': 'Domain removed',
  'org.idp.config.cascade.removed': 'Identity provider removed with the organization',
  'org.idp.data.imported': 'Identity provider imported',
  ...ownerEvents('org', 'Organization'),
  ...policyEvents('org', ['added', 'changed', 'removed']),

  'user.human.added': 'Person added',
  'user.human.changed': 'Person changed',
  'user.human.profile.changed': 'Profile changed',
  'user.human.email.changed': 'Email address changed',
  'user.human.email.verified': 'Email address verified',
  'user.human.email.verification.requested': 'Email verification requested',
  'user.human.email.code.added': 'Email verification code created',
  'user.human.phone.changed': 'Phone number changed',
  'user.human.phone.verified': 'Phone number verified',
  'user.human.phone.removed': 'Phone number removed',
  'user.human.password.changed': 'Password changed',
  'user.human.password.hash.updated': 'Password hash updated',
  'user.human.password.check.succeeded': 'Password check succeeded',
  'user.human.password.check.failed': 'Password check failed',
  'user.human.password.code.added': 'Password reset code created',
  'user.human.password.reset.requested': 'Password reset requested',
  'user.human.initialization.code.added': 'Initialization code created',
  'user.human.initialization.check.succeeded': 'Initialization completed',
  'user.human.registration.attempted': 'Registration attempted with a taken address',
  'user.human.mfa.otp.added': 'Authenticator app being set up',
  'user.human.mfa.otp.verified': 'Authenticator app set up',
  'user.human.mfa.otp.removed': 'Authenticator app removed',
  'user.human.mfa.otp.check.succeeded': 'Authenticator code check succeeded',
  'user.human.mfa.otp.check.failed': 'Authenticator code check failed',
  'user.human.mfa.init.skipped': 'Second factor setup skipped',
  'user.human.externalidp.added': 'Identity provider linked',
  'user.human.externalidp.removed': 'Identity provider link removed',
  'user.human.externalidp.cascade.removed': 'Identity provider link removed with the provider',
  'user.human.externallogin.check.succeeded': 'Signed in through an identity provider',
  'user.machine.added': 'Service user added',
  'user.data.imported': 'User imported',
  'user.machine.changed': 'Service user changed',
  'user.machine.key.added': 'Key added',
  'user.machine.key.removed': 'Key removed',
  'user.machine.key.cascade.removed': 'Key removed with the user',
  'user.machine.secret.set': 'Client secret set',
  'user.machine.secret.removed': 'Client secret removed',
  'user.personal.access.token.added': 'Personal access token added',
  'user.personal.access.token.removed': 'Personal access token removed',
  'user.metadata.set': 'Metadata set',
  'user.metadata.removed': 'Metadata removed',
  'user.locked': 'User locked',
  'user.unlocked': 'User unlocked',
  'user.deactivated': 'User deactivated',
  'user.reactivated': 'User reactivated',
  'user.removed': 'User removed',
  'user.cascade.removed': 'User removed with the organization',

  'user.grant.added': 'Authorization added',
  'user.grant.changed': 'Authorization changed',
  'user.grant.cascade.changed': 'Authorization changed with its project or grant',
  'user.grant.deactivated': 'Authorization deactivated',
  'user.grant.reactivated': 'Authorization reactivated',
  'user.grant.removed': 'Authorization removed',
  'user.grant.cascade.removed': 'Authorization removed with what it was given through',
  'user.grant.data.imported': 'Authorization imported',

  'project.added': 'Project added',
  'project.changed': 'Project changed',
  'project.deactivated': 'Project deactivated',
  'project.reactivated': 'Project reactivated',
  'project.removed': 'Project removed',
  'project.cascade.removed': 'Project removed with the organization',
  'project.data.imported': 'Project imported',
  'project.member.added': 'Project member added',
  'project.member.changed': 'Project member changed',
  'project.member.removed': 'Project member removed',
  'project.member.cascade.removed': 'Project member removed with the user',
  'project.role.added': 'Project role added',
  'project.role.changed': 'Project role changed',
  'project.role.removed': 'Project role removed',
  'project.grant.added': 'Project granted to an organization',
  'project.grant.changed': 'Project grant changed',
  'project.grant.cascade.changed': 'Project grant changed with a role',
  'project.grant.deactivated': 'Project grant deactivated',
  'project.grant.reactivated': 'Project grant reactivated',
  'project.grant.removed': 'Project grant removed',
  'project.grant.cascade.removed': 'Project grant removed with the organization',
  'project.grant.member.added': 'Project grant member added',
  'project.grant.member.changed': 'Project grant member changed',
  'project.grant.member.removed': 'Project grant member removed',
  'project.grant.member.cascade.removed': 'Project grant member removed with the user or grant',
  'project.application.added': 'Application added',
  'project.application.changed': 'Application changed',
  'project.application.deactivated': 'Application deactivated',
  'project.application.reactivated': 'Application reactivated',
  'project.application.removed': 'Application removed',
  'project.application.cascade.removed': 'Application removed with its project',
  'project.application.data.imported': 'Application imported',
  'project.application.config.oidc.added': 'OIDC configuration added',
  'project.application.config.oidc.changed': 'OIDC configuration changed',
  'project.application.config.oidc.secret.changed': 'OIDC client secret changed',
  'project.application.config.api.added': 'API configuration added',
  'project.application.config.api.changed': 'API configuration changed',
  'project.application.config.api.secret.changed': 'API client secret changed',
  'project.application.key.added': 'Application key added',
  'project.application.key.removed': 'Application key removed',
  'project.application.key.cascade.removed': 'Application key removed with its application',

  'import.job.added': 'Import job queued',
  'import.job.cancel.requested': 'Import job cancellation requested',
  'import.job.cancelled': 'Import job cancelled',
};

/** The aggregate type an event type belongs to (its first segment; `usergrant` for `user.grant.*`, `import_job` for `import.job.*`). */
export function aggregateOfEventType(type: string): string {
  if (type.startsWith('user.grant.')) return 'usergrant';
  if (type.startsWith('import.job.')) return 'import_job';
  return type.slice(0, type.indexOf('.'));
}

export const isRegisteredEventType = (type: string): boolean => Object.hasOwn(EVENT_TYPES, type);
export const isRegisteredAggregateType = (type: string): boolean => Object.hasOwn(AGGREGATE_TYPES, type);

/**
 * Refuses (a programming error, 500) an event whose type is not registered above or does not
 * belong to the aggregate it is appended to: the store calls this before every append, so an
 * unregistered type fails the first test that reaches it instead of going unlisted.
 */
export function assertRegisteredEvent(event: { aggregateType: string; type: string }): void {
  if (!isRegisteredEventType(event.type)) throw new Error(`event type "${event.type}" is not registered in domain/events/types.ts`);
  if (!isRegisteredAggregateType(event.aggregateType) || aggregateOfEventType(event.type) !== event.aggregateType) {
    throw new Error(`event type "${event.type}" does not belong to aggregate type "${event.aggregateType}" (domain/events/types.ts)`);
  }
}

/** ZITADEL's LocalizedMessage: the i18n key and its text (English here). */
export interface LocalizedMessage {
  key: string;
  localizedMessage: string;
}

/** An event type's message; a type this version does not know (an older log's) is shown as itself. */
export const localizedEventType = (type: string): LocalizedMessage => ({ key: `EventTypes.${type}`, localizedMessage: EVENT_TYPES[type] ?? type });

export const localizedAggregateType = (type: string): LocalizedMessage => ({
  key: `AggregateTypes.${type}`,
  localizedMessage: (AGGREGATE_TYPES as Record<string, string>)[type] ?? type,
});
