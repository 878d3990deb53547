CREATE TABLE "events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"threat_layer" text NOT NULL,
	"country_codes" text[] DEFAULT '{}'::text[] NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"lead_signal_id" uuid,
	"max_score" double precision NOT NULL,
	"signal_count" integer DEFAULT 1 NOT NULL,
	"publisher_count" integer DEFAULT 1 NOT NULL,
	"publisher_families" text[] DEFAULT '{}'::text[] NOT NULL,
	"upstream_keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"signature" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"merged_into" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "event_id" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "event_lead" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "corroboration" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "signals" ADD COLUMN "base_score" double precision;--> statement-breakpoint
CREATE INDEX "events_layer_time_idx" ON "events" USING btree ("threat_layer","last_seen_at") WHERE "events"."merged_into" IS NULL;--> statement-breakpoint
CREATE INDEX "events_countries_idx" ON "events" USING gin ("country_codes");--> statement-breakpoint
CREATE INDEX "events_upstream_keys_idx" ON "events" USING gin ("upstream_keys");--> statement-breakpoint
CREATE INDEX "events_merged_into_idx" ON "events" USING btree ("merged_into");--> statement-breakpoint
CREATE INDEX "signals_event_idx" ON "signals" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "signals_lead_rank_idx" ON "signals" USING btree ("significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id") WHERE "signals"."event_lead";--> statement-breakpoint
CREATE INDEX "signals_lead_layer_rank_idx" ON "signals" USING btree ("threat_layer","significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id") WHERE "signals"."event_lead";--> statement-breakpoint
CREATE INDEX "signals_lead_region_rank_idx" ON "signals" USING btree ("region","significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id") WHERE "signals"."event_lead";