/**
 * What a re-polled item means for the signal already stored under one of its external ids (rules
 * in ./README.md, "Identity and revisions"). Pure, so the poller and the admin ingest share it.
 */
import type { Valence } from '../vocab';
import type { SourceItem } from './types';

/** The stored facts a revision is judged against (a signal row, or the item first parsed). */
export interface StoredFacts {
  upstream_updated_at?: string | null;
  significance_score: number;
  signal_valence: Valence;
  title?: string | null;
  content_display?: string;
  retracted?: boolean;
}

export type Revision = 'same' | 'revised' | 'retracted';

/**
 * `retracted` when upstream withdrew it; `revised` when upstream's update time is newer, or (for
 * feeds without one) the score, valence, title or text changed; else `same` (nothing to write).
 */
export function revisionOf(stored: StoredFacts, next: SourceItem): Revision {
  if (next.retracted) return stored.retracted ? 'same' : 'retracted';
  const before = stored.upstream_updated_at ? Date.parse(stored.upstream_updated_at) : NaN;
  const after = next.upstream_updated_at ? Date.parse(next.upstream_updated_at) : NaN;
  if (!Number.isNaN(before) && !Number.isNaN(after)) {
    if (after > before) return 'revised';
    if (after < before) return 'same'; // an older copy (a lagging mirror) never overwrites
  }
  const changed =
    stored.significance_score !== next.significance_score ||
    (stored.signal_valence === 'resolution') !== (next.signal_valence === 'resolution') ||
    (stored.title ?? null) !== (next.title ?? null) ||
    (stored.content_display !== undefined && stored.content_display !== next.content_display);
  return changed ? 'revised' : 'same';
}

/** The valence a revision is stored with: `resolution` when upstream says it ended, else `update`. */
export function revisionValence(next: SourceItem): Valence {
  return next.signal_valence === 'resolution' ? 'resolution' : 'update';
}
