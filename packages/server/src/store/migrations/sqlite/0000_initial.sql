CREATE TABLE `aggregate_sequences` (
	`aggregate_type` text NOT NULL,
	`aggregate_id` text NOT NULL,
	`sequence` integer NOT NULL,
	PRIMARY KEY(`aggregate_type`, `aggregate_id`)
);
--> statement-breakpoint
CREATE TABLE `events` (
	`position` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`aggregate_type` text NOT NULL,
	`aggregate_id` text NOT NULL,
	`sequence` integer NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`creator` text NOT NULL,
	`resource_owner` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_aggregate_sequence` ON `events` (`aggregate_type`,`aggregate_id`,`sequence`);--> statement-breakpoint
CREATE INDEX `events_created_at` ON `events` (`created_at`);--> statement-breakpoint
CREATE INDEX `events_creator` ON `events` (`creator`);--> statement-breakpoint
CREATE TABLE `idps` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`owner_type` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`state` text NOT NULL,
	`styling_type` text NOT NULL,
	`auto_register` integer NOT NULL,
	`jwt_endpoint` text NOT NULL,
	`jwt_issuer` text NOT NULL,
	`jwt_keys_endpoint` text NOT NULL,
	`jwt_header_name` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `idps_owner_name_key` ON `idps` (`owner_id`,`name_key`);--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`default_org_id` text NOT NULL,
	`domain` text DEFAULT 'localhost' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `login_texts` (
	`owner_id` text NOT NULL,
	`language` text NOT NULL,
	`screens` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `language`)
);
--> statement-breakpoint
CREATE TABLE `machine_secrets` (
	`user_id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `machine_secrets_client_id` ON `machine_secrets` (`client_id`);--> statement-breakpoint
CREATE TABLE `members` (
	`scope_type` text NOT NULL,
	`scope_id` text NOT NULL,
	`user_id` text NOT NULL,
	`resource_owner` text NOT NULL,
	`roles` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	PRIMARY KEY(`scope_type`, `scope_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `members_user` ON `members` (`user_id`);--> statement-breakpoint
CREATE TABLE `message_texts` (
	`owner_id` text NOT NULL,
	`message_type` text NOT NULL,
	`language` text NOT NULL,
	`fields` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `message_type`, `language`)
);
--> statement-breakpoint
CREATE TABLE `oidc_apps` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_hash` text,
	`config` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_apps_client_id` ON `oidc_apps` (`client_id`);--> statement-breakpoint
CREATE INDEX `oidc_apps_project` ON `oidc_apps` (`project_id`);--> statement-breakpoint
CREATE TABLE `oidc_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`material` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE INDEX `oidc_keys_kind` ON `oidc_keys` (`kind`);--> statement-breakpoint
CREATE TABLE `oidc_payloads` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`payload` text NOT NULL,
	`grant_id` text,
	`uid` text,
	`user_code` text,
	`consumed_at` integer,
	`expires_at` integer,
	PRIMARY KEY(`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX `oidc_payloads_grant` ON `oidc_payloads` (`grant_id`);--> statement-breakpoint
CREATE INDEX `oidc_payloads_uid` ON `oidc_payloads` (`uid`);--> statement-breakpoint
CREATE INDEX `oidc_payloads_expires` ON `oidc_payloads` (`expires_at`);--> statement-breakpoint
CREATE TABLE `orgs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`state` text NOT NULL,
	`primary_domain` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orgs_name_key` ON `orgs` (`name_key`);--> statement-breakpoint
CREATE TABLE `password_failures` (
	`user_id` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `personal_access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pats_token_hash` ON `personal_access_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `pats_user` ON `personal_access_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `project_roles` (
	`project_id` text NOT NULL,
	`role_key` text NOT NULL,
	`org_id` text NOT NULL,
	`display_name` text NOT NULL,
	`role_group` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `role_key`)
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`project_role_assertion` integer NOT NULL,
	`project_role_check` integer NOT NULL,
	`has_project_check` integer NOT NULL,
	`private_labeling_setting` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_org_name` ON `projects` (`org_id`,`name`);--> statement-breakpoint
CREATE TABLE `user_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`project_id` text NOT NULL,
	`role_keys` text NOT NULL,
	`state` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_grants_org_user_project` ON `user_grants` (`org_id`,`user_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `user_grants_user` ON `user_grants` (`user_id`);--> statement-breakpoint
CREATE INDEX `user_grants_project` ON `user_grants` (`project_id`);--> statement-breakpoint
CREATE TABLE `user_otp_secrets` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`type` text NOT NULL,
	`user_name` text NOT NULL,
	`user_name_key` text NOT NULL,
	`state` text NOT NULL,
	`data` text NOT NULL,
	`password_hash` text,
	`password_change_required` integer DEFAULT false NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_org_user_name_key` ON `users` (`org_id`,`user_name_key`);