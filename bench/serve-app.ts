/**
 * The Node server as `npm start` runs it against a real Postgres, in its own process so the load
 * generator never shares its event loop. Prints `{"url": …}` on stdout once it listens.
 * DATABASE_URL, BENCH_POOL_MAX, BENCH_CACHE (`off`: every cached read is a miss).
 */
import { loadConfig } from '../src/config';
import { postgresDatabase } from '../src/db/node';
import { nodeDeps, serveApp } from '../src/node-runtime';
import { benchStore } from './store';
import { closeOnSigterm } from './shutdown';

const database = await postgresDatabase(process.env.DATABASE_URL!, {
  max: Number(process.env.BENCH_POOL_MAX ?? 20),
});
const app = await serveApp(
  nodeDeps(
    loadConfig({ LOG_LEVEL: 'silent' }),
    database.db,
    benchStore(undefined, { cache: process.env.BENCH_CACHE !== 'off' }),
  ),
  0,
  '127.0.0.1',
);
console.log(JSON.stringify({ url: `http://127.0.0.1:${app.port}` }));
closeOnSigterm(app, database);
