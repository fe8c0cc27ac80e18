CREATE TABLE `x402_payments` (
	`tx_key` text PRIMARY KEY NOT NULL,
	`network` text NOT NULL,
	`payer` text NOT NULL,
	`asset` text NOT NULL,
	`amount` integer NOT NULL,
	`pay_to` text NOT NULL,
	`capability` text NOT NULL,
	`face` text NOT NULL,
	`status` text NOT NULL,
	`signature` text,
	`reason` text,
	`created_at` integer NOT NULL,
	`settled_at` integer
);
--> statement-breakpoint
CREATE INDEX `x402_payments_payer_idx` ON `x402_payments` (`payer`,`created_at`);