CREATE TABLE "policies" (
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"settings" jsonb NOT NULL,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "policies_owner_id_kind_pk" PRIMARY KEY("owner_id","kind")
);
