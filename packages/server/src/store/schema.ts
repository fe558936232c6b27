/**
 * Every table of the service, defined once (see columns.ts for how one definition serves
 * both dialects). State tables hold the current state so reads never replay events; the
 * `events` table is the append-only audit trail written in the same transaction.
 */
import { sql } from 'drizzle-orm';
import type { ColumnFactory } from './columns.js';

export type MessageTextFields = Partial<Record<'title' | 'preHeader' | 'subject' | 'greeting' | 'text' | 'buttonText' | 'footerText', string>>;

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
      // The backstop: sequences come from aggregate_sequences, which serialises the writers of
      // one aggregate; should two ever get the same sequence, one transaction fails here.
      c.uniqueIndex('events_aggregate_sequence').on(t.aggregateType, t.aggregateId, t.sequence),
      c.index('events_created_at').on(t.createdAt),
      c.index('events_creator').on(t.creator),
    ],
  );

  /**
   * The last sequence of each aggregate that has events. Appending an event increments its row
   * in one statement (upsert … returning), which also locks the row until the transaction ends:
   * writers of one aggregate queue there and each reads the sequence its predecessor committed.
   */
  const aggregateSequences = c.table(
    'aggregate_sequences',
    {
      aggregateType: c.text('aggregate_type').notNull(),
      aggregateId: c.text('aggregate_id').notNull(),
      sequence: c.bigint('sequence').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.aggregateType, t.aggregateId] })],
  );

  /** The single instance this deployment serves; created by the first start. */
  const instances = c.table('instances', {
    id: c.text('id').primaryKey(),
    defaultOrgId: c.text('default_org_id').notNull(),
    /** The instance's domain (host of EXTERNAL_URL at first start): organisations' primary domains end in it. */
    domain: c.text('domain').notNull().default('localhost'),
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
    (t) => [
      c.uniqueIndex('users_org_user_name_key').on(t.orgId, t.userNameKey),
      // The export's keyset pages (an organisation's users of one type, by id) read in index order:
      // without it SQLite sorts the whole organisation for every page.
      c.index('users_org_type_id').on(t.orgId, t.type, t.id),
    ],
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
    (t) => [c.primaryKey({ columns: [t.scopeType, t.scopeId, t.userId] }), c.index('members_user').on(t.userId)],
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

  /** Projects of an organisation (ZITADEL's project aggregate; roles and members hang off it). */
  const projects = c.table(
    'projects',
    {
      id: c.text('id').primaryKey(),
      orgId: c.text('org_id').notNull(),
      name: c.text('name').notNull(),
      state: c.text('state').notNull(),
      projectRoleAssertion: c.bool('project_role_assertion').notNull(),
      projectRoleCheck: c.bool('project_role_check').notNull(),
      hasProjectCheck: c.bool('has_project_check').notNull(),
      privateLabelingSetting: c.text('private_labeling_setting').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    // ZITADEL keeps project names unique per organisation.
    (t) => [c.uniqueIndex('projects_org_name').on(t.orgId, t.name)],
  );

  const projectRoles = c.table(
    'project_roles',
    {
      projectId: c.text('project_id').notNull(),
      roleKey: c.text('role_key').notNull(),
      orgId: c.text('org_id').notNull(),
      displayName: c.text('display_name').notNull(),
      group: c.text('role_group').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.projectId, t.roleKey] })],
  );

  /** A user's roles on a project, granted by an organisation (each grant is its own aggregate). */
  const userGrants = c.table(
    'user_grants',
    {
      id: c.text('id').primaryKey(),
      /** The organisation that granted (the resource owner; the project's org). */
      orgId: c.text('org_id').notNull(),
      userId: c.text('user_id').notNull(),
      projectId: c.text('project_id').notNull(),
      /** The project grant it was given through (a project of another organisation), if any. */
      projectGrantId: c.text('project_grant_id'),
      roleKeys: c.json<string[]>('role_keys').notNull(),
      state: c.text('state').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [
      // ZITADEL's unique constraint: one grant per organisation, user and project.
      c.index('user_grants_project_grant').on(t.projectGrantId),
      c.uniqueIndex('user_grants_org_user_project').on(t.orgId, t.userId, t.projectId),
      c.index('user_grants_user').on(t.userId),
      c.index('user_grants_project').on(t.projectId),
    ],
  );

  /**
   * A project granted by its organisation (`org_id`) to another one (domain/projects/grants.ts); the
   * events are the project's. A project is granted to an organisation once.
   */
  const projectGrants = c.table(
    'project_grants',
    {
      id: c.text('id').primaryKey(),
      projectId: c.text('project_id').notNull(),
      orgId: c.text('org_id').notNull(),
      grantedOrgId: c.text('granted_org_id').notNull(),
      roleKeys: c.json<string[]>('role_keys').notNull(),
      state: c.text('state').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.uniqueIndex('project_grants_project_org').on(t.projectId, t.grantedOrgId), c.index('project_grants_granted_org').on(t.grantedOrgId)],
  );

  /**
   * Identity-provider configurations (only JWT ones exist) of an organisation or of the instance.
   * Names are unique per owner, ignoring letter case (ZITADEL's `idp_config_names` constraint).
   */
  const idps = c.table(
    'idps',
    {
      id: c.text('id').primaryKey(),
      /** The owning organisation's id, or the instance id. */
      ownerId: c.text('owner_id').notNull(),
      /** 'IDP_OWNER_TYPE_ORG' | 'IDP_OWNER_TYPE_SYSTEM' */
      ownerType: c.text('owner_type').notNull(),
      name: c.text('name').notNull(),
      nameKey: c.text('name_key').notNull(),
      state: c.text('state').notNull(),
      stylingType: c.text('styling_type').notNull(),
      autoRegister: c.bool('auto_register').notNull(),
      jwtEndpoint: c.text('jwt_endpoint').notNull(),
      jwtIssuer: c.text('jwt_issuer').notNull(),
      jwtKeysEndpoint: c.text('jwt_keys_endpoint').notNull(),
      jwtHeaderName: c.text('jwt_header_name').notNull(),
      /** The `aud` a JWT provider's tokens must contain; '' checks none (ZITADEL's meaning, kept for compatibility). */
      jwtAudience: c.text('jwt_audience').notNull().default(''),
      /**
       * 'IDP_TYPE_JWT' | 'IDP_TYPE_OIDC'. The five jwt_* columns hold '' for an OIDC provider, whose
       * settings are `oidc_config` (client id, issuer, scopes, mappings) and the sealed client secret.
       */
      idpType: c.text('idp_type').notNull().default('IDP_TYPE_JWT'),
      oidcConfig: c.json<{ clientId: string; issuer: string; scopes: string[]; displayNameMapping: string; usernameMapping: string }>('oidc_config'),
      /** Sealed with the operator's key (secrets/secret-box.ts); null when an import brought none. */
      oidcClientSecretSealed: c.text('oidc_client_secret_sealed'),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.uniqueIndex('idps_owner_name_key').on(t.ownerId, t.nameKey)],
  );

  /**
   * A human user's identity at an identity provider (ZITADEL's `user.human.externalidp.added`):
   * the provider's subject (`externalUserId`) signs in as `userId`. One user per (provider,
   * subject); a user may hold several links. Removed with the user and with the provider.
   */
  const idpUserLinks = c.table(
    'idp_user_links',
    {
      idpId: c.text('idp_id').notNull(),
      externalUserId: c.text('external_user_id').notNull(),
      userId: c.text('user_id').notNull(),
      /** The user's organisation (whose export carries the link). */
      orgId: c.text('org_id').notNull(),
      /** The name the provider gave the identity (`preferred_username`, else email, else subject). */
      externalUserName: c.text('external_user_name').notNull(),
      createdAt: c.time('created_at').notNull(),
    },
    (t) => [
      c.primaryKey({ columns: [t.idpId, t.externalUserId] }),
      c.index('idp_user_links_user').on(t.userId),
      // The export's keyset pages (an organisation's links, by user, provider and identity) in index order.
      c.index('idp_user_links_org_user').on(t.orgId, t.userId, t.idpId, t.externalUserId),
    ],
  );

  /**
   * The instance's SMTP providers (ZITADEL's SMTP configs); at most one is active. The password
   * is sealed with the operator's key (secrets/secret-box.ts) and never leaves the store in a read.
   */
  const smtpProviders = c.table('smtp_providers', {
    id: c.text('id').primaryKey(),
    description: c.text('description').notNull(),
    senderAddress: c.text('sender_address').notNull(),
    senderName: c.text('sender_name').notNull(),
    replyToAddress: c.text('reply_to_address').notNull(),
    tls: c.bool('tls').notNull(),
    /** host:port */
    host: c.text('host').notNull(),
    user: c.text('smtp_user').notNull(),
    passwordSealed: c.text('password_sealed'),
    /** 'SMTP_CONFIG_ACTIVE' | 'SMTP_CONFIG_INACTIVE' */
    state: c.text('state').notNull(),
    sequence: c.bigint('sequence').notNull(),
    createdAt: c.time('created_at').notNull(),
    changedAt: c.time('changed_at').notNull(),
  });

  /**
   * Messages to send, queued in the transaction of the change that causes them
   * (domain/notifications/). The worker (background/outbox-worker.ts) leases due rows, renders
   * and sends them, and records the outcome; several processes share the table.
   */
  const outbox = c.table(
    'outbox',
    {
      id: c.text('id').primaryKey(),
      /** 'verify_email' | 'init' */
      messageType: c.text('message_type').notNull(),
      userId: c.text('user_id').notNull(),
      orgId: c.text('org_id').notNull(),
      recipient: c.text('recipient').notNull(),
      /** 'pending' | 'sent' | 'failed' */
      status: c.text('status').notNull(),
      attempts: c.int('attempts').notNull(),
      nextAttemptAt: c.time('next_attempt_at').notNull(),
      leaseUntil: c.time('lease_until'),
      lastError: c.text('last_error'),
      /** Where it went: 'smtp:<provider id>' or 'mail-drop:<file name>'. */
      deliveredVia: c.text('delivered_via'),
      createdAt: c.time('created_at').notNull(),
      sentAt: c.time('sent_at'),
    },
    (t) => [c.index('outbox_due').on(t.status, t.nextAttemptAt), c.index('outbox_user').on(t.userId)],
  );

  /**
   * Imports run as jobs (domain/transfer/import/jobs.ts): the request as it came is spooled to a
   * private file under the receiving process's DATA_DIR (`documentFile`, in the folder whose
   * `node` id it carries); the worker (background/import-job-worker.ts) of a process of that node
   * leases a queued job, runs the import and writes its phase and progress here. Working state,
   * as the outbox is: starting and cancelling append events, the worker's updates do not.
   */
  const importJobs = c.table(
    'import_jobs',
    {
      id: c.text('id').primaryKey(),
      /** Who started it; its permissions are checked again when the job runs. */
      creatorId: c.text('creator_id').notNull(),
      creatorOrgId: c.text('creator_org_id').notNull(),
      /** 'queued' | 'reading' | 'validating' | 'importing' | 'done' | 'failed' | 'cancelled' */
      phase: c.text('phase').notNull(),
      cancelRequested: c.bool('cancel_requested').notNull(),
      /** The folder (DATA_DIR) holding the document: only processes sharing it can run the job. */
      node: c.text('node').notNull(),
      /** The spooled request's file name in that folder; null once the job has ended and the file is gone. */
      documentFile: c.text('document_file'),
      documentBytes: c.bigint('document_bytes').notNull(),
      orgsDone: c.int('orgs_done').notNull(),
      orgsTotal: c.int('orgs_total'),
      usersDone: c.int('users_done').notNull(),
      usersTotal: c.int('users_total'),
      /** Organisations whose transaction committed, each recorded in that same transaction. */
      committedOrgIds: c.json<string[]>('committed_org_ids').notNull(),
      /** (ImportData's answer, once done, is in import_job_results.) */
      /** Why it failed or was cancelled: `{code, id, message}` as the API's error body says it. */
      error: c.json<{ code: number; id: string; message: string }>('error'),
      /** Runs begun (a run interrupted before any organisation committed starts again). */
      attempts: c.int('attempts').notNull(),
      leaseOwner: c.text('lease_owner'),
      leaseUntil: c.time('lease_until'),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
      startedAt: c.time('started_at'),
      finishedAt: c.time('finished_at'),
    },
    (t) => [c.index('import_jobs_node_phase').on(t.node, t.phase, t.createdAt)],
  );

  /**
   * ImportData's answer of a job that is done, as JSON text in parts of about 1 MiB, written with
   * the job's end and read a part at a time: an answer lists every imported id (tens of MiB for a
   * million users), which a JSON column would give back whole to every GetImportJob.
   */
  const importJobResults = c.table(
    'import_job_results',
    {
      jobId: c.text('job_id').notNull(),
      part: c.int('part').notNull(),
      text: c.text('text').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.jobId, t.part] })],
  );

  /**
   * Organisations removed whose users, and the user grants on whose projects, are still being
   * removed in the background (domain/orgs/removal.ts, background/org-removal-worker.ts): the
   * organisation's row is gone at once, its remaining rows go in small transactions, each with its
   * events. The row goes with the last of them.
   */
  const orgRemovals = c.table('org_removals', {
    orgId: c.text('org_id').primaryKey(),
    /** Who removed it: the creator of the cascade's events. */
    creatorId: c.text('creator_id').notNull(),
    /** Its projects when it was removed: the user grants on them (given by it or through its project grants) go first. */
    projectIds: c.json<string[]>('project_ids').notNull(),
    /** Its identity providers: links to them left once its users are gone go last. */
    idpIds: c.json<string[]>('idp_ids').notNull(),
    createdAt: c.time('created_at').notNull(),
  });

  /**
   * One-time codes of a user (email verification, initialisation), stored as SHA-256; a new code
   * of a kind replaces the old one, so only the latest works.
   */
  const userCodes = c.table(
    'user_codes',
    {
      userId: c.text('user_id').notNull(),
      /** 'email_verification' | 'init' */
      kind: c.text('kind').notNull(),
      codeHash: c.text('code_hash').notNull(),
      /** The address a verification code is for (a later email change makes it useless). */
      email: c.text('email').notNull(),
      attempts: c.int('attempts').notNull(),
      expiresAt: c.time('expires_at').notNull(),
      createdAt: c.time('created_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.userId, t.kind] })],
  );

  /**
   * A user's metadata (ZITADEL's user metadata): a key and a value of up to 500,000 bytes, kept
   * as the standard base64 the API speaks. Removed with the user.
   */
  const userMetadata = c.table(
    'user_metadata',
    {
      userId: c.text('user_id').notNull(),
      key: c.text('key').notNull(),
      /** Standard base64 of the bytes. */
      value: c.text('value').notNull(),
      orgId: c.text('org_id').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    // The export's keyset pages (an organisation's values, by user and key) in index order.
    (t) => [c.primaryKey({ columns: [t.userId, t.key] }), c.index('user_metadata_org_user_key').on(t.orgId, t.userId, t.key)],
  );

  /**
   * Policies (domain/policies/): the instance's defaults and organisations' custom ones, one row
   * per owner and kind (`password_complexity`, …), the settings as the API shows them.
   */
  const policies = c.table(
    'policies',
    {
      ownerId: c.text('owner_id').notNull(),
      kind: c.text('kind').notNull(),
      settings: c.json<Record<string, unknown>>('settings').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.ownerId, t.kind] })],
  );

  /**
   * Domains of organisations (domain/orgs/domains.ts): the one generated at creation (verified) and
   * those added by hand, with their validation (type and token, while one is pending). Exactly one per
   * organisation is primary, mirrored in `orgs.primary_domain` (login names use it).
   */
  const orgDomains = c.table(
    'org_domains',
    {
      orgId: c.text('org_id').notNull(),
      domain: c.text('domain').notNull(),
      isVerified: c.bool('is_verified').notNull(),
      isPrimary: c.bool('is_primary').notNull(),
      validationType: c.text('validation_type').notNull(),
      validationToken: c.text('validation_token'),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.orgId, t.domain] }), c.index('org_domains_domain').on(t.domain)],
  );

  /**
   * oidc-provider's stored models (Session, Interaction, Grant, AuthorizationCode, RefreshToken,
   * opaque AccessToken, ClientCredentials …), one row per (kind, id); the payload is the library's
   * own JSON. Not domain state: written without events (see oidc/adapter.ts).
   */
  const oidcPayloads = c.table(
    'oidc_payloads',
    {
      kind: c.text('kind').notNull(),
      id: c.text('id').notNull(),
      payload: c.json<Record<string, unknown>>('payload').notNull(),
      grantId: c.text('grant_id'),
      uid: c.text('uid'),
      userCode: c.text('user_code'),
      /** Seconds since the epoch, as oidc-provider reports `consumed`. */
      consumedAt: c.bigint('consumed_at'),
      /** null = never expires. */
      expiresAt: c.time('expires_at'),
    },
    (t) => [
      c.primaryKey({ columns: [t.kind, t.id] }),
      c.index('oidc_payloads_grant').on(t.grantId),
      c.index('oidc_payloads_uid').on(t.uid),
      c.index('oidc_payloads_expires').on(t.expiresAt),
      // A removed user's rows (repositories/oidc.ts `removeOfUsers`): by the account the payload
      // names, and a machine user's client-credentials tokens by its client id. Without them every
      // removed user was a scan of the table (an organisation's removal, one per user: issue 47).
      c.index('oidc_payloads_account').on(sql`(${sql.raw('payload')}->>'accountId')`),
      c.index('oidc_payloads_kind_client').on(t.kind, sql`(${sql.raw('payload')}->>'clientId')`),
    ],
  );

  /**
   * Key material of the authorization server, shared by every process on this store:
   * signing keys (kind 'signing', a private JWK of SIGNING_ALGORITHMS, oidc/keys.ts) and cookie-signing secrets (kind 'cookie').
   * The newest unexpired key of a kind is used; older unexpired ones stay published/accepted.
   */
  const oidcKeys = c.table(
    'oidc_keys',
    {
      id: c.text('id').primaryKey(),
      kind: c.text('kind').notNull(),
      material: c.json<Record<string, unknown>>('material').notNull(),
      createdAt: c.time('created_at').notNull(),
      /** When the key stops being published and accepted (set when it is rotated out). */
      expiresAt: c.time('expires_at'),
    },
    (t) => [c.index('oidc_keys_kind').on(t.kind)],
  );

  /** OIDC applications of a project (ZITADEL's OIDC app config; the project aggregate owns them). */
  const oidcApps = c.table(
    'oidc_apps',
    {
      id: c.text('id').primaryKey(),
      projectId: c.text('project_id').notNull(),
      orgId: c.text('org_id').notNull(),
      name: c.text('name').notNull(),
      state: c.text('state').notNull(),
      clientId: c.text('client_id').notNull(),
      /** 'oidc', or 'api' (an API application: a client that only introspects tokens; domain/apps/api-apps.ts). */
      appType: c.text('app_type').notNull().default('oidc'),
      /** sha-256 of the generated secret (32 random bytes); null for public clients (auth method NONE). */
      clientSecretHash: c.text('client_secret_hash'),
      /** The OIDC settings as the API shows them (redirectUris, grantTypes, accessTokenType, …); an API app's `{authMethodType}`. */
      config: c.json<Record<string, unknown>>('config').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.uniqueIndex('oidc_apps_client_id').on(t.clientId), c.index('oidc_apps_project').on(t.projectId)],
  );

  /**
   * Keys of applications that authenticate with a signed JWT (private_key_jwt, RFC 7523; ZITADEL's
   * AddAppKey). Only the public key is kept: the private one is returned once and never stored.
   * Rows go with their application (RemoveApp deletes them in its transaction).
   */
  const appKeys = c.table(
    'app_keys',
    {
      id: c.text('id').primaryKey(),
      appId: c.text('app_id').notNull(),
      projectId: c.text('project_id').notNull(),
      orgId: c.text('org_id').notNull(),
      /** The application's client id when the key was made (the `iss`/`sub` of its assertions). */
      clientId: c.text('client_id').notNull(),
      /** 'KEY_TYPE_JSON' (the only type). */
      type: c.text('type').notNull(),
      /** The key stops being accepted at this moment. */
      expiresAt: c.time('expires_at').notNull(),
      /** SPKI PEM of the RSA public key. */
      publicKey: c.text('public_key').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.index('app_keys_app').on(t.appId)],
  );

  /**
   * Keys of machine users (ZITADEL's machine keys), for the JWT-profile grant: the public key only
   * (the private key is returned once when the server makes the pair, never stored).
   */
  const machineKeys = c.table(
    'machine_keys',
    {
      id: c.text('id').primaryKey(),
      userId: c.text('user_id').notNull(),
      orgId: c.text('org_id').notNull(),
      /** 'KEY_TYPE_JSON' (the only type). */
      type: c.text('type').notNull(),
      /** The key stops being accepted at this moment. */
      expiresAt: c.time('expires_at').notNull(),
      /** SPKI PEM of the RSA public key. */
      publicKey: c.text('public_key').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.index('machine_keys_user').on(t.userId)],
  );

  /** Client secrets of machine users, for the client-credentials grant. */
  const machineSecrets = c.table(
    'machine_secrets',
    {
      userId: c.text('user_id').primaryKey(),
      /** The client_id the machine user authenticates with (its user name, unique among secrets). */
      clientId: c.text('client_id').notNull(),
      secretHash: c.text('secret_hash').notNull(),
      createdAt: c.time('created_at').notNull(),
    },
    (t) => [c.uniqueIndex('machine_secrets_client_id').on(t.clientId)],
  );

  /** Failed password checks since the last success, for the lockout policy. */
  const passwordFailures = c.table('password_failures', {
    userId: c.text('user_id').primaryKey(),
    count: c.int('count').notNull(),
    changedAt: c.time('changed_at').notNull(),
  });

  /** The time step of a user's last accepted TOTP code (a code is good only once). */
  const otpChecks = c.table('otp_checks', {
    userId: c.text('user_id').primaryKey(),
    lastStep: c.bigint('last_step'),
    changedAt: c.time('changed_at').notNull(),
  });

  /**
   * Users who registered themselves at the login page (domain/login/registration.ts): while such a
   * user's email is not verified, its password does not sign it in (the page answers as for a wrong
   * one), so that registering with someone else's address gives nothing to try and tells nothing.
   */
  const selfRegistrations = c.table('self_registrations', {
    userId: c.text('user_id').primaryKey(),
    createdAt: c.time('created_at').notNull(),
  });

  /**
   * Wrong short codes of a user since the last right one, per kind of code (domain/login/code-throttle.ts):
   * 'otp' (the sign-in's authenticator code; also the lockout policy's `maxOtpAttempts` count),
   * 'otp_setup', 'email_verification', 'init', 'password_reset'. The count and the time of the last
   * failure decide how long the next check of that kind waits.
   */
  const codeCheckFailures = c.table(
    'code_check_failures',
    {
      userId: c.text('user_id').notNull(),
      kind: c.text('kind').notNull(),
      count: c.int('count').notNull(),
      lastFailureAt: c.time('last_failure_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.userId, t.kind] })],
  );

  /**
   * TOTP secrets of human users (base32, as ZITADEL exports them with `withOtp`). Written by the
   * import; a user without a row has no authenticator app set up.
   */
  const userOtpSecrets = c.table('user_otp_secrets', {
    userId: c.text('user_id').primaryKey(),
    secret: c.text('secret').notNull(),
    createdAt: c.time('created_at').notNull(),
  });

  /**
   * An authenticator app being set up (ZITADEL's TOTP in state "not ready"): the new secret, sealed
   * like `user_otp_secrets`, until the user confirms it with a code (domain/users/otp-enrolment.ts);
   * then it moves there. A new start replaces it.
   */
  const userOtpPending = c.table('user_otp_pending', {
    userId: c.text('user_id').primaryKey(),
    secret: c.text('secret').notNull(),
    createdAt: c.time('created_at').notNull(),
  });

  /** When a user last skipped the offer to set up a second factor (the login policy's `mfaInitSkipLifetime`). */
  const mfaInitSkips = c.table('mfa_init_skips', {
    userId: c.text('user_id').primaryKey(),
    skippedAt: c.time('skipped_at').notNull(),
  });

  /** Custom login-page texts of an organisation: one row per language, the screens as JSON. */
  const loginTexts = c.table(
    'login_texts',
    {
      ownerId: c.text('owner_id').notNull(),
      language: c.text('language').notNull(),
      screens: c.json<Record<string, Record<string, string>>>('screens').notNull(),
      sequence: c.bigint('sequence').notNull(),
      createdAt: c.time('created_at').notNull(),
      changedAt: c.time('changed_at').notNull(),
    },
    (t) => [c.primaryKey({ columns: [t.ownerId, t.language] })],
  );

  return {
    events,
    aggregateSequences,
    instances,
    orgs,
    users,
    personalAccessTokens,
    members,
    messageTexts,
    projects,
    projectRoles,
    userGrants,
    projectGrants,
    idps,
    oidcPayloads,
    oidcKeys,
    oidcApps,
    appKeys,
    machineKeys,
    machineSecrets,
    passwordFailures,
    otpChecks,
    codeCheckFailures,
    selfRegistrations,
    userOtpSecrets,
    loginTexts,
    idpUserLinks,
    smtpProviders,
    outbox,
    importJobs,
    importJobResults,
    userCodes,
    userMetadata,
    policies,
    orgDomains,
    userOtpPending,
    mfaInitSkips,
    orgRemovals,
  };
}

export type Tables = ReturnType<typeof defineTables>;
