ALTER TABLE "signals" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "retracted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "external_ids" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "upstream_updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "connector" text;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "options" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "interval_minutes" integer;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "etag" text;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "last_modified" text;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "last_polled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "last_success_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "last_poll_items" integer;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "next_poll_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "signals_sync_idx" ON "signals" USING btree ("updated_at","id");--> statement-breakpoint
CREATE INDEX "signals_external_ids_idx" ON "signals" USING gin ("external_ids");--> statement-breakpoint
CREATE INDEX "signals_city_trgm_idx" ON "signals" USING gin ("city" gin_trgm_ops);