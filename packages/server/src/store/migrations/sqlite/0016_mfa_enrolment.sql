CREATE TABLE `mfa_init_skips` (
	`user_id` text PRIMARY KEY NOT NULL,
	`skipped_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_otp_pending` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL
);
