CREATE TABLE `project_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`org_id` text NOT NULL,
	`granted_org_id` text NOT NULL,
	`role_keys` text NOT NULL,
	`state` text NOT NULL,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_grants_project_org` ON `project_grants` (`project_id`,`granted_org_id`);--> statement-breakpoint
CREATE INDEX `project_grants_granted_org` ON `project_grants` (`granted_org_id`);--> statement-breakpoint
ALTER TABLE `user_grants` ADD `project_grant_id` text;--> statement-breakpoint
CREATE INDEX `user_grants_project_grant` ON `user_grants` (`project_grant_id`);