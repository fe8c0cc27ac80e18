CREATE TABLE "credit_holds" (
	"wallet" text NOT NULL,
	"holder" text NOT NULL,
	"credit_lamports" bigint NOT NULL,
	"calls_made" integer DEFAULT 0 NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "credit_holds_wallet_holder_pk" PRIMARY KEY("wallet","holder"),
	CONSTRAINT "credit_holds_credit_nonnegative" CHECK ("credit_holds"."credit_lamports" >= 0)
);
--> statement-breakpoint
CREATE INDEX "credit_holds_expires_idx" ON "credit_holds" USING btree ("expires_at");