CREATE TABLE "machine_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"public_key" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "machine_keys_user" ON "machine_keys" USING btree ("user_id");