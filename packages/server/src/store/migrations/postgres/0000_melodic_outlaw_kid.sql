CREATE TABLE "events" (
	"position" bigserial PRIMARY KEY NOT NULL,
	"aggregate_type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"sequence" bigint NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"creator" text NOT NULL,
	"resource_owner" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"default_org_id" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "members" (
	"scope_type" text NOT NULL,
	"scope_id" text NOT NULL,
	"user_id" text NOT NULL,
	"resource_owner" text NOT NULL,
	"roles" jsonb NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "members_scope_type_scope_id_user_id_pk" PRIMARY KEY("scope_type","scope_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "message_texts" (
	"owner_id" text NOT NULL,
	"message_type" text NOT NULL,
	"language" text NOT NULL,
	"fields" jsonb NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "message_texts_owner_id_message_type_language_pk" PRIMARY KEY("owner_id","message_type","language")
);
--> statement-breakpoint
CREATE TABLE "orgs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"state" text NOT NULL,
	"primary_domain" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "personal_access_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"user_name" text NOT NULL,
	"user_name_key" text NOT NULL,
	"state" text NOT NULL,
	"data" jsonb NOT NULL,
	"password_hash" text,
	"password_change_required" boolean DEFAULT false NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "events_aggregate_sequence" ON "events" USING btree ("aggregate_type","aggregate_id","sequence");--> statement-breakpoint
CREATE INDEX "events_created_at" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "events_creator" ON "events" USING btree ("creator");--> statement-breakpoint
CREATE INDEX "members_user" ON "members" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orgs_name_key" ON "orgs" USING btree ("name_key");--> statement-breakpoint
CREATE UNIQUE INDEX "pats_token_hash" ON "personal_access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "pats_user" ON "personal_access_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_org_user_name_key" ON "users" USING btree ("org_id","user_name_key");