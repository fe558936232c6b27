CREATE TABLE `org_domains` (
	`org_id` text NOT NULL,
	`domain` text NOT NULL,
	`is_verified` integer NOT NULL,
	`is_primary` integer NOT NULL,
	`validation_type` text NOT NULL,
	`validation_token` text,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `domain`)
);
--> statement-breakpoint
CREATE INDEX `org_domains_domain` ON `org_domains` (`domain`);--> statement-breakpoint
INSERT INTO `org_domains` (`org_id`, `domain`, `is_verified`, `is_primary`, `validation_type`, `validation_token`, `sequence`, `created_at`, `changed_at`) SELECT `id`, `primary_domain`, 1, 1, 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED', NULL, `sequence`, `created_at`, `changed_at` FROM `orgs`;
