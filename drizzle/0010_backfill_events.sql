-- Signals stored before events existed: each is its own event, under its own id, and leads it
-- unless retracted; its upstream keys come from its external ids (src/events/keys.ts). Publisher family: the source name in lower case (one member, so one publisher).
UPDATE "signals" SET "event_id" = "id", "base_score" = "significance_score", "event_lead" = ("retracted_at" IS NULL);--> statement-breakpoint
INSERT INTO "events" ("id", "threat_layer", "country_codes", "first_seen_at", "last_seen_at", "lead_signal_id",
  "max_score", "signal_count", "publisher_count", "publisher_families", "upstream_keys", "signature", "created_at", "updated_at")
SELECT s."id", s."threat_layer", s."country_codes", s."published_at", s."published_at",
  CASE WHEN s."retracted_at" IS NULL THEN s."id" END, s."significance_score", 1, 1,
  ARRAY[lower(src."name")],
  ARRAY(SELECT regexp_replace(x, '^(cisa-kev|nvd):', 'cve:') FROM unnest(s."external_ids") x
        WHERE x ~ '^(cisa-kev|nvd|usgs|gdacs|eonet):'), '{}'::jsonb, s."ingested_at", s."ingested_at"
FROM "signals" s JOIN "sources" src ON src."id" = s."source_id"
ON CONFLICT ("id") DO NOTHING;
