CREATE TABLE `import_job_results` (
	`job_id` text NOT NULL,
	`part` integer NOT NULL,
	`text` text NOT NULL,
	PRIMARY KEY(`job_id`, `part`)
);
--> statement-breakpoint
-- The answers of jobs that ended before, moved (one part each).
INSERT INTO `import_job_results` (`job_id`, `part`, `text`) SELECT `id`, 0, `result` FROM `import_jobs` WHERE `result` IS NOT NULL;
--> statement-breakpoint
ALTER TABLE `import_jobs` DROP COLUMN `result`;