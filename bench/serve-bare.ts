/**
 * The floor of the budgets: a bare node:http handler that runs one fixed page statement per
 * request through node-postgres and answers with the text Postgres wrote (its `data` column).
 * In its own process, like the app.
 * DATABASE_URL, BENCH_POOL_MAX, BENCH_SQL (`{ "text", "values" }`). Prints `{"url": …}`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const { text, values } = JSON.parse(process.env.BENCH_SQL!) as { text: string; values: unknown[] };
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.BENCH_POOL_MAX ?? 20),
});
const server = createServer((_req, res) => {
  pool.query({ text, values }).then(
    ({ rows }: { rows: { data: string }[] }) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(rows[0]!.data),
    () => res.writeHead(500).end(),
  );
});
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }));
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void pool.end().then(() => process.exit(0)));
});
