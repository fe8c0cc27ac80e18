CREATE TABLE "watch_ingest_cursors" (
	"network" text NOT NULL,
	"commitment" text NOT NULL,
	"address" text NOT NULL,
	"wallet" text NOT NULL,
	"last_signature" text NOT NULL,
	"last_slot" bigint NOT NULL,
	"since_slot" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "watch_ingest_cursors_network_commitment_address_pk" PRIMARY KEY("network","commitment","address")
);
--> statement-breakpoint
CREATE TABLE "watch_ingest_leases" (
	"network" text NOT NULL,
	"commitment" text NOT NULL,
	"wallet" text NOT NULL,
	"owner" text NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "watch_ingest_leases_network_commitment_wallet_pk" PRIMARY KEY("network","commitment","wallet")
);
