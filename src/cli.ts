import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config';
import type { DatabaseHandle } from './db/client';
import { ingestSignals } from './ingest/pipeline';
import { seedDemo } from './ingest/seed';
import { runSourceCommand, SOURCES_USAGE, SourceUsageError } from './sources/commands';
import { issueKeyForEmail, normalizeEmail, setAccountTier } from './keys/service';
import { adminToken, liveAwareConfig, nodeDeps, openDatabase, openStore } from './node-runtime';
import { KEY_TIERS, type KeyTier } from './vocab';
import { dispatchWebhooks } from './webhooks/dispatch';
import { nodeEncryptionKey } from './webhooks/node-key';
import { reencryptSecrets } from './webhooks/rotate';

const USAGE = `Usage: npm run cli -- <command> [options]

  ingest FILE                    ingest a JSON array or NDJSON file of signals
  seed [--count N] [--seed S]    load N generated demo signals (default 6000)
  keys create --email E [--tier free|pro] [--name N]
  keys tier --email E --tier free|pro
  dispatch                       run one webhook dispatcher pass now
  webhooks reencrypt             re-encrypt every webhook secret with the newest
                                 WEBHOOK_ENCRYPTION_KEY (after adding a key in front)
  migrate                        apply migrations to DATABASE_URL (or the embedded database)
${SOURCES_USAGE}

  --url URL   talk to a running server's admin API instead of the database
              (uses ADMIN_TOKEN, or the token the server generated under DATA_DIR)`;

class UsageError extends Error {}

/** Calls the admin API of a running server. */
async function callAdmin(config: Config, url: string, path: string, init: RequestInit) {
  const res = await fetch(new URL(path, url), {
    ...init,
    headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${adminToken(config)}` },
  });
  const body = await res.json<unknown>();
  if (!res.ok) throw new Error(`${res.status}: ${JSON.stringify(body)}`);
  return body;
}

function tierOption(value: string | undefined, fallback?: KeyTier): KeyTier {
  const tier = value ?? fallback;
  if (!tier || !(KEY_TIERS as readonly string[]).includes(tier))
    throw new UsageError('--tier must be free or pro');
  return tier as KeyTier;
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`${name} is required`);
  return value;
}

async function run(argv: string[]): Promise<unknown> {
  if (argv[0] === 'sources') {
    const config = liveAwareConfig(loadConfig(process.env));
    return runSourceCommand(argv.slice(1), config, () =>
      openDatabase({ ...config, DB_STATEMENT_TIMEOUT_MS: 0 }),
    );
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      email: { type: 'string' },
      tier: { type: 'string' },
      name: { type: 'string' },
      count: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub] = positionals;
  if (values.help || !command) throw new UsageError('');
  const config = liveAwareConfig(loadConfig(process.env));
  const remote = values.url;

  const withDb = async <T>(work: (db: DatabaseHandle['db']) => Promise<T>): Promise<T> => {
    // Operator batch work (ingest, seed, dispatch) is not a request: no statement timeout.
    const handle = await openDatabase({ ...config, DB_STATEMENT_TIMEOUT_MS: 0 });
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  };

  switch (command) {
    case 'ingest': {
      const file = required(sub, 'FILE');
      const text = readFileSync(file, 'utf8');
      const ndjson = !text.trimStart().startsWith('[');
      if (remote) {
        return callAdmin(config, remote, '/api/v1/admin/signals', {
          method: 'POST',
          headers: { 'Content-Type': ndjson ? 'application/x-ndjson' : 'application/json' },
          body: text,
        });
      }
      const items = ndjson
        ? text
            .split('\n')
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as unknown)
        : (JSON.parse(text) as unknown[]);
      return withDb((db) => ingestSignals(db, items));
    }
    case 'seed': {
      const count = Number(values.count ?? 6000);
      if (!Number.isInteger(count) || count < 1) throw new UsageError('--count must be a positive integer');
      return withDb(async (db) => {
        const result = await seedDemo(db, {
          count,
          now: new Date(),
          seed: values.seed ? Number(values.seed) : undefined,
          onProgress: (done, total) => process.stderr.write(`\r${done}/${total}`),
        });
        process.stderr.write('\n');
        return { accepted: result.accepted, duplicates: result.duplicates, rejected: result.rejected };
      });
    }
    case 'keys': {
      const email = required(values.email, '--email');
      if (sub === 'create') {
        const tier = tierOption(values.tier, 'free');
        const body = { email, tier, ...(values.name ? { name: values.name } : {}) };
        if (remote) {
          return callAdmin(config, remote, '/api/v1/admin/keys', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
        }
        return withDb((db) => issueKeyForEmail(db, email, tier, values.name ?? null));
      }
      if (sub === 'tier') {
        const tier = tierOption(values.tier);
        if (remote) {
          return callAdmin(config, remote, `/api/v1/admin/accounts/${encodeURIComponent(email)}`, {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ tier }),
          });
        }
        return withDb(async (db) => {
          if (!(await setAccountTier(db, email, tier))) throw new Error(`no account with email ${email}`);
          return { email: normalizeEmail(email), tier };
        });
      }
      throw new UsageError(`unknown keys command: ${sub ?? ''}`);
    }
    case 'dispatch': {
      if (remote) return callAdmin(config, remote, '/api/v1/admin/webhooks/dispatch', { method: 'POST' });
      const withKey = { ...config, WEBHOOK_ENCRYPTION_KEY: nodeEncryptionKey(config) };
      return withDb((db) => dispatchWebhooks(nodeDeps(withKey, db, openStore(withKey))));
    }
    case 'webhooks': {
      if (sub !== 'reencrypt') throw new UsageError(`unknown webhooks command: ${sub ?? ''}`);
      if (remote) throw new UsageError('webhooks reencrypt works on the database; drop --url');
      return withDb((db) => reencryptSecrets(db, nodeEncryptionKey(config)));
    }
    case 'migrate':
      // Opening a database applies the migrations.
      return withDb(async () => ({ migrated: true }));
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

try {
  const result = await run(process.argv.slice(2));
  console.log(JSON.stringify(result, null, 2));
} catch (error) {
  if (error instanceof UsageError || error instanceof SourceUsageError) {
    if (error.message) console.error(`Error: ${error.message}\n`);
    console.error(USAGE);
    process.exit(2);
  }
  console.error(error instanceof ConfigError ? error.message : `Error: ${(error as Error).message}`);
  process.exit(1);
}
