CREATE TABLE `ledger_debits` (
	`call_id` text PRIMARY KEY NOT NULL,
	`wallet` text NOT NULL,
	`kind` text NOT NULL,
	`price` integer NOT NULL,
	`refunded_at` integer
);
--> statement-breakpoint
ALTER TABLE `usage_events` ADD `call_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `usage_events_call_id_unique` ON `usage_events` (`call_id`);--> statement-breakpoint
ALTER TABLE `x402_payments` ADD `call_id` text;