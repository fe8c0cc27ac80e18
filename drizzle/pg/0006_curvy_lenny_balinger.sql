CREATE TABLE "watch_events" (
	"id" text PRIMARY KEY NOT NULL,
	"watch_id" text NOT NULL,
	"seq" integer NOT NULL,
	"body" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "watches" (
	"id" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"network" text NOT NULL,
	"wallets" text NOT NULL,
	"commitment" text NOT NULL,
	"webhook_url" text,
	"secret_sealed" text,
	"status" text NOT NULL,
	"ended_reason" text,
	"paused_at" bigint,
	"skipped_events" integer DEFAULT 0 NOT NULL,
	"delivered_seq" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"last_error" text,
	"first_failure_at" bigint,
	"lease_owner" text,
	"lease_until" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "watch_events_seq_idx" ON "watch_events" USING btree ("watch_id","seq");--> statement-breakpoint
CREATE INDEX "watch_events_created_idx" ON "watch_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "watches_wallet_idx" ON "watches" USING btree ("wallet");