/**
 * What a Worker under test is bound to, as in production: a migrated scratch database of the CI
 * Postgres reached by the Neon driver through the WebSocket bridge, and the CI Redis reached by
 * `@upstash/redis` through the Upstash-REST bridge. The bridge keeps this run's keys under a
 * prefix of their own, so no rate-limit bucket or cached read is shared with another run.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { beforeAll } from 'vitest';
import { postgresDatabase } from '../../src/db/node';
import { ADMIN_TOKEN, closeAfterAll } from '../support/harness';
import { startNeonBridge, type NeonBridge } from '../support/neon-bridge';
import {
  createScratchDatabase,
  testDatabaseUrl,
  testRedisUrl,
  type ScratchDatabase,
} from '../support/services';
import { startUpstashBridge, type PauseMode, type UpstashBridge } from '../support/upstash-bridge';
import { startWorkerd, type WorkerdInstance } from './workerd';

export interface WorkerServices {
  /** `DATABASE_URL`, `NEON_WS_PROXY`, `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN`. */
  bindings: Record<string, string>;
  /** The Redis keys this run's Workers wrote that match `pattern`, as the Workers named them. */
  storeKeys(pattern: string): Promise<string[]>;
  /** Takes the store down (see the bridge's `pause`) until `resumeStore()`. */
  pauseStore(mode: PauseMode): void;
  resumeStore(): void;
  close(): Promise<void>;
}

/** Starts both bridges on a fresh scratch database; needs TEST_DATABASE_URL and TEST_REDIS_URL. */
export async function startWorkerServices(): Promise<WorkerServices> {
  const databaseUrl = testDatabaseUrl();
  const redisUrl = testRedisUrl();
  if (!databaseUrl || !redisUrl) throw new Error('TEST_DATABASE_URL and TEST_REDIS_URL must both be set');
  const keyPrefix = `workerd-test:${randomUUID()}`;
  let scratch: ScratchDatabase | undefined;
  let neon: NeonBridge | undefined;
  let upstash: UpstashBridge | undefined;
  let redis: Redis | undefined;

  /** Every key under this run's prefix matching `pattern` (a Redis glob), prefix removed. */
  async function scan(pattern: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis!.scan(cursor, 'MATCH', `${keyPrefix}:${pattern}`, 'COUNT', 1000);
      found.push(...keys.map((key) => key.slice(keyPrefix.length + 1)));
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  async function close(): Promise<void> {
    await upstash?.close();
    await neon?.close();
    await scratch?.drop();
    if (redis) {
      const leftovers = await scan('*');
      if (leftovers.length > 0) await redis.del(...leftovers.map((key) => `${keyPrefix}:${key}`));
      redis.disconnect();
    }
  }

  try {
    scratch = await createScratchDatabase(databaseUrl);
    const migrated = await postgresDatabase(scratch.url, { migrate: true });
    await migrated.close();
    neon = await startNeonBridge();
    upstash = await startUpstashBridge({ redisUrl, keyPrefix });
    redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    bindings: {
      DATABASE_URL: scratch.url,
      NEON_WS_PROXY: `127.0.0.1:${neon.port}/v1`,
      UPSTASH_REDIS_REST_URL: upstash.url,
      UPSTASH_REDIS_REST_TOKEN: upstash.token,
    },
    storeKeys: scan,
    pauseStore: (mode) => upstash.pause(mode),
    resumeStore: () => upstash.resume(),
    close,
  };
}

/**
 * The API Worker in workerd on fresh worker services, started in beforeAll and closed in
 * afterAll: `worker.fetch` and `worker.services` are usable inside tests and hooks.
 */
export function withApiWorker(bindings: Record<string, string>, timeout = 120_000) {
  const closing = closeAfterAll();
  let services: WorkerServices | undefined;
  let worker: WorkerdInstance | undefined;
  beforeAll(async () => {
    services = closing(await startWorkerServices());
    worker = closing(await startWorkerd({ ...services.bindings, ADMIN_TOKEN, ...bindings }));
  }, timeout);
  const started = () => {
    if (!worker || !services) throw new Error('the Worker starts in beforeAll: use it inside a test or hook');
    return { worker, services };
  };
  return {
    fetch: (path: string, init?: RequestInit) => started().worker.fetch(path, init),
    get url() {
      return started().worker.url;
    },
    get services() {
      return started().services;
    },
  };
}
