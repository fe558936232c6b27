CREATE TABLE "app_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"client_id" text NOT NULL,
	"type" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"public_key" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "app_keys_app" ON "app_keys" USING btree ("app_id");