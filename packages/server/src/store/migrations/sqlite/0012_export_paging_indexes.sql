DROP INDEX `idp_user_links_org`;--> statement-breakpoint
CREATE INDEX `idp_user_links_org_user` ON `idp_user_links` (`org_id`,`user_id`,`idp_id`,`external_user_id`);--> statement-breakpoint
DROP INDEX `user_metadata_org`;--> statement-breakpoint
CREATE INDEX `user_metadata_org_user_key` ON `user_metadata` (`org_id`,`user_id`,`key`);