CREATE TABLE `machine_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`org_id` text NOT NULL,
	`type` text NOT NULL,
	`expires_at` integer NOT NULL,
	`public_key` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `machine_keys_user` ON `machine_keys` (`user_id`);