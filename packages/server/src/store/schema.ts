/**
 * Every table of the service, defined once (see columns.ts for how one definition serves
 * both dialects). State tables hold the current state so reads never replay events; the
 * `events` table is the append-only audit trail written in the same transaction.
 */
import type { ColumnFactory } from './columns.js';

export type MessageTextFields = Partial<
  Record<'title' | 'preHeader' | 'subject' | 'greeting' | 'text' | 'buttonText' | 'footerText', string>
>;

export function defineTables(c: ColumnFactory) {
  const events = c.table(
    'events',
    {
      position: c.serialKey('position'),
      aggregateType: c.text('aggregate_type').notNull(),
      aggregateId: c.text('aggregate_id').notNull(),
      sequence: c.bigint('sequence').notNull(),
      type: c.text('type').notNull(),
      payload: c.json<Record<string, unknown>>('payload').notNull(),
      creator: c.text('creator').notNull(),
      resourceOwner: c.text('resource_owner').notNull(),
      createdAt: c.time('created_at').notNull(),
    },
    (t) => [
      // Two writers racing on one aggregate cannot both win: the loser's transaction fails
      // on this key and is retried with a fresh sequence.
      c.uniqueIndex('events_aggregate_sequence').on(t.aggregateType, t.aggregateId, t.sequence),
      c.index('events_created_at').on(t.createdAt),
      c.index('events_creator').on(t.creator),
    ],
  );

  /** The single instance this deployment serves; created by the first start. */
  const instances = c.table('instances', {
    id: c.text('id').primaryKey(),
    defaultOrgId: c.text('default_org_id').notNull(),
    createdAt: c.time('created_at').notNull(),
  });

  const orgs = c.table(
    'orgs',
    {
      id: c.text('id').primaryKey(),
      name: c.text('name').notNull(),
      /** Lower-cased name: organisation names are unique in the instance, ignoring case. */
      nameKey: c.text('name_key').notNull(),
      state: c.text('state').notNull(),
      primaryDomain: c.text('primary_domain').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.uniqueIndex('orgs_name_key').on(t.nameKey)],
  );

  const users = c.table(
    'users',
    {
      id: c.text('id').primaryKey(),
      orgId: c.text('org_id').notNull(),
      /** 'human' | 'machine' */
      type: c.text('type').notNull(),
      userName: c.text('user_name').notNull(),
      /** Lower-cased user name: unique within the organisation, ignoring case. */
      userNameKey: c.text('user_name_key').notNull(),
      state: c.text('state').notNull(),
      /** Type-specific profile (human: profile/email/phone; machine: name/description/accessTokenType). */
      data: c.json<Record<string, unknown>>('data').notNull(),
      passwordHash: c.text('password_hash'),
      passwordChangeRequired: c.bool('password_change_required').notNull().default(false),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.uniqueIndex('users_org_user_name_key').on(t.orgId, t.userNameKey)],
  );

  const personalAccessTokens = c.table(
    'personal_access_tokens',
    {
      id: c.text('id').primaryKey(),
      userId: c.text('user_id').notNull(),
      /** sha-256 of the token: the token itself is shown once and never stored. */
      tokenHash: c.text('token_hash').notNull(),
      expiresAt: c.time('expires_at').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.uniqueIndex('pats_token_hash').on(t.tokenHash), c.index('pats_user').on(t.userId)],
  );

  /** Memberships: instance (IAM_*), organisation (ORG_*) and project (PROJECT_*) roles. */
  const members = c.table(
    'members',
    {
      /** 'instance' | 'org' | 'project' */
      scopeType: c.text('scope_type').notNull(),
      /** instance id, org id or project id */
      scopeId: c.text('scope_id').notNull(),
      userId: c.text('user_id').notNull(),
      /** The organisation that owns the membership (the project's org for project members). */
      resourceOwner: c.text('resource_owner').notNull(),
      roles: c.json<string[]>('roles').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [
      c.primaryKey({ columns: [t.scopeType, t.scopeId, t.userId] }),
      c.index('members_user').on(t.userId),
    ],
  );

  /** Custom message texts of the instance (owner = instance id) or of an organisation. */
  const messageTexts = c.table(
    'message_texts',
    {
      ownerId: c.text('owner_id').notNull(),
      messageType: c.text('message_type').notNull(),
      language: c.text('language').notNull(),
      fields: c.json<MessageTextFields>('fields').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.ownerId, t.messageType, t.language] })],
  );

  return { events, instances, orgs, users, personalAccessTokens, members, messageTexts };
}

export type Tables = ReturnType<typeof defineTables>;
