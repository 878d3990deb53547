/**
 * The event kinds a text names in any of the supported languages, from the one taxonomy
 * (data/kinds.json) and the kind words of each language (data/<lang>/reading.json). For text whose
 * reading is not at hand (a stored event's member of an earlier version, a feed without a
 * reading): linking asks whether two texts name the same kind of disaster, and whether a text
 * says it is about an earthquake.
 */
import type { Layer } from '../vocab';
import { SUPPORTED_LANGUAGES } from './language';
import { has, text as textOf, type Term } from './lexicon';
import { KINDS, rulesFor } from './rules';

const byLayer = new Map<Layer | 'any', { kind: string; terms: Term[] }[]>();

function kindTerms(layer: Layer | 'any') {
  let list = byLayer.get(layer);
  if (!list) {
    list = SUPPORTED_LANGUAGES.flatMap((lang) => rulesFor(lang).kinds).filter(
      (k) => layer === 'any' || KINDS[k.kind]?.layer === layer,
    );
    byLayer.set(layer, list);
  }
  return list;
}

/** The kinds (of `layer`, or any) whose words the text contains, in taxonomy order, once each. */
export function kindsNamed(raw: string, layer: Layer | 'any' = 'any'): string[] {
  const t = textOf(raw);
  const out = new Set<string>();
  for (const k of kindTerms(layer))
    if (!out.has(k.kind) && k.terms.some((term) => has(term, t))) out.add(k.kind);
  return [...out];
}

/** The layer of a kind of the taxonomy, or null for an unknown one. */
export const layerOfKind = (kind: string): Layer | null => KINDS[kind]?.layer ?? null;
