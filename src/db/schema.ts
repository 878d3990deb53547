import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
// Generic in the name so the column keeps its SQL name as a type (`SqlRow` reads it).
const timestamptz = <N extends string>(name: N) => timestamp(name, { withTimezone: true, mode: 'date' });

export const sources = pgTable('sources', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  url: text('url'),
  tier: text('tier').notNull().default('discovered'),
  language: text('language'),
  signalCount: integer('signal_count').notNull().default(0),
  lastSeenAt: timestamptz('last_seen_at'),
  /** The `ingested_at` of its newest signal (what /freshness reads). */
  lastIngestedAt: timestamptz('last_ingested_at'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
  /** Live-data connector that polls this source (`usgs`, `rss`, …); null for ingest-only sources. */
  connector: text('connector'),
  /** Connector options (query, topic, CVSS floor, appname, …). */
  options: jsonb('options')
    .notNull()
    .default(sql`'{}'::jsonb`),
  intervalMinutes: integer('interval_minutes'),
  enabled: boolean('enabled').notNull().default(true),
  /** Conditional GET validators kept from the last 200. */
  etag: text('etag'),
  lastModified: text('last_modified'),
  lastPolledAt: timestamptz('last_polled_at'),
  lastSuccessAt: timestamptz('last_success_at'),
  lastError: text('last_error'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  lastPollItems: integer('last_poll_items'),
  /** News items dropped because their language is not one the reading rules cover (all time). */
  unreadLanguageItems: integer('unread_language_items').notNull().default(0),
  /** When the poller may next fetch it (interval, or backoff after failures). */
  nextPollAt: timestamptz('next_poll_at'),
});

/** Per-source coverage, kept up to date by ingest so /sources never scans signals. */
export const sourceCoverage = pgTable(
  'source_coverage',
  {
    sourceId: uuid('source_id')
      .notNull()
      .references(() => sources.id, { onDelete: 'cascade' }),
    region: text('region').notNull(),
    threatLayer: text('threat_layer').notNull(),
    signalCount: integer('signal_count').notNull().default(0),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.region, t.threatLayer] })],
);

