CREATE TABLE "webhook_event_marks" (
	"webhook_id" uuid NOT NULL,
	"signal_id" uuid NOT NULL,
	"delivered_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_event_marks_webhook_id_signal_id_pk" PRIMARY KEY("webhook_id","signal_id")
);
--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "distinct_events" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_event_marks" ADD CONSTRAINT "webhook_event_marks_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_event_marks_age_idx" ON "webhook_event_marks" USING btree ("webhook_id","delivered_at");