/**
 * `npm run cli -- sources <command>`: the operator's side of live sources, on the database
 * (DATABASE_URL or the embedded one). One entry per command in `SOURCE_COMMANDS`; each parses
 * its own arguments from the shared option table below.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { nodeOutboundFetch } from '../net/outbound-node';
import { ingestDocument, newsGrader, UnparseableDocumentError } from '../ingest/upstream';
import { feedUrlProblem } from '../webhooks/guard';
import { pollNow } from './poll-command';
import { connectorFor } from './registry';
import { CreateSourceSchema } from './schemas';
import {
  createSource,
  isConnectorName,
  listPolledSources,
  resolveSource,
  settingsProblem,
  sourceByName,
  sourceView,
  updateSource,
  type SourceRow,
} from './rows';
import type { ConnectorName } from './types';

/** Bad arguments: the CLI prints the message and the usage, and exits 2. */
export class SourceUsageError extends Error {
  override name = 'SourceUsageError';
}

export interface SourceCommandContext {
  config: Config;
  db: Database;
  /** Positional arguments after the command name. */
  args: string[];
  values: SourceOptionValues;
}

/** Options any `sources` command may take (parseArgs is strict: add new ones here). */
const OPTIONS = {
  connector: { type: 'string' },
  source: { type: 'string' },
  tier: { type: 'string' },
  interval: { type: 'string' },
  options: { type: 'string' },
  disabled: { type: 'boolean' },
} as const;
type SourceOptionValues = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

export interface SourceCommand {
  usage: string;
  run(context: SourceCommandContext): Promise<unknown>;
}

const arg = (context: SourceCommandContext, index: number, name: string): string => {
  const value = context.args[index];
  if (!value) throw new SourceUsageError(`${name} is required`);
  return value;
};

async function namedSource(db: Database, name: string): Promise<SourceRow> {
  const row = await sourceByName(db, name);
  if (!row) throw new Error(`no source named ${name}`);
  return row;
}

async function setEnabled(context: SourceCommandContext, enabled: boolean) {
  const row = await namedSource(context.db, arg(context, 0, 'NAME'));
  if (enabled && row.connector) {
    const problem = settingsProblem({
      connector: row.connector as ConnectorName,
      name: row.name,
      url: row.url ?? '',
      tier: row.tier as never,
      interval_minutes: row.intervalMinutes,
      enabled: true,
      options: row.options as Record<string, unknown>,
    });
    if (problem) throw new Error(`cannot enable ${row.name}: ${problem}`);
  }
  return sourceView((await updateSource(context.db, row.id, { enabled }))!);
}

const SOURCE_COMMANDS: Record<string, SourceCommand> = {
  list: {
    usage: 'sources list [--connector C]         polled sources with settings and health',
    async run({ db, values }) {
      if (values.connector && !isConnectorName(values.connector)) {
        throw new SourceUsageError(`unknown connector: ${values.connector}`);
      }
      return (await listPolledSources(db, values.connector as ConnectorName | undefined)).map(sourceView);
    },
  },
  add: {
    usage: 'sources add CONNECTOR NAME FEED_URL [--tier T] [--interval MIN] [--options JSON] [--disabled]',
    async run(context) {
      const { values } = context;
      let options: unknown;
      try {
        options = values.options ? JSON.parse(values.options) : {};
      } catch {
        throw new SourceUsageError('--options must be a JSON object');
      }
      const parsed = CreateSourceSchema.safeParse({
        connector: arg(context, 0, 'CONNECTOR'),
        name: arg(context, 1, 'NAME'),
        url: arg(context, 2, 'FEED_URL'),
        ...(values.tier ? { tier: values.tier } : {}),
        ...(values.interval ? { interval_minutes: Number(values.interval) } : {}),
        enabled: !values.disabled,
        options,
      });
      if (!parsed.success) {
        throw new SourceUsageError(
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        );
      }
      // The admin route's rule: a poll must not be pointed at a private or loopback address.
      const urlIssue = feedUrlProblem(parsed.data.url, context.config.WEBHOOK_ALLOW_INSECURE);
      if (urlIssue) throw new SourceUsageError(`url: ${urlIssue}`);
      const problem = settingsProblem(parsed.data);
      if (problem) throw new SourceUsageError(`options: ${problem}`);
      const row = await createSource(context.db, parsed.data);
      if (!row) throw new Error(`a source named ${parsed.data.name} already exists`);
      return sourceView(row);
    },
  },
  enable: {
    usage: 'sources enable NAME                   poll this source again',
    run: (context) => setEnabled(context, true),
  },
  disable: {
    usage: 'sources disable NAME                  stop polling it (its signals stay)',
    run: (context) => setEnabled(context, false),
  },
  ingest: {
    usage: 'sources ingest CONNECTOR FILE [--source NAME]  ingest a saved feed document (no age cut-off)',
    async run(context) {
      const name = arg(context, 0, 'CONNECTOR');
      const document = readFileSync(arg(context, 1, 'FILE'), 'utf8');
      const source = await resolveSource(context.db, name, context.values.source);
      try {
        const fetch = nodeOutboundFetch({ allowPrivate: context.config.WEBHOOK_ALLOW_INSECURE });
        return await ingestDocument(
          context.db,
          connectorFor(name as ConnectorName)!,
          source,
          document,
          new Date(),
          newsGrader(context.config, fetch),
        );
      } catch (error) {
        if (error instanceof UnparseableDocumentError) throw new Error(error.message, { cause: error });
        throw error;
      }
    },
  },
  poll: {
    usage:
      'sources poll [--source NAME]         one run now: the due sources (or NAME, due or not), then webhooks',
    run: ({ config, db, values }) => pollNow(config, db, { source: values.source }),
  },
};

export const SOURCES_USAGE = Object.values(SOURCE_COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n');

/** Runs `sources <command> …` with `argv` after `sources`; `open` gives the database. */
export async function runSourceCommand(
  argv: string[],
  config: Config,
  open: () => Promise<{ db: Database; close(): Promise<void> }>,
): Promise<unknown> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new SourceUsageError((error as Error).message);
  }
  const [name, ...args] = parsed.positionals;
  const command = name ? SOURCE_COMMANDS[name] : undefined;
  if (!command) throw new SourceUsageError(`unknown sources command: ${name ?? ''}`);
  const handle = await open();
  try {
    return await command.run({ config, db: handle.db, args, values: parsed.values });
  } finally {
    await handle.close();
  }
}
