CREATE TABLE "user_metadata" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"org_id" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "user_metadata_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
CREATE INDEX "user_metadata_org" ON "user_metadata" USING btree ("org_id");