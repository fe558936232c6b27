CREATE TABLE "otp_checks" (
	"user_id" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"last_step" bigint,
	"changed_at" timestamp (3) with time zone NOT NULL
);
