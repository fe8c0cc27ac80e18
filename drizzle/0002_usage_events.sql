CREATE TABLE `usage_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`wallet` text NOT NULL,
	`at` integer NOT NULL,
	`capability` text NOT NULL,
	`face` text NOT NULL,
	`paid_with` text NOT NULL,
	`lamports` integer NOT NULL,
	`refunded` integer NOT NULL,
	`status` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `usage_events_wallet_idx` ON `usage_events` (`wallet`,`id`);--> statement-breakpoint
CREATE INDEX `usage_events_at_idx` ON `usage_events` (`at`);