import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { accepts, spawnScript } from '../support/server-process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  testDatabaseUrl,
  testRedisUrl,
  type ScratchDatabase,
} from '../support/services';

/** A free loopback port (the OS picks it; wrangler is then told to use it). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Every process below `root`, from `ps` (wrangler, workerd and whatever they start). */
function descendants(root: number): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of rows) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

/** The processes of `pids` still running (a zombie, dead but not yet reaped, does not count). */
function running(pids: number[]): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-p', pids.join(',')], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((line) => line && !/^\s*\d+\s+Z/.test(line));
  } catch {
    return []; // ps exits 1 when none of them exists
  }
}

/** `running(pids)` once it is empty, or what is still running after `ms`. */
async function runningAfter(pids: number[], ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = running(pids);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(!testDatabaseUrl() || !testRedisUrl())('npm run dev:worker', () => {
  let scratch: ScratchDatabase | undefined;
  afterAll(async () => {
    await scratch?.drop();
  });

  it('prints a working key, keeps its secrets off the command line, and leaves nothing behind after SIGTERM', async () => {
    scratch = await createScratchDatabase(testDatabaseUrl()!);
    const port = await freePort();
    const adminToken = 'dev-worker-admin-token-0123456789abcdef';
    const started = spawnScript('scripts/dev-worker.ts', {
      ...process.env,
      DEV_DATABASE_URL: scratch.url,
      DEV_REDIS_URL: testRedisUrl()!,
      PORT: String(port),
      ADMIN_TOKEN: adminToken,
    });
    const { child, exited } = started;
    try {
      const key = (await started.until(/Demo API key: (sig_\S+)/)).match[1]!;
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/signals?limit=1`, {
        headers: { 'X-Api-Key': key },
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('x-ratelimit-tier')).toBe('pro');

      const children = descendants(child.pid!);
      expect(children.length).toBeGreaterThan(0);
      const commandLines = execFileSync('ps', ['-o', 'args=', '-p', [child.pid!, ...children].join(',')], {
        encoding: 'utf8',
      });
      expect(commandLines).toContain('wrangler');
      expect(commandLines).not.toContain(adminToken);
      expect(commandLines).not.toContain('UPSTASH_REDIS_REST_TOKEN');

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // tsx's esbuild service ends when its parent's pipe closes: a moment after, not at once.
      expect(await runningAfter(children, 3_000)).toEqual([]);
      expect(await accepts('127.0.0.1', port)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 300_000);
});
