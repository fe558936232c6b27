ALTER TABLE "idps" ADD COLUMN "idp_type" text DEFAULT 'IDP_TYPE_JWT' NOT NULL;--> statement-breakpoint
ALTER TABLE "idps" ADD COLUMN "oidc_config" jsonb;--> statement-breakpoint
ALTER TABLE "idps" ADD COLUMN "oidc_client_secret_sealed" text;