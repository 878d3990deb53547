/**
 * The Node server of the stream bench (bench/stream.ts), in its own process so the 2,000
 * clients never share its event loop: on DATABASE_URL (a real Postgres, migrated here) or else
 * the embedded PGlite, as `npm start` runs them. Prints
 * `{"url", "admin", "keys"}` once it listens, then answers `stats` with its CPU and memory.
 */
import { loadConfig } from '../src/config';
import { pgliteDatabase, postgresDatabase } from '../src/db/node';
import { issueKeyForEmail } from '../src/keys/service';
import { nodeDeps, serveApp } from '../src/node-runtime';
import { memoryStore } from '../src/store/memory';
import { closeOnSigterm } from './shutdown';

const KEYS = Number(process.env.BENCH_STREAM_KEYS ?? 400);
const ADMIN = 'bench-admin-token-0123456789abcdef';

const database = process.env.DATABASE_URL
  ? await postgresDatabase(process.env.DATABASE_URL, { migrate: true })
  : await pgliteDatabase();
const config = loadConfig({ LOG_LEVEL: 'silent', ADMIN_TOKEN: ADMIN, SERVER_MAX_CONNECTIONS_PER_IP: '0' });
const keys: string[] = [];
for (let i = 0; i < KEYS; i += 1) {
  keys.push((await issueKeyForEmail(database.db, `bench-${i}@example.org`, 'pro', null)).key);
}
const app = await serveApp(nodeDeps(config, database.db, memoryStore()), 0, '127.0.0.1');

const stats = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  return { cpu: process.cpuUsage(), rss: memory.rss, heap: memory.heapUsed + memory.external };
};
process.on('message', (message) => {
  if (message === 'stats') process.send!(stats());
});
process.send!({ url: `http://127.0.0.1:${app.port}`, admin: ADMIN, keys });
closeOnSigterm(app, database);