export const signals = pgTable(
  'signals',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    threatLayer: text('threat_layer').notNull(),
    significanceScore: doublePrecision('significance_score').notNull(),
    signalValence: text('signal_valence').notNull(),
    title: text('title').notNull().default(''),
    contentDisplay: text('content_display').notNull(),
    countryCodes: text('country_codes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    region: text('region'),
    city: text('city'),
    lat: doublePrecision('lat'),
    lng: doublePrecision('lng'),
    language: text('language'),
    sourceId: uuid('source_id')
      .notNull()
      .references(() => sources.id),
    sourceUrl: text('source_url').notNull(),
    publishedAt: timestamptz('published_at').notNull(),
    collectedAt: timestamptz('collected_at').notNull(),
    ingestedAt: timestamptz('ingested_at').notNull().defaultNow(),
    isAnomaly: boolean('is_anomaly').notNull().default(false),
    /** Set at ingest; bumped by an upstream revision or a retraction (sync reads it). */
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    /** An upstream withdrawal: no longer served, still listed by `updated_since` sync. */
    retractedAt: timestamptz('retracted_at'),
    /** Upstream identities, namespaced `<connector>:<id>` (USGS lists several per event). */
    externalIds: text('external_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The upstream item's own update time, so an older copy never overwrites a newer one. */
    upstreamUpdatedAt: timestamptz('upstream_updated_at'),
    /** How a news item was read at ingest (src/reading): rules, casualties, kind, score terms. Null for feeds with their own facts. */
    classification: jsonb('classification'),
    /**
     * The event this signal belongs to (`events.id`; never a merged-away id). Set at ingest:
     * a new signal first gets an event of its own (its own id), then the linker may move it.
     */
    eventId: uuid('event_id')
      .notNull()
      .default(sql`gen_random_uuid()`),
    /** True on exactly one live signal per event: its strongest (what `distinct=event` reads). */
    eventLead: boolean('event_lead').notNull().default(true),
    /** The event's independent publishers (families counted once), copied onto every member. */
    corroboration: integer('corroboration').notNull().default(1),
    /**
     * The score as read from the source, before the corroboration term; `significance_score`
     * is this plus the term. Null on signals stored before events existed (no term yet).
     */
    baseScore: doublePrecision('base_score'),
    search: tsvector('search').generatedAlwaysAs(
      sql`to_tsvector('english', coalesce(title, '') || ' ' || coalesce(content_display, '') || ' ' || coalesce(city, ''))`,
    ),
  },
  (t) => [
    uniqueIndex('signals_source_url_key').on(t.sourceUrl),
    index('signals_rank_idx').on(t.significanceScore.desc(), t.publishedAt.desc(), t.id),
    index('signals_layer_rank_idx').on(t.threatLayer, t.significanceScore.desc(), t.publishedAt.desc(), t.id),
    index('signals_region_rank_idx').on(t.region, t.significanceScore.desc(), t.publishedAt.desc(), t.id),
    index('signals_anomaly_rank_idx')
      .on(t.significanceScore.desc(), t.publishedAt.desc(), t.id)
      .where(sql`${t.isAnomaly}`),
    index('signals_countries_idx').using('gin', t.countryCodes),
    index('signals_search_idx').using('gin', t.search),
    index('signals_lat_lng_idx').on(t.lat, t.lng),
    index('signals_published_idx').on(t.publishedAt),
    index('signals_layer_country_time_idx').on(t.threatLayer, sql`(${t.countryCodes}[1])`, t.publishedAt),
    index('signals_ingest_cursor_idx').on(t.ingestedAt, t.id),
    index('signals_source_idx').on(t.sourceId),
    index('signals_sync_idx').on(t.updatedAt, t.id),
    index('signals_external_ids_idx').using('gin', t.externalIds),
    index('signals_city_trgm_idx').using('gin', t.city.op('gin_trgm_ops')),
    index('signals_event_idx').on(t.eventId),
    // `distinct=event` reads: the same rank orders as above, over one signal per event.
    index('signals_lead_rank_idx')
      .on(t.significanceScore.desc(), t.publishedAt.desc(), t.id)
      .where(sql`${t.eventLead}`),
    index('signals_lead_layer_rank_idx')
      .on(t.threatLayer, t.significanceScore.desc(), t.publishedAt.desc(), t.id)
      .where(sql`${t.eventLead}`),
    index('signals_lead_region_rank_idx')
      .on(t.region, t.significanceScore.desc(), t.publishedAt.desc(), t.id)
      .where(sql`${t.eventLead}`),
  ],
);

/**
 * One real-world happening, told by one or more signals (src/events/README.md). An id never
 * changes once given out: a merge keeps the older event and points the other at it.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    threatLayer: text('threat_layer').notNull(),
    /** Union of the members' countries. */
    countryCodes: text('country_codes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Earliest and latest `published_at` of its members (the candidate index's time axis). */
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
    /** The strongest live member (highest base score, then earliest); null when all are retracted. */
    leadSignalId: uuid('lead_signal_id'),
    /** Highest base score among live members. */
    maxScore: doublePrecision('max_score').notNull(),
    signalCount: integer('signal_count').notNull().default(1),
    /** Distinct publisher families (src/events/publisher-families.json) among live members. */
    publisherCount: integer('publisher_count').notNull().default(1),
    publisherFamilies: text('publisher_families')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Upstream keys shared across feeds: `cve:CVE-2024-1234`, `glide:EQ-2024-000123-JPN`, `usgs:us7000abcd`. */
    upstreamKeys: text('upstream_keys')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /**
     * What the linker compares a new signal with: `{ texts: [...] }` (a few members' headline
     * and summary) and, for hazards, `{ hazard: { kind, lat, lng, at, magnitude } }`.
     */
    signature: jsonb('signature')
      .notNull()
      .default(sql`'{}'::jsonb`),
    /** The candidate index (src/events/match.ts `termsOf`): headline words by day, quake time slots. */
    terms: text('terms')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Set when this event was merged into an older one: reads redirect there. */
    mergedInto: uuid('merged_into'),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // The candidate index: live events of a layer by recency, then by country.
    index('events_layer_time_idx')
      .on(t.threatLayer, t.lastSeenAt)
      .where(sql`${t.mergedInto} IS NULL`),
    index('events_countries_idx').using('gin', t.countryCodes),
    index('events_upstream_keys_idx').using('gin', t.upstreamKeys),
    index('events_merged_into_idx').on(t.mergedInto),
  ],
);

/**
 * The candidate index of live events, one row per term of `events.terms`. A btree by term and
 * recency lets a lookup read at most a few newest events per term (`NEWS.perTerm`): a GIN
 * posting list must be read whole, and grows with every event sharing a name and a day.
 */
export const eventTerms = pgTable(
  'event_terms',
  {
    term: text('term').notNull(),
    eventId: uuid('event_id').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.term] }),
    index('event_terms_term_time_idx').on(t.term, t.lastSeenAt.desc(), t.eventId),
  ],
);

export const entities = pgTable(
  'entities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    normalized: text('normalized').notNull(),
  },
  (t) => [uniqueIndex('entities_normalized_type_key').on(t.normalized, t.type)],
);

export const signalEntities = pgTable(
  'signal_entities',
  {
    signalId: uuid('signal_id')
      .notNull()
      .references(() => signals.id, { onDelete: 'cascade' }),
    entityId: uuid('entity_id')
      .notNull()
      .references(() => entities.id, { onDelete: 'cascade' }),
    mentions: integer('mentions').notNull().default(1),
  },
  (t) => [
    primaryKey({ columns: [t.signalId, t.entityId] }),
    index('signal_entities_entity_idx').on(t.entityId, t.signalId),
  ],
);

/** Hourly aggregates by region and layer, kept up to date by ingest (snapshots read these). */
export const signalHourly = pgTable(
  'signal_hourly',
  {
    bucket: timestamptz('bucket').notNull(),
    region: text('region').notNull(),
    threatLayer: text('threat_layer').notNull(),
    signalCount: integer('signal_count').notNull().default(0),
    scoreSum: doublePrecision('score_sum').notNull().default(0),
    scoreMax: doublePrecision('score_max').notNull().default(0),
    crisisCount: integer('crisis_count').notNull().default(0),
    anomalyCount: integer('anomaly_count').notNull().default(0),
    /** Founders only (`id = event_id`): each event once, however many outlets told it. */
    eventCount: integer('event_count').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.bucket, t.region, t.threatLayer] }),
    index('signal_hourly_layer_idx').on(t.threatLayer, t.bucket),
  ],
);

export const accounts = pgTable('accounts', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull().unique(),
  tier: text('tier').notNull().default('free'),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    name: text('name'),
    requestsTotal: bigint('requests_total', { mode: 'number' }).notNull().default(0),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_key_hash_key').on(t.keyHash), index('api_keys_account_idx').on(t.accountId)],
);

export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    keyId: uuid('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    name: text('name'),
    secretCiphertext: text('secret_ciphertext'),
    layers: text('layers').array(),
    minScore: doublePrecision('min_score'),
    countryCodes: text('country_codes').array(),
    valence: text('valence'),
    active: boolean('active').notNull().default(true),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
    /** (ingested_at, id) of the last signal delivered with a 2xx; starts at creation. */
    cursorIngestedAt: timestamptz('cursor_ingested_at').notNull().defaultNow(),
    cursorSignalId: uuid('cursor_signal_id'),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    leaseUntil: timestamptz('lease_until'),
    pendingDeliveryId: uuid('pending_delivery_id'),
    /** (ingested_at, id) of the last signal of the pending batch, so a retry sends the same signals. */
    pendingUntilIngestedAt: timestamptz('pending_until_ingested_at'),
    pendingUntilSignalId: uuid('pending_until_signal_id'),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    failingSince: timestamptz('failing_since'),
    lastDeliveryAt: timestamptz('last_delivery_at'),
    lastStatus: integer('last_status'),
    disabledReason: text('disabled_reason'),
    /** Deliver an event's first matching signal only, not its echoes (webhooks/dispatch.ts). */
    distinctEvents: boolean('distinct_events').notNull().default(false),
  },
  (t) => [
    index('webhooks_key_idx').on(t.keyId),
    index('webhooks_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.active}`),
  ],
);

/**
 * The signals a `distinct_events` webhook delivered (with a 2xx): an event counts as delivered
 * when any of its signals is here, whichever event those signals belong to after merges.
 * Kept for 30 days (pruned with the delivery log).
 */
export const webhookEventMarks = pgTable(
  'webhook_event_marks',
  {
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    signalId: uuid('signal_id').notNull(),
    deliveredAt: timestamptz('delivered_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.webhookId, t.signalId] }),
    index('webhook_event_marks_age_idx').on(t.webhookId, t.deliveredAt),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    deliveryId: uuid('delivery_id').notNull(),
    attemptedAt: timestamptz('attempted_at').notNull().defaultNow(),
    signalCount: integer('signal_count').notNull(),
    status: integer('status'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    ok: boolean('ok').notNull(),
    isTest: boolean('is_test').notNull().default(false),
  },
  (t) => [index('webhook_deliveries_recent_idx').on(t.webhookId, t.attemptedAt.desc())],
);

/** The columns of the per-country buckets (hourly and daily). */
const countryBucketColumns = () => ({
  bucket: timestamptz('bucket').notNull(),
  country: text('country').notNull(),
  threatLayer: text('threat_layer').notNull(),
  signalCount: integer('signal_count').notNull().default(0),
  primaryCount: integer('primary_count').notNull().default(0),
  scoreSum: doublePrecision('score_sum').notNull().default(0),
  scoreMax: doublePrecision('score_max').notNull().default(0),
  crisisCount: integer('crisis_count').notNull().default(0),
  /** The same over founders only (`id = event_id`): each event once, not each of its echoes. */
  eventCount: integer('event_count').notNull().default(0),
  primaryEventCount: integer('primary_event_count').notNull().default(0),
  eventCrisisCount: integer('event_crisis_count').notNull().default(0),
  eventScoreSum: doublePrecision('event_score_sum').notNull().default(0),
});

/**
 * Hourly aggregates by country and layer, kept up to date by ingest (src/ingest/aggregates.ts):
 * `signal_count` counts every signal naming the country, `primary_count` those naming it first.
 * Compound crises and trending read these instead of scanning signals.
 */
export const signalCountryHourly = pgTable('signal_country_hourly', countryBucketColumns(), (t) => [
  primaryKey({ columns: [t.bucket, t.country, t.threatLayer] }),
]);

/** `signal_country_hourly` summed by UTC day, so month-long windows read ~24× fewer rows. */
export const signalCountryDaily = pgTable('signal_country_daily', countryBucketColumns(), (t) => [
  primaryKey({ columns: [t.bucket, t.country, t.threatLayer] }),
]);

/** All-time signal counts by layer and language ('und' when unknown): stats reads these. */
/**
 * The ingest clock: signals written per minute of ingest time, per source (so concurrent
 * ingests of different feeds never share a row), kept by ingest so /freshness never reads the
 * signals table. The latest `ingested_at` is `sources.last_ingested_at`.
 */
export const ingestMinutes = pgTable(
  'ingest_minutes',
  {
    minute: timestamptz('minute').notNull(),
    sourceId: uuid('source_id')
      .notNull()
      .references(() => sources.id, { onDelete: 'cascade' }),
    signalCount: integer('signal_count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.minute, t.sourceId] })],
);

export const signalTotals = pgTable(
  'signal_totals',
  {
    threatLayer: text('threat_layer').notNull(),
    language: text('language').notNull(),
    signalCount: bigint('signal_count', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.threatLayer, t.language] })],
);
