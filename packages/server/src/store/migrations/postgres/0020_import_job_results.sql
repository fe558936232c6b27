CREATE TABLE "import_job_results" (
	"job_id" text NOT NULL,
	"part" integer NOT NULL,
	"text" text NOT NULL,
	CONSTRAINT "import_job_results_job_id_part_pk" PRIMARY KEY("job_id","part")
);
--> statement-breakpoint
-- The answers of jobs that ended before, moved (one part each).
INSERT INTO "import_job_results" ("job_id", "part", "text") SELECT "id", 0, "result"::text FROM "import_jobs" WHERE "result" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "import_jobs" DROP COLUMN "result";