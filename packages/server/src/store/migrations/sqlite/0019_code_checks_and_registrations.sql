CREATE TABLE `code_check_failures` (
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`count` integer NOT NULL,
	`last_failure_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `self_registrations` (
	`user_id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
-- The TOTP failure count moves from otp_checks to the code throttle's table (domain/login/code-throttle.ts).
INSERT INTO `code_check_failures` (`user_id`, `kind`, `count`, `last_failure_at`) SELECT `user_id`, 'otp', `count`, `changed_at` FROM `otp_checks` WHERE `count` > 0;
--> statement-breakpoint
ALTER TABLE `otp_checks` DROP COLUMN `count`;