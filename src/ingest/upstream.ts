import type { Database } from '../db/client';
import type { SourceItem } from '../sources/types';
import type { SourceTier } from '../vocab';

/** The source row a batch of connector items belongs to. */
export interface UpstreamSource {
  id: string;
  name: string;
  tier: SourceTier;
  url: string | null;
  language?: string | null;
}

/** What one ingested feed document did (`ids`: accepted or updated signals, document order). */
export interface UpstreamResult {
  accepted: number;
  updated: number;
  duplicates: number;
  rejected: number;
  errors: { index: number; message: string }[];
  ids: string[];
}

/** Ingests one document's items for `source` (interface stub; implementation follows). */
export async function ingestSourceItems(
  db: Database,
  source: UpstreamSource,
  items: SourceItem[],
  options: { now?: Date; maxAgeHours?: number } = {},
): Promise<UpstreamResult> {
  void db;
  void source;
  void options;
  return { accepted: 0, updated: 0, duplicates: items.length, rejected: 0, errors: [], ids: [] };
}
