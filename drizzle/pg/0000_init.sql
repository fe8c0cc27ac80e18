CREATE TABLE "api_keys" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "challenges" (
	"challenge" text PRIMARY KEY NOT NULL,
	"wallet" text,
	"requester" text DEFAULT '' NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credit_accounts" (
	"wallet" text PRIMARY KEY NOT NULL,
	"free_calls" integer NOT NULL,
	"credit_lamports" bigint NOT NULL,
	"calls_made" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "credit_accounts_free_calls_nonnegative" CHECK ("credit_accounts"."free_calls" >= 0),
	CONSTRAINT "credit_accounts_credit_nonnegative" CHECK ("credit_accounts"."credit_lamports" >= 0)
);
--> statement-breakpoint
CREATE TABLE "deposits" (
	"signature" text NOT NULL,
	"network" text NOT NULL,
	"wallet" text NOT NULL,
	"lamports" bigint NOT NULL,
	"slot" bigint,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "deposits_signature_wallet_pk" PRIMARY KEY("signature","wallet")
);
--> statement-breakpoint
CREATE TABLE "dust_totals" (
	"wallet" text PRIMARY KEY NOT NULL,
	"lamports" bigint NOT NULL,
	"transfers" integer NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pending_claims" (
	"wallet" text PRIMARY KEY NOT NULL,
	"credit_lamports" bigint NOT NULL,
	"deposits" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "pending_claims_credit_nonnegative" CHECK ("pending_claims"."credit_lamports" >= 0)
);
--> statement-breakpoint
CREATE TABLE "rate_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"at" double precision NOT NULL,
	"allowed" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "usage_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"wallet" text NOT NULL,
	"at" bigint NOT NULL,
	"capability" text NOT NULL,
	"face" text NOT NULL,
	"paid_with" text NOT NULL,
	"lamports" bigint NOT NULL,
	"refunded" boolean NOT NULL,
	"status" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "watcher_cursors" (
	"network" text NOT NULL,
	"address" text NOT NULL,
	"last_signature" text NOT NULL,
	"last_slot" bigint,
	"walk_head" text,
	"walk_head_slot" bigint,
	"walk_before" text,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "watcher_cursors_network_address_pk" PRIMARY KEY("network","address")
);
--> statement-breakpoint
CREATE INDEX "api_keys_wallet_idx" ON "api_keys" USING btree ("wallet");--> statement-breakpoint
CREATE INDEX "challenges_wallet_idx" ON "challenges" USING btree ("wallet","requester");--> statement-breakpoint
CREATE INDEX "challenges_expires_idx" ON "challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "deposits_wallet_idx" ON "deposits" USING btree ("wallet");--> statement-breakpoint
CREATE INDEX "usage_events_wallet_idx" ON "usage_events" USING btree ("wallet","id");--> statement-breakpoint
CREATE INDEX "usage_events_at_idx" ON "usage_events" USING btree ("at");