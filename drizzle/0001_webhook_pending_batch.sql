ALTER TABLE "webhooks" ADD COLUMN "pending_until_ingested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "pending_until_signal_id" uuid;