import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** What a started server printed, and where its banner says it listens. */
export interface StartedServer {
  output: string;
  /** The `host:port` of the banner's "listening on" line. */
  bound: string;
  port: number;
}

/**
 * Starts `src/server.ts` as `npm start` does (tsx) on a free port, waits for its banner, runs
 * `during` while it serves, stops it with SIGTERM and returns everything it printed.
 */
export async function startServer(
  env: Record<string, string>,
  during: (server: StartedServer) => Promise<void> = async () => {},
): Promise<string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(DATABASE_URL|ADMIN_TOKEN|UPSTASH_|TRUST_PROXY|PUBLIC_BASE_URL|HOST$)/.test(name),
    ),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...clean, PORT: '0', SEED: 'false', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (/Docs:/.test(output)) {
          clearInterval(check);
          resolve();
        }
      }, 50);
      void exited.then((code) => {
        clearInterval(check);
        reject(new Error(`server exited (${code}) before its banner:\n${output}`));
      });
    });
    const bound = /listening on (\S+)/.exec(output)?.[1] ?? '';
    await during({ output, bound, port: Number(/:(\d+)$/.exec(bound)?.[1]) });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return output;
}

/** A fresh data directory per call, all removed after the suite. */
export function suiteDataDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
