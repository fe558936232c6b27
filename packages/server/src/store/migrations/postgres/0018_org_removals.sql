CREATE TABLE "org_removals" (
	"org_id" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"project_ids" jsonb NOT NULL,
	"idp_ids" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "oidc_payloads_account" ON "oidc_payloads" USING btree ((payload->>'accountId'));--> statement-breakpoint
CREATE INDEX "oidc_payloads_kind_client" ON "oidc_payloads" USING btree ("kind",(payload->>'clientId'));