// `tsx bench/load-only.ts`: just the data load of `npm run bench` (useful to prepare a machine).
import { postgresDatabase } from '../src/db/node';
import { ensureDatabase, loadSignals } from './load';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
await ensureDatabase(url);
// The load copies and indexes 1,000,000 rows: far past the request statement timeout.
const database = await postgresDatabase(url, { migrate: true, statementTimeoutMs: 0 });
const started = Date.now();
const total = await loadSignals(database.db, (line) => console.log(line));
console.log(`${total} signals ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);
await database.close();
