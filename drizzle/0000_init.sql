CREATE TABLE "accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"tier" text DEFAULT 'free' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"name" text,
	"requests_total" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "entities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"normalized" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "signal_entities" (
	"signal_id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"mentions" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "signal_entities_signal_id_entity_id_pk" PRIMARY KEY("signal_id","entity_id")
);
--> statement-breakpoint
CREATE TABLE "signal_hourly" (
	"bucket" timestamp with time zone NOT NULL,
	"region" text NOT NULL,
	"threat_layer" text NOT NULL,
	"signal_count" integer DEFAULT 0 NOT NULL,
	"score_sum" double precision DEFAULT 0 NOT NULL,
	"score_max" double precision DEFAULT 0 NOT NULL,
	"crisis_count" integer DEFAULT 0 NOT NULL,
	"anomaly_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "signal_hourly_bucket_region_threat_layer_pk" PRIMARY KEY("bucket","region","threat_layer")
);
--> statement-breakpoint
CREATE TABLE "signals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"threat_layer" text NOT NULL,
	"significance_score" double precision NOT NULL,
	"signal_valence" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"content_display" text NOT NULL,
	"country_codes" text[] DEFAULT '{}'::text[] NOT NULL,
	"region" text,
	"city" text,
	"lat" double precision,
	"lng" double precision,
	"language" text,
	"source_id" uuid NOT NULL,
	"source_url" text NOT NULL,
	"published_at" timestamp with time zone NOT NULL,
	"collected_at" timestamp with time zone NOT NULL,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"is_anomaly" boolean DEFAULT false NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', coalesce(title, '') || ' ' || coalesce(content_display, '') || ' ' || coalesce(city, ''))) STORED
);
--> statement-breakpoint
CREATE TABLE "source_coverage" (
	"source_id" uuid NOT NULL,
	"region" text NOT NULL,
	"threat_layer" text NOT NULL,
	"signal_count" integer DEFAULT 0 NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "source_coverage_source_id_region_threat_layer_pk" PRIMARY KEY("source_id","region","threat_layer")
);
--> statement-breakpoint
CREATE TABLE "sources" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"url" text,
	"tier" text DEFAULT 'discovered' NOT NULL,
	"language" text,
	"signal_count" integer DEFAULT 0 NOT NULL,
	"last_seen_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sources_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"webhook_id" uuid NOT NULL,
	"delivery_id" uuid NOT NULL,
	"attempted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"signal_count" integer NOT NULL,
	"status" integer,
	"duration_ms" integer NOT NULL,
	"error" text,
	"ok" boolean NOT NULL,
	"is_test" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key_id" uuid NOT NULL,
	"url" text NOT NULL,
	"name" text,
	"secret_ciphertext" text,
	"layers" text[],
	"min_score" double precision,
	"country_codes" text[],
	"valence" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cursor_ingested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cursor_signal_id" uuid,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"pending_delivery_id" uuid,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"failing_since" timestamp with time zone,
	"last_delivery_at" timestamp with time zone,
	"last_status" integer,
	"disabled_reason" text
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_entities" ADD CONSTRAINT "signal_entities_signal_id_signals_id_fk" FOREIGN KEY ("signal_id") REFERENCES "public"."signals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signal_entities" ADD CONSTRAINT "signal_entities_entity_id_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signals" ADD CONSTRAINT "signals_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_coverage" ADD CONSTRAINT "source_coverage_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "entities_normalized_type_key" ON "entities" USING btree ("normalized","type");--> statement-breakpoint
CREATE INDEX "signal_entities_entity_idx" ON "signal_entities" USING btree ("entity_id","signal_id");--> statement-breakpoint
CREATE INDEX "signal_hourly_layer_idx" ON "signal_hourly" USING btree ("threat_layer","bucket");--> statement-breakpoint
CREATE UNIQUE INDEX "signals_source_url_key" ON "signals" USING btree ("source_url");--> statement-breakpoint
CREATE INDEX "signals_rank_idx" ON "signals" USING btree ("significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "signals_layer_rank_idx" ON "signals" USING btree ("threat_layer","significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "signals_region_rank_idx" ON "signals" USING btree ("region","significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "signals_anomaly_rank_idx" ON "signals" USING btree ("significance_score" DESC NULLS LAST,"published_at" DESC NULLS LAST,"id") WHERE "signals"."is_anomaly";--> statement-breakpoint
CREATE INDEX "signals_countries_idx" ON "signals" USING gin ("country_codes");--> statement-breakpoint
CREATE INDEX "signals_search_idx" ON "signals" USING gin ("search");--> statement-breakpoint
CREATE INDEX "signals_geo_idx" ON "signals" USING gist (point("lng", "lat"));--> statement-breakpoint
CREATE INDEX "signals_published_idx" ON "signals" USING btree ("published_at");--> statement-breakpoint
CREATE INDEX "signals_layer_country_time_idx" ON "signals" USING btree ("threat_layer",("country_codes"[1]),"published_at");--> statement-breakpoint
CREATE INDEX "signals_ingest_cursor_idx" ON "signals" USING btree ("ingested_at","id");--> statement-breakpoint
CREATE INDEX "signals_source_idx" ON "signals" USING btree ("source_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_recent_idx" ON "webhook_deliveries" USING btree ("webhook_id","attempted_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhooks_key_idx" ON "webhooks" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "webhooks_due_idx" ON "webhooks" USING btree ("next_attempt_at") WHERE "webhooks"."active";