CREATE TABLE "ingest_minutes" (
	"minute" timestamp with time zone NOT NULL,
	"source_id" uuid NOT NULL,
	"signal_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "ingest_minutes_minute_source_id_pk" PRIMARY KEY("minute","source_id")
);
--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "last_ingested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "ingest_minutes" ADD CONSTRAINT "ingest_minutes_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE cascade ON UPDATE no action;