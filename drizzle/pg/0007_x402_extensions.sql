CREATE TABLE "siwx_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"call_id" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "x402_payment_ids" (
	"id" text PRIMARY KEY NOT NULL,
	"payload_hash" text NOT NULL,
	"call_id" text NOT NULL,
	"answer" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "siwx_nonces_expires_idx" ON "siwx_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "x402_payment_ids_expires_idx" ON "x402_payment_ids" USING btree ("expires_at");