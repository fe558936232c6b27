CREATE TABLE `outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`message_type` text NOT NULL,
	`user_id` text NOT NULL,
	`org_id` text NOT NULL,
	`recipient` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`lease_until` integer,
	`last_error` text,
	`delivered_via` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_due` ON `outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `outbox_user` ON `outbox` (`user_id`);--> statement-breakpoint
CREATE TABLE `smtp_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`description` text NOT NULL,
	`sender_address` text NOT NULL,
	`sender_name` text NOT NULL,
	`reply_to_address` text NOT NULL,
	`tls` integer NOT NULL,
	`host` text NOT NULL,
	`smtp_user` text NOT NULL,
	`password_sealed` text,
	`state` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_codes` (
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`code_hash` text NOT NULL,
	`email` text NOT NULL,
	`attempts` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `kind`)
);
