-- The live stream's wake-up (src/stream/, docs/stream.md): every statement that writes signals
-- (ingest, revision, retraction, linking) sends NOTIFY signal_changes. Postgres delivers it at
-- commit, never for a rolled-back write, and folds repeats within one transaction into one, so
-- every writer (admin ingest, the poller, the CLI, another process) wakes every listening server.
-- The payload is the transaction's start time (the updated_at of what it wrote), so a tool can
-- tell when the changes of one updated_at committed (the stream bench measures latency from it).
CREATE OR REPLACE FUNCTION notify_signal_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('signal_changes', to_json(now()) #>> '{}');
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS signals_notify_changes ON signals;
--> statement-breakpoint
CREATE TRIGGER signals_notify_changes AFTER INSERT OR UPDATE ON signals
  FOR EACH STATEMENT EXECUTE FUNCTION notify_signal_changes();
