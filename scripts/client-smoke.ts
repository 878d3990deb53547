/**
 * `npm run client:smoke` (CI): the client package as a user gets it. Packs `packages/client`
 * with `npm pack`, installs the tarball into a scratch project under a temp dir (its one
 * dependency, `openapi-fetch`, from the npm cache or registry), type-checks every `ts` snippet
 * of the package's README under `tsc --init`'s defaults (`nodenext`) and again with
 * `moduleResolution: bundler`, then runs the compiled snippets with plain `node` against the
 * Node server it starts on a free port (embedded database, demo data).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PACKAGE = join(ROOT, 'packages/client');
const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const NODE_TYPES_VERSION = (require('@types/node/package.json') as { version: string }).version;

const run = (command: string, args: string[], cwd: string) => {
  console.log(`$ ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, npm_config_fund: 'false' } });
};

/** The README's ```ts blocks, in order. */
function snippets(readme: string): string[] {
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** Starts the Node server on a free loopback port with demo data; resolves with its URL and key. */
async function startServer(dataDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const ready = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /Base URL: +(\S+)/.exec(output)?.[1];
      const key = /Demo API key: (sig_\S+)/.exec(output)?.[1];
      if (url && key) resolve({ url, key });
    });
    child.once('exit', (code) =>
      reject(new Error(`the server exited (${code}) before it was ready:\n${output}`)),
    );
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { ...ready, stop };
}

const scratch = mkdtempSync(join(tmpdir(), 'client-smoke-'));
let server: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  run('npm', ['pack', '--workspace', 'packages/client', '--pack-destination', scratch, '--silent'], ROOT);
  const { version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string };
  const tarball = join(scratch, `signal-intel-client-${version}.tgz`);

  const project = join(scratch, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'client-smoke', private: true, type: 'module' }, null, 2),
  );
  run(
    'npm',
    ['install', '--no-audit', '--prefer-offline', tarball, `@types/node@${NODE_TYPES_VERSION}`],
    project,
  );

  // tsc --init as a user runs it; the README says to add Node's types for `process.env`.
  run(process.execPath, [TSC, '--init'], project);
  const defaults = readFileSync(join(project, 'tsconfig.json'), 'utf8');
  if (!/"types": \[\]/.test(defaults)) throw new Error('tsc --init no longer writes "types": []');
  writeFileSync(
    join(project, 'tsconfig.json'),
    defaults.replace('"types": []', '"types": ["node"]').replace(/\{/, '{\n  "include": ["*.ts"],'),
  );
  writeFileSync(
    join(project, 'tsconfig.bundler.json'),
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { module: 'preserve', moduleResolution: 'bundler', noEmit: true },
    }),
  );

  const blocks = snippets(readFileSync(join(PACKAGE, 'README.md'), 'utf8'));
  if (blocks.length === 0) throw new Error('packages/client/README.md has no ts snippet');
  blocks.forEach((code, i) => writeFileSync(join(project, `snippet-${i + 1}.ts`), code));
  run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
  run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'], project);

  server = await startServer(join(scratch, 'data'));
  for (let i = 1; i <= blocks.length; i += 1) {
    console.log(`$ node snippet-${i}.js`);
    execFileSync(process.execPath, [`snippet-${i}.js`], {
      cwd: project,
      stdio: 'inherit',
      timeout: 60_000,
      env: { ...process.env, SIGNAL_API_URL: server.url, SIGNAL_API_KEY: server.key },
    });
  }
  console.log(`client smoke: ${blocks.length} README snippets type-check (nodenext, bundler) and run`);
} finally {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
}
