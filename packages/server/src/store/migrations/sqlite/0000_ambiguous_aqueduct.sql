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
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`default_org_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
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