ALTER TABLE "signal_country_daily" ADD COLUMN "event_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_daily" ADD COLUMN "primary_event_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_daily" ADD COLUMN "event_crisis_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_daily" ADD COLUMN "event_score_sum" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_hourly" ADD COLUMN "event_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_hourly" ADD COLUMN "primary_event_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_hourly" ADD COLUMN "event_crisis_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_country_hourly" ADD COLUMN "event_score_sum" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "signal_hourly" ADD COLUMN "event_count" integer DEFAULT 0 NOT NULL;