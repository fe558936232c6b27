CREATE TABLE `policies` (
	`owner_id` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `kind`)
);
