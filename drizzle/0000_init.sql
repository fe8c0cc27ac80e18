CREATE TABLE `api_keys` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`wallet` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE INDEX `api_keys_wallet_idx` ON `api_keys` (`wallet`);--> statement-breakpoint
CREATE TABLE `challenges` (
	`challenge` text PRIMARY KEY NOT NULL,
	`wallet` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `challenges_wallet_idx` ON `challenges` (`wallet`);--> statement-breakpoint
CREATE INDEX `challenges_expires_idx` ON `challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `credit_accounts` (
	`wallet` text PRIMARY KEY NOT NULL,
	`free_calls` integer NOT NULL,
	`credit_lamports` integer NOT NULL,
	`calls_made` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "credit_accounts_free_calls_nonnegative" CHECK("credit_accounts"."free_calls" >= 0),
	CONSTRAINT "credit_accounts_credit_nonnegative" CHECK("credit_accounts"."credit_lamports" >= 0)
);
--> statement-breakpoint
CREATE TABLE `deposits` (
	`signature` text NOT NULL,
	`network` text NOT NULL,
	`wallet` text NOT NULL,
	`lamports` integer NOT NULL,
	`slot` integer,
	`source` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`signature`, `wallet`)
);
--> statement-breakpoint
CREATE INDEX `deposits_wallet_idx` ON `deposits` (`wallet`);--> statement-breakpoint
CREATE TABLE `pending_claims` (
	`wallet` text PRIMARY KEY NOT NULL,
	`credit_lamports` integer NOT NULL,
	`deposits` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "pending_claims_credit_nonnegative" CHECK("pending_claims"."credit_lamports" >= 0)
);
--> statement-breakpoint
CREATE TABLE `watcher_cursors` (
	`network` text NOT NULL,
	`address` text NOT NULL,
	`last_signature` text NOT NULL,
	`last_slot` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`network`, `address`)
);
