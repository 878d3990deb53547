import type { DatabaseHandle } from '../src/db/client';
import type { RunningServer } from '../src/node-runtime';

/** A bench server process stops cleanly on SIGTERM: the server, then its database. */
export function closeOnSigterm(app: RunningServer, database: DatabaseHandle): void {
  process.on(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => database.close())
        .then(() => process.exit(0)),
  );
}
