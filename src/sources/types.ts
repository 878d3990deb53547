import type { z } from '@hono/zod-openapi';
import type { IngestItemSchema } from '../ingest/validate';
import type { Classification } from '../reading/news';
import type { SourceTier } from '../vocab';

/** Connector names are part of the API (`/api/v1/admin/sources`, `sources ingest <connector>`). */
export const CONNECTOR_NAMES = [
  'usgs',
  'gdacs',
  'eonet',
  'nws',
  'cisa-kev',
  'nvd',
  'reliefweb',
  'who-don',
  'gdelt',
  'rss',
] as const;
export type ConnectorName = (typeof CONNECTOR_NAMES)[number];

/**
 * One upstream item as a connector maps it: the admin ingest item (src/ingest/validate.ts) without `source`
 * (the poller names the source row it came from), plus its upstream identity.
 */
export type SourceItem = Omit<z.input<typeof IngestItemSchema>, 'source'> & {
  /** Upstream identities, namespaced `<connector>:<id>`; any overlap is the same signal. */
  external_ids: string[];
  /** The upstream item's own last-update time (ISO 8601), when the feed has one. */
  upstream_updated_at?: string;
  /** Upstream withdrew the item (USGS `status: deleted`): retract the stored signal. */
  retracted?: boolean;
  /** How a news connector read the item (src/reading), stored with the signal for the detail view. */
  classification?: Classification;
};

/** A source row as a connector sees it. */
export interface SourceConfig {
  name: string;
  url: string;
  tier: SourceTier;
  options: Record<string, unknown>;
}

export interface ParseContext {
  source: SourceConfig;
  now: Date;
  /** What the connector left out and why, for the source's health (`/api/v1/sources`). */
  notes?: ParseNotes;
}

export interface ParseNotes {
  /** News items in a language the reading rules do not cover, whose layer or place was unclear. */
  unreadLanguage: number;
}

/** A document the connector cannot read: nothing from it is ingested. */
export class ConnectorError extends Error {
  override name = 'ConnectorError';
}

/** Turns one fetched feed document into signal items. Pure: no I/O, no clock but `now`. */
export interface Connector {
  readonly name: ConnectorName;
  /** The `Accept` header the poller sends. */
  readonly accept: string;
  /** Minutes between polls unless the source row sets its own (each feed's etiquette). */
  readonly defaultIntervalMinutes: number;
  /** The URL to fetch for a source; by default its `url` (GDELT and NVD add query terms). */
  requestUrl?(source: SourceConfig, now: Date): string;
  /**
   * Throws `ConnectorError` when the document is malformed (`TooManyItemsError` when it carries
   * more than `MAX_DOCUMENT_ITEMS`). May be lazy (a generator): the ingest takes items one by one
   * and yields to the event loop between chunks, so errors can surface while iterating.
   */
  parse(document: string, context: ParseContext): Iterable<SourceItem>;
}

/** A source of the built-in catalogue (the poller seeds these rows). */
export interface CatalogueEntry {
  connector: ConnectorName;
  name: string;
  url: string;
  tier: SourceTier;
  interval_minutes: number;
  options?: Record<string, unknown>;
  /** Off until the operator supplies what it needs (ReliefWeb's `appname`). */
  enabled?: boolean;
}
