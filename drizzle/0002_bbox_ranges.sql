DROP INDEX "signals_geo_idx";--> statement-breakpoint
CREATE INDEX "signals_lat_lng_idx" ON "signals" USING btree ("lat","lng");