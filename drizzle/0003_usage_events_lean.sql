PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_usage_events` (
	`id` integer PRIMARY KEY NOT NULL,
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
INSERT INTO `__new_usage_events`("id", "wallet", "at", "capability", "face", "paid_with", "lamports", "refunded", "status") SELECT "id", "wallet", "at", "capability", "face", "paid_with", "lamports", "refunded", "status" FROM `usage_events`;--> statement-breakpoint
DROP TABLE `usage_events`;--> statement-breakpoint
ALTER TABLE `__new_usage_events` RENAME TO `usage_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `usage_events_wallet_idx` ON `usage_events` (`wallet`,`id`);