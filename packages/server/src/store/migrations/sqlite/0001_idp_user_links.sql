CREATE TABLE `idp_user_links` (
	`idp_id` text NOT NULL,
	`external_user_id` text NOT NULL,
	`user_id` text NOT NULL,
	`org_id` text NOT NULL,
	`external_user_name` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`idp_id`, `external_user_id`)
);
--> statement-breakpoint
CREATE INDEX `idp_user_links_user` ON `idp_user_links` (`user_id`);--> statement-breakpoint
CREATE INDEX `idp_user_links_org` ON `idp_user_links` (`org_id`);