CREATE TABLE `otp_checks` (
	`user_id` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`last_step` integer,
	`changed_at` integer NOT NULL
);
