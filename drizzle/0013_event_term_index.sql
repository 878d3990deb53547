CREATE TABLE "event_terms" (
	"term" text NOT NULL,
	"event_id" uuid NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "event_terms_event_id_term_pk" PRIMARY KEY("event_id","term")
);
--> statement-breakpoint
DROP INDEX "events_terms_idx";--> statement-breakpoint
CREATE INDEX "event_terms_term_time_idx" ON "event_terms" USING btree ("term","last_seen_at" DESC NULLS LAST,"event_id");