CREATE TABLE `org_removals` (
	`org_id` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`project_ids` text NOT NULL,
	`idp_ids` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oidc_payloads_account` ON `oidc_payloads` ((payload->>'accountId'));--> statement-breakpoint
CREATE INDEX `oidc_payloads_kind_client` ON `oidc_payloads` (`kind`,(payload->>'clientId'));