CREATE TABLE "org_domains" (
	"org_id" text NOT NULL,
	"domain" text NOT NULL,
	"is_verified" boolean NOT NULL,
	"is_primary" boolean NOT NULL,
	"validation_type" text NOT NULL,
	"validation_token" text,
	"sequence" bigint NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"changed_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "org_domains_org_id_domain_pk" PRIMARY KEY("org_id","domain")
);
--> statement-breakpoint
CREATE INDEX "org_domains_domain" ON "org_domains" USING btree ("domain");--> statement-breakpoint
INSERT INTO "org_domains" ("org_id", "domain", "is_verified", "is_primary", "validation_type", "validation_token", "sequence", "created_at", "changed_at") SELECT "id", "primary_domain", true, true, 'DOMAIN_VALIDATION_TYPE_UNSPECIFIED', NULL, "sequence", "created_at", "changed_at" FROM "orgs";
