import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectorFor } from '../../src/sources/registry';
import type { ConnectorName, ParseContext, SourceItem } from '../../src/sources/types';
import type { SourceTier } from '../../src/vocab';

/** A feed document from test/fixtures/feeds (written for the tests, see its README). */
export const fixture = (file: string): string =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'feeds', file), 'utf8');

export const context = (
  tier: SourceTier = 'core',
  options: Record<string, unknown> = {},
  now = new Date('2026-11-23T00:00:00Z'),
): ParseContext => ({ source: { name: 'test source', url: 'https://feed.example/x', tier, options }, now });

/** Parses with the registered connector of that name. */
export function parse(name: ConnectorName, document: string, ctx: ParseContext = context()): SourceItem[] {
  const connector = connectorFor(name);
  if (!connector) throw new Error(`connector ${name} is not registered`);
  return [...connector.parse(document, ctx)];
}

/** The item carrying that external id. */
export function byId(items: SourceItem[], externalId: string): SourceItem {
  const found = items.find((item) => item.external_ids.includes(externalId));
  if (!found) throw new Error(`no item ${externalId} among ${items.length}`);
  return found;
}
