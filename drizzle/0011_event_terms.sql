ALTER TABLE "events" ADD COLUMN "terms" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "events_terms_idx" ON "events" USING gin ("terms");