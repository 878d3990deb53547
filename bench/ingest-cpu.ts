/**
 * Where the ingest's time goes, as CPU (`tsx bench/ingest-cpu.ts`): the batch of
 * `bench/ingest-linking.ts` (1,000 news items into the loaded database, each run rolled back),
 * run BENCH_RUNS times (default 3) in one process. Run 0 is the cold run, run 1 the one
 * `npm run bench` reports as the whole ingest. Per run: the wall time, the Node process's CPU
 * (every thread: the optimising compiler and the garbage collector's helpers too), its main
 * thread's CPU, and the CPU of the Postgres backend that ran the transaction. On a shared 2-core
 * machine the wall time follows the load; the CPU times much less. Linux only (it reads /proc),
 * with Postgres on the same host.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client';
import { postgresDatabase } from '../src/db/node';
import { ingestSignals } from '../src/ingest/pipeline';
import { benchItems, rolledBack } from './ingest-linking';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
const runs = Number(process.env.BENCH_RUNS ?? 3);

/** Milliseconds a thread has run on a CPU (the first field of `schedstat`, in nanoseconds). */
const onCpu = (schedstat: string): number => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;

const database = await postgresDatabase(url, { statementTimeoutMs: 0 });
const now = new Date();
const items = benchItems(now, 1_000);
const mainThread = `/proc/self/task/${process.pid}/schedstat`;
for (let run = 0; run < runs; run++) {
  const figures = await rolledBack(database.db, async (tx) => {
    const [row] = await queryRows<{ pid: number }>(tx, sql`SELECT pg_backend_pid() AS pid`);
    const backend = `/proc/${row!.pid}/schedstat`;
    const node = process.cpuUsage();
    const main = onCpu(mainThread);
    const postgres = onCpu(backend);
    const started = performance.now();
    await ingestSignals(tx, items, { now });
    const used = process.cpuUsage(node);
    return {
      wall: performance.now() - started,
      node: (used.user + used.system) / 1000,
      main: onCpu(mainThread) - main,
      postgres: onCpu(backend) - postgres,
    };
  });
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  console.log(
    `run ${run}: wall ${ms(figures.wall)}, Node CPU ${ms(figures.node)} (main thread ${ms(figures.main)}), Postgres CPU ${ms(figures.postgres)}`,
  );
}
await database.close();
