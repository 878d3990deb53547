-- The candidate index moves from a GIN on events.terms to a btree table (src/events/link.ts):
-- every live event's terms and upstream keys ('k:<key>'), with its latest publication time.
INSERT INTO "event_terms" ("term", "event_id", "last_seen_at")
SELECT DISTINCT t, e."id", e."last_seen_at"
FROM "events" e, unnest(e."terms" || ARRAY(SELECT 'k:' || k FROM unnest(e."upstream_keys") k)) t
WHERE e."merged_into" IS NULL
ON CONFLICT DO NOTHING;
