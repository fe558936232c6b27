CREATE TABLE "outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"message_type" text NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"recipient" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"lease_until" timestamp (3) with time zone,
	"last_error" text,
	"delivered_via" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"sent_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "smtp_providers" (
	"id" text PRIMARY KEY NOT NULL,
	"description" text NOT NULL,
	"sender_address" text NOT NULL,
	"sender_name" text NOT NULL,
	"reply_to_address" text NOT NULL,
	"tls" boolean NOT NULL,
	"host" text NOT NULL,
	"smtp_user" text NOT NULL,
	"password_sealed" text,
	"state" text NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_codes" (
	"user_id" text NOT NULL,
	"kind" text NOT NULL,
	"code_hash" text NOT NULL,
	"email" text NOT NULL,
	"attempts" integer NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "user_codes_user_id_kind_pk" PRIMARY KEY("user_id","kind")
);
--> statement-breakpoint
CREATE INDEX "outbox_due" ON "outbox" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "outbox_user" ON "outbox" USING btree ("user_id");