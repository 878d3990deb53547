-- The founder columns of 0015 for rows stored before them: recomputed from the signals, over
-- founders only (id = event_id), with the rules of src/ingest/aggregates.ts.
UPDATE "signal_hourly" h SET "event_count" = f.n
FROM (SELECT date_trunc('hour', "published_at") AS bucket, coalesce("region", '') AS region, "threat_layer", count(*)::int AS n
      FROM "signals" WHERE "id" = "event_id" AND "retracted_at" IS NULL GROUP BY 1, 2, 3) f
WHERE h."bucket" = f.bucket AND h."region" = f.region AND h."threat_layer" = f."threat_layer";--> statement-breakpoint
UPDATE "signal_country_hourly" h SET "event_count" = f.n, "primary_event_count" = f.p, "event_crisis_count" = f.c,
  "event_score_sum" = f.s
FROM (SELECT date_trunc('hour', s."published_at") AS bucket, c.code, s."threat_layer", count(*)::int AS n,
             (count(*) FILTER (WHERE c.ord = 1))::int AS p, (count(*) FILTER (WHERE s."signal_valence" = 'crisis'))::int AS c,
             sum(coalesce(s."base_score", s."significance_score")) AS s
      FROM "signals" s, unnest(s."country_codes") WITH ORDINALITY AS c(code, ord)
      WHERE s."id" = s."event_id" AND s."retracted_at" IS NULL GROUP BY 1, 2, 3) f
WHERE h."bucket" = f.bucket AND h."country" = f.code AND h."threat_layer" = f."threat_layer";--> statement-breakpoint
UPDATE "signal_country_daily" d SET "event_count" = f.n, "primary_event_count" = f.p, "event_crisis_count" = f.c,
  "event_score_sum" = f.s
FROM (SELECT date_trunc('day', "bucket") AS bucket, "country", "threat_layer", sum("event_count")::int AS n,
             sum("primary_event_count")::int AS p, sum("event_crisis_count")::int AS c, sum("event_score_sum") AS s
      FROM "signal_country_hourly" GROUP BY 1, 2, 3) f
WHERE d."bucket" = f.bucket AND d."country" = f."country" AND d."threat_layer" = f."threat_layer";
