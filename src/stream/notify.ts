import { rootDatabase, type Database } from '../db/client';
import type { Logger } from '../log';

/** The channel the `signals_notify_changes` trigger (drizzle/0019) notifies at each commit. */
const CHANGES_CHANNEL = 'signal_changes';

interface PgliteClient {
  listen(channel: string, callback: () => void): Promise<() => Promise<void>>;
}
interface PoolClient {
  query(text: string): Promise<unknown>;
  on(event: 'notification' | 'error', listener: (...args: unknown[]) => void): unknown;
  release(destroy?: boolean): void;
}
interface Pool {
  connect(): Promise<PoolClient>;
}

/**
 * Node: calls `onChange` whenever any writer commits a change to signals, in this process or in
 * another one sharing the database (LISTEN/NOTIFY). PGlite listens on its one connection; a
 * Postgres pool gives up one connection to the listener while it runs. A dropped listening
 * connection is replaced, and `onChange` runs once after, for what may have been missed.
 */
export function listenForChanges(db: Database, log: Logger) {
  return async (onChange: () => void): Promise<() => Promise<void>> => {
    const client = (rootDatabase(db) as unknown as { $client: PgliteClient | Pool }).$client;
    if ('listen' in client) return client.listen(CHANGES_CHANNEL, onChange);
    let stopped = false;
    let current: PoolClient | undefined;
    const connect = async (): Promise<void> => {
      const listener = await client.connect();
      current = listener;
      listener.on('notification', () => onChange());
      listener.on('error', (error) => {
        log.warn('stream listener connection lost', { error: String(error) });
        listener.release(true);
        if (stopped) return;
        setTimeout(() => {
          connect()
            .then(onChange)
            .catch((again: unknown) =>
              log.error('stream listener cannot reconnect', { error: String(again) }),
            );
        }, 1_000).unref?.();
      });
      await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
    };
    await connect();
    return async () => {
      stopped = true;
      current?.release(true);
    };
  };
}
