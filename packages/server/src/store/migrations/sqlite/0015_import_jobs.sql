CREATE TABLE `import_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`creator_org_id` text NOT NULL,
	`phase` text NOT NULL,
	`cancel_requested` integer NOT NULL,
	`node` text NOT NULL,
	`document_file` text,
	`document_bytes` integer NOT NULL,
	`orgs_done` integer NOT NULL,
	`orgs_total` integer,
	`users_done` integer NOT NULL,
	`users_total` integer,
	`committed_org_ids` text NOT NULL,
	`result` text,
	`error` text,
	`attempts` integer NOT NULL,
	`lease_owner` text,
	`lease_until` integer,
	`sequence` integer NOT NULL,
	`created_at` integer NOT NULL,
	`changed_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `import_jobs_node_phase` ON `import_jobs` (`node`,`phase`,`created_at`);