import type { Deps } from '../deps';
import {
  ingestFeedDocument,
  ingestSourceItems,
  newsGrader,
  UnparseableDocumentError,
  type IngestSourceItems,
  type UpstreamResult,
} from '../ingest/upstream';
import { failureKind, OutboundError, TRUNCATED_HEADER } from '../net/outbound';
import type { SourceTier } from '../vocab';
import { TooManyItemsError } from './common';
import { claimSource, recordFailure, recordSuccess } from './poll-state';
import type { SourceRow } from './rows';
import { connectorFor } from './registry';
import { ConnectorError, type ConnectorName, type SourceConfig } from './types';

/** Every poll waits at most this long for a feed, connect to last byte. */
const POLL_TIMEOUT_MS = 10_000;
/** A scheduled poll skips items older than this (a backfill through the admin ingest keeps them). */
const POLL_MAX_AGE_HOURS = 72;
const FALLBACK_INTERVAL_MINUTES = 60;

export type { IngestSourceItems };

/**
 * Why a poll failed, as stored in `sources.last_error` and shown by `/api/v1/sources`: a kind,
 * never upstream's body or a parser's message (those go to the log only).
 * - the outbound kinds (`timeout`, `dns_failed`, `connect_failed`, `tls_failed`, `blocked_address`)
 * - `http_<status>`: upstream answered an error status; `redirect_<status>`: it moved (not
 *   followed: the operator updates the URL)
 * - `too_large`: the document exceeds SOURCE_MAX_BYTES; `too_many_items`: it carries more than
 *   `MAX_DOCUMENT_ITEMS` (nothing from it is ingested); `malformed`: the connector cannot read it
 * - `misconfigured`: the source lacks what its connector needs (ReliefWeb's `appname`), or names
 *   no known connector; `ingest_failed`: the database refused the items
 */
type PollError = string;

export type PollOutcome = { source: string; connector: string } & (
  | ({ status: 'ok'; items: number } & Omit<UpstreamResult, 'errors'>)
  | { status: 'not_modified' }
  | { status: 'failed'; error: PollError; failures: number; next_poll_at: string | null }
  /** Another run is polling it right now. */
  | { status: 'busy' }
);

export type PollDeps = Pick<Deps, 'db' | 'config' | 'now' | 'fetch' | 'log'>;

export interface PollOptions {
  /** Poll even when not due (the CLI's `sources poll --source NAME`). */
  force?: boolean;
  timeoutMs?: number;
  maxAgeHours?: number;
}

/** `SignalIntel-Sources/1 (+contact)`: who polls, and where feed operators can reach them. */
function pollUserAgent(config: PollDeps['config']): string {
  const contact = config.SOURCE_CONTACT_URL ?? config.PUBLIC_BASE_URL;
  return contact ? `SignalIntel-Sources/1 (+${contact})` : 'SignalIntel-Sources/1';
}

/** Longest `Retry-After` honoured: a feed cannot switch a source off for longer than a day. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60_000;

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from `now`. */
function retryAfterMs(value: string | null, now: Date): number {
  if (!value) return 0;
  const seconds = Number(value);
  const at = Number.isFinite(seconds) ? now.getTime() + seconds * 1000 : Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.min(Math.max(at - now.getTime(), 0), MAX_RETRY_AFTER_MS);
}

/** A failure with what the next poll should wait for, beyond the backoff. */
class PollFailure extends Error {
  constructor(
    readonly kind: PollError,
    readonly retryAfterMs = 0,
  ) {
    super(kind);
  }
}

/**
 * One poll of one source: a conditional GET through the guarded outbound fetch (10 s, size cap,
 * no redirects, address guard), the connector's parse, the ingest, then the outcome recorded on
 * the source row. Validators are stored only once the items are in, so a 304 never hides items
 * that were not ingested. Any failure is recorded on this source and never thrown.
 */
export async function pollSource(
  deps: PollDeps,
  source: SourceRow,
  options: PollOptions = {},
  ingest: IngestSourceItems = ingestSourceItems,
): Promise<PollOutcome> {
  const now = deps.now();
  const named = { source: source.name, connector: source.connector ?? '' };
  if (!(await claimSource(deps.db, source, now, options.force))) return { ...named, status: 'busy' };
  const connector = source.connector ? connectorFor(source.connector as ConnectorName) : undefined;
  const intervalMinutes =
    source.intervalMinutes ?? connector?.defaultIntervalMinutes ?? FALLBACK_INTERVAL_MINUTES;
  try {
    if (!connector || !source.url) throw new PollFailure('misconfigured');
    const config: SourceConfig = {
      name: source.name,
      url: source.url,
      tier: source.tier as SourceTier,
      options: source.options as Record<string, unknown>,
    };
    let url: string;
    try {
      url = connector.requestUrl?.(config, now) ?? source.url;
    } catch (error) {
      if (error instanceof ConnectorError) throw new PollFailure('misconfigured');
      throw error;
    }
    const headers: Record<string, string> = {
      Accept: connector.accept,
      'User-Agent': pollUserAgent(deps.config),
    };
    if (source.etag) headers['If-None-Match'] = source.etag;
    if (source.lastModified) headers['If-Modified-Since'] = source.lastModified;

    let response: Response;
    try {
      response = await deps.fetch(url, {
        headers,
        timeoutMs: options.timeoutMs ?? POLL_TIMEOUT_MS,
        maxBodyBytes: deps.config.SOURCE_MAX_BYTES,
      });
    } catch (error) {
      throw new PollFailure(error instanceof OutboundError ? error.kind : failureKind(error));
    }
    if (response.status === 304) {
      await recordSuccess(deps.db, source, { now, intervalMinutes, items: 0, validators: null });
      return { ...named, status: 'not_modified' };
    }
    if (response.status >= 300 && response.status < 400) {
      throw new PollFailure(`redirect_${response.status}`);
    }
    if (response.status !== 200) {
      throw new PollFailure(
        `http_${response.status}`,
        retryAfterMs(response.headers.get('retry-after'), now),
      );
    }
    if (response.headers.get(TRUNCATED_HEADER)) throw new PollFailure('too_large');
    const document = await response.text();

    // The one document path (src/ingest/upstream.ts), as the admin ingest takes it, with the poll window.
    let ingested: { result: UpstreamResult; items: number };
    try {
      ingested = await ingestFeedDocument(deps.db, connector, source, document, {
        now,
        maxAgeHours: options.maxAgeHours ?? POLL_MAX_AGE_HOURS,
        grader: newsGrader(deps.config, deps.fetch),
        ingest,
      });
    } catch (error) {
      if (error instanceof TooManyItemsError || error instanceof UnparseableDocumentError) {
        deps.log.warn('source document unreadable', { source: source.name, detail: String(error) });
        // Refused whole, as the admin ingest refuses it: a partial ingest would depend on the feed's order.
        throw new PollFailure(error instanceof TooManyItemsError ? 'too_many_items' : 'malformed');
      }
      deps.log.error('source ingest failed', { source: source.name, error: String(error) });
      throw new PollFailure('ingest_failed');
    }
    const { result, items } = ingested;
    await recordSuccess(deps.db, source, {
      now,
      intervalMinutes,
      items,
      validators: { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') },
    });
    const { errors: _errors, ...counts } = result;
    return { ...named, status: 'ok', items, ...counts };
  } catch (error) {
    if (!(error instanceof PollFailure)) {
      deps.log.error('source poll failed', { source: source.name, error: String(error) });
    }
    const kind = error instanceof PollFailure ? error.kind : 'internal_error';
    const retry = error instanceof PollFailure ? error.retryAfterMs : 0;
    const failed = await recordFailure(deps.db, source, {
      now,
      intervalMinutes,
      error: kind,
      retryAfterMs: retry,
    });
    return {
      ...named,
      status: 'failed',
      error: kind,
      failures: failed.failures,
      next_poll_at: failed.nextPollAt.toISOString(),
    };
  }
}
