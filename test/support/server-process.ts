import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
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
  const started = spawnScript('src/server.ts', {
    ...clean,
    PORT: '0',
    SEED: 'false',
    LOG_LEVEL: 'warn',
    ...env,
  });
  const { child, exited } = started;
  try {
    const { output } = await started.until(/Docs:/);
    const bound = /listening on (\S+)/.exec(output)?.[1] ?? '';
    await during({ output, bound, port: Number(/:(\d+)$/.exec(bound)?.[1]) });
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  return started.output();
}

/** A script run by tsx, its output collected, with a way to wait for a line of it. */
export function spawnScript(script: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  /** Resolves with the first match of `pattern` in the output (and the output so far); rejects if it exits first. */
  const until = (pattern: RegExp) =>
    new Promise<{ match: RegExpExecArray; output: string }>((resolve, reject) => {
      const check = setInterval(() => {
        const match = pattern.exec(output);
        if (match) {
          clearInterval(check);
          resolve({ match, output });
        }
      }, 50);
      void exited.then((code) => {
        clearInterval(check);
        reject(new Error(`${script} exited (${code}) before printing ${pattern}:\n${output}`));
      });
    });
  return { child, exited, until, output: () => output };
}

/** Whether something accepts a TCP connection at `host:port`. */
export const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });

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
