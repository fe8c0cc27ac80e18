CREATE TABLE `watch_ingest_cursors` (
	`network` text NOT NULL,
	`commitment` text NOT NULL,
	`address` text NOT NULL,
	`wallet` text NOT NULL,
	`last_signature` text NOT NULL,
	`last_slot` integer NOT NULL,
	`since_slot` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`network`, `commitment`, `address`)
);
