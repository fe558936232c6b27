CREATE TABLE "aggregate_sequences" (
	"aggregate_type" text NOT NULL,
	"aggregate_id" text NOT NULL,
	"sequence" bigint NOT NULL,
	CONSTRAINT "aggregate_sequences_aggregate_type_aggregate_id_pk" PRIMARY KEY("aggregate_type","aggregate_id")
);
--> statement-breakpoint
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
CREATE TABLE "idps" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"owner_type" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"state" text NOT NULL,
	"styling_type" text NOT NULL,
	"auto_register" boolean NOT NULL,
	"jwt_endpoint" text NOT NULL,
	"jwt_issuer" text NOT NULL,
	"jwt_keys_endpoint" text NOT NULL,
	"jwt_header_name" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instances" (
	"id" text PRIMARY KEY NOT NULL,
	"default_org_id" text NOT NULL,
	"domain" text DEFAULT 'localhost' NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_texts" (
	"owner_id" text NOT NULL,
	"language" text NOT NULL,
	"screens" jsonb NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "login_texts_owner_id_language_pk" PRIMARY KEY("owner_id","language")
);
--> statement-breakpoint
CREATE TABLE "machine_secrets" (
	"user_id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"secret_hash" text NOT NULL,
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
CREATE TABLE "oidc_apps" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_hash" text,
	"config" jsonb NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"material" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "oidc_payloads" (
	"kind" text NOT NULL,
	"id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"grant_id" text,
	"uid" text,
	"user_code" text,
	"consumed_at" bigint,
	"expires_at" timestamp (3) with time zone,
	CONSTRAINT "oidc_payloads_kind_id_pk" PRIMARY KEY("kind","id")
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
CREATE TABLE "password_failures" (
	"user_id" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
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
CREATE TABLE "project_roles" (
	"project_id" text NOT NULL,
	"role_key" text NOT NULL,
	"org_id" text NOT NULL,
	"display_name" text NOT NULL,
	"role_group" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "project_roles_project_id_role_key_pk" PRIMARY KEY("project_id","role_key")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"project_role_assertion" boolean NOT NULL,
	"project_role_check" boolean NOT NULL,
	"has_project_check" boolean NOT NULL,
	"private_labeling_setting" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"project_id" text NOT NULL,
	"role_keys" jsonb NOT NULL,
	"state" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_otp_secrets" (
	"user_id" text PRIMARY KEY NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
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
CREATE UNIQUE INDEX "idps_owner_name_key" ON "idps" USING btree ("owner_id","name_key");--> statement-breakpoint
CREATE UNIQUE INDEX "machine_secrets_client_id" ON "machine_secrets" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "members_user" ON "members" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_apps_client_id" ON "oidc_apps" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "oidc_apps_project" ON "oidc_apps" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "oidc_keys_kind" ON "oidc_keys" USING btree ("kind");--> statement-breakpoint
CREATE INDEX "oidc_payloads_grant" ON "oidc_payloads" USING btree ("grant_id");--> statement-breakpoint
CREATE INDEX "oidc_payloads_uid" ON "oidc_payloads" USING btree ("uid");--> statement-breakpoint
CREATE INDEX "oidc_payloads_expires" ON "oidc_payloads" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "orgs_name_key" ON "orgs" USING btree ("name_key");--> statement-breakpoint
CREATE UNIQUE INDEX "pats_token_hash" ON "personal_access_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "pats_user" ON "personal_access_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_org_name" ON "projects" USING btree ("org_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "user_grants_org_user_project" ON "user_grants" USING btree ("org_id","user_id","project_id");--> statement-breakpoint
CREATE INDEX "user_grants_user" ON "user_grants" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_grants_project" ON "user_grants" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_org_user_name_key" ON "users" USING btree ("org_id","user_name_key");