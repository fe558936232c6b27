CREATE TABLE "project_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"granted_org_id" text NOT NULL,
	"role_keys" jsonb NOT NULL,
	"state" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_grants" ADD COLUMN "project_grant_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "project_grants_project_org" ON "project_grants" USING btree ("project_id","granted_org_id");--> statement-breakpoint
CREATE INDEX "project_grants_granted_org" ON "project_grants" USING btree ("granted_org_id");--> statement-breakpoint
CREATE INDEX "user_grants_project_grant" ON "user_grants" USING btree ("project_grant_id");