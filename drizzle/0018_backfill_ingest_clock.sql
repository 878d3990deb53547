-- The ingest clock of 0017 for signals stored before it, with the rules of src/ingest/aggregates.ts
-- (every signal ever written counts, retracted ones too, as they did in /freshness).
UPDATE "sources" SET "last_ingested_at" = f.at
FROM (SELECT "source_id", max("ingested_at") AS at FROM "signals" GROUP BY 1) f
WHERE "sources"."id" = f."source_id";--> statement-breakpoint
INSERT INTO "ingest_minutes" ("minute", "source_id", "signal_count")
SELECT date_trunc('minute', "ingested_at"), "source_id", count(*)::int FROM "signals" GROUP BY 1, 2;
