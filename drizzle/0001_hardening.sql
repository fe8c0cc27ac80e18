CREATE TABLE `dust_totals` (
	`wallet` text PRIMARY KEY NOT NULL,
	`lamports` integer NOT NULL,
	`transfers` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "dust_totals_lamports_integer" CHECK(typeof("dust_totals"."lamports") = 'integer')
);
--> statement-breakpoint
DROP INDEX `challenges_wallet_idx`;--> statement-breakpoint
ALTER TABLE `challenges` ADD `requester` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `challenges_wallet_idx` ON `challenges` (`wallet`,`requester`);--> statement-breakpoint
ALTER TABLE `watcher_cursors` ADD `walk_head` text;--> statement-breakpoint
ALTER TABLE `watcher_cursors` ADD `walk_head_slot` integer;--> statement-breakpoint
ALTER TABLE `watcher_cursors` ADD `walk_before` text;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_credit_accounts` (
	`wallet` text PRIMARY KEY NOT NULL,
	`free_calls` integer NOT NULL,
	`credit_lamports` integer NOT NULL,
	`calls_made` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "credit_accounts_free_calls_nonnegative" CHECK("__new_credit_accounts"."free_calls" >= 0),
	CONSTRAINT "credit_accounts_credit_nonnegative" CHECK("__new_credit_accounts"."credit_lamports" >= 0),
	CONSTRAINT "credit_accounts_credit_integer" CHECK(typeof("__new_credit_accounts"."credit_lamports") = 'integer')
);
--> statement-breakpoint
INSERT INTO `__new_credit_accounts`("wallet", "free_calls", "credit_lamports", "calls_made", "created_at", "updated_at") SELECT "wallet", "free_calls", "credit_lamports", "calls_made", "created_at", "updated_at" FROM `credit_accounts`;--> statement-breakpoint
DROP TABLE `credit_accounts`;--> statement-breakpoint
ALTER TABLE `__new_credit_accounts` RENAME TO `credit_accounts`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_pending_claims` (
	`wallet` text PRIMARY KEY NOT NULL,
	`credit_lamports` integer NOT NULL,
	`deposits` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "pending_claims_credit_nonnegative" CHECK("__new_pending_claims"."credit_lamports" >= 0),
	CONSTRAINT "pending_claims_credit_integer" CHECK(typeof("__new_pending_claims"."credit_lamports") = 'integer')
);
--> statement-breakpoint
INSERT INTO `__new_pending_claims`("wallet", "credit_lamports", "deposits", "created_at", "updated_at") SELECT "wallet", "credit_lamports", "deposits", "created_at", "updated_at" FROM `pending_claims`;--> statement-breakpoint
DROP TABLE `pending_claims`;--> statement-breakpoint
ALTER TABLE `__new_pending_claims` RENAME TO `pending_claims`;