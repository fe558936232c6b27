CREATE TABLE "import_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"creator_id" text NOT NULL,
	"creator_org_id" text NOT NULL,
	"phase" text NOT NULL,
	"cancel_requested" boolean NOT NULL,
	"node" text NOT NULL,
	"document_file" text,
	"document_bytes" bigint NOT NULL,
	"orgs_done" integer NOT NULL,
	"orgs_total" integer,
	"users_done" integer NOT NULL,
	"users_total" integer,
	"committed_org_ids" jsonb NOT NULL,
	"result" jsonb,
	"error" jsonb,
	"attempts" integer NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp (3) with time zone,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "import_jobs_node_phase" ON "import_jobs" USING btree ("node","phase","created_at");