-- Signals stored before sync existed were last changed when they were ingested.
UPDATE "signals" SET "updated_at" = "ingested_at" WHERE "updated_at" > "ingested_at";
