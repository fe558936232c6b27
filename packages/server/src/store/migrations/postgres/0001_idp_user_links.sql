CREATE TABLE "idp_user_links" (
	"idp_id" text NOT NULL,
	"external_user_id" text NOT NULL,
	"user_id" text NOT NULL,
	"org_id" text NOT NULL,
	"external_user_name" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idp_user_links_idp_id_external_user_id_pk" PRIMARY KEY("idp_id","external_user_id")
);
--> statement-breakpoint
CREATE INDEX "idp_user_links_user" ON "idp_user_links" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "idp_user_links_org" ON "idp_user_links" USING btree ("org_id");