CREATE TABLE "signal_country_daily" (
	"bucket" timestamp with time zone NOT NULL,
	"country" text NOT NULL,
	"threat_layer" text NOT NULL,
	"signal_count" integer DEFAULT 0 NOT NULL,
	"primary_count" integer DEFAULT 0 NOT NULL,
	"score_sum" double precision DEFAULT 0 NOT NULL,
	"score_max" double precision DEFAULT 0 NOT NULL,
	"crisis_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "signal_country_daily_bucket_country_threat_layer_pk" PRIMARY KEY("bucket","country","threat_layer")
);
--> statement-breakpoint
CREATE TABLE "signal_country_hourly" (
	"bucket" timestamp with time zone NOT NULL,
	"country" text NOT NULL,
	"threat_layer" text NOT NULL,
	"signal_count" integer DEFAULT 0 NOT NULL,
	"primary_count" integer DEFAULT 0 NOT NULL,
	"score_sum" double precision DEFAULT 0 NOT NULL,
	"score_max" double precision DEFAULT 0 NOT NULL,
	"crisis_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "signal_country_hourly_bucket_country_threat_layer_pk" PRIMARY KEY("bucket","country","threat_layer")
);
--> statement-breakpoint
CREATE TABLE "signal_totals" (
	"threat_layer" text NOT NULL,
	"language" text NOT NULL,
	"signal_count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "signal_totals_threat_layer_language_pk" PRIMARY KEY("threat_layer","language")
);
--> statement-breakpoint
-- Backfill from the signals already stored (retracted ones are no longer counted anywhere).
INSERT INTO "signal_country_hourly" ("bucket", "country", "threat_layer", "signal_count", "primary_count", "score_sum", "score_max", "crisis_count")
SELECT date_trunc('hour', s.published_at), c.code, s.threat_layer, count(*), count(*) FILTER (WHERE c.ord = 1),
       sum(s.significance_score), max(s.significance_score), count(*) FILTER (WHERE s.signal_valence = 'crisis')
FROM "signals" s, unnest(s.country_codes) WITH ORDINALITY AS c(code, ord)
WHERE s.retracted_at IS NULL
GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO "signal_country_daily" ("bucket", "country", "threat_layer", "signal_count", "primary_count", "score_sum", "score_max", "crisis_count")
SELECT date_trunc('day', bucket), country, threat_layer, sum(signal_count), sum(primary_count), sum(score_sum), max(score_max), sum(crisis_count)
FROM "signal_country_hourly"
GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO "signal_totals" ("threat_layer", "language", "signal_count")
SELECT threat_layer, coalesce(language, 'und'), count(*) FROM "signals" WHERE retracted_at IS NULL GROUP BY 1, 2;
--> statement-breakpoint
DELETE FROM "signal_hourly";
--> statement-breakpoint
INSERT INTO "signal_hourly" ("bucket", "region", "threat_layer", "signal_count", "score_sum", "score_max", "crisis_count", "anomaly_count")
SELECT date_trunc('hour', published_at), coalesce(region, ''), threat_layer, count(*), sum(significance_score),
       max(significance_score), count(*) FILTER (WHERE signal_valence = 'crisis'), count(*) FILTER (WHERE is_anomaly)
FROM "signals" WHERE retracted_at IS NULL
GROUP BY 1, 2, 3;
