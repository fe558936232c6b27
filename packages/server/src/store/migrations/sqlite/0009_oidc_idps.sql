ALTER TABLE `idps` ADD `idp_type` text DEFAULT 'IDP_TYPE_JWT' NOT NULL;--> statement-breakpoint
ALTER TABLE `idps` ADD `oidc_config` text;--> statement-breakpoint
ALTER TABLE `idps` ADD `oidc_client_secret_sealed` text;