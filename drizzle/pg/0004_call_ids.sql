CREATE TABLE "ledger_debits" (
	"call_id" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"kind" text NOT NULL,
	"price" bigint NOT NULL,
	"refunded_at" bigint
);
--> statement-breakpoint
ALTER TABLE "usage_events" ADD COLUMN "call_id" text;--> statement-breakpoint
ALTER TABLE "x402_payments" ADD COLUMN "call_id" text;--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_call_id_unique" UNIQUE("call_id");