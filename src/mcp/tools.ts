/** One MCP tool: the keyed or public GET route it answers from, and what a model should know. */
export interface ToolSpec {
  name: string;
  title: string;
  path: string;
  description: string;
}

/** The tools of `POST /api/v1/mcp`; each answers exactly what its route answers. */
export const TOOLS: ToolSpec[] = [
  {
    name: 'search_signals',
    title: 'Search signals',
    path: '/api/v1/signals',
    description:
      "Find scored threat signals. Filter by threat layers (military, cyber, economic, disaster, political, criminal, health, supply_chain), min_score (0–10), region, country (ISO-2), city, time window (start/end, ISO 8601), full-text search (websearch syntax), valence, bbox or anomaly. distinct=event gives one signal per real-world event (the strongest that matches the other filters; its corroboration says how many independent publishers tell it) instead of every outlet's echo. Results are ordered by significance (highest first); limit ≤ 100. To read further pages pass the previous answer's pagination.next_cursor as cursor.",
  },
  {
    name: 'get_signal',
    title: 'Get one signal',
    path: '/api/v1/signals/{id}',
    description:
      'Full detail of one signal by its id (a UUID from search_signals or another tool): text, scores, place, source metadata and extracted entities.',
  },
  {
    name: 'get_event',
    title: 'Get one event',
    path: '/api/v1/events/{id}',
    description:
      'One real-world event by its id (event_id of any signal): first and last report, countries, layer, severity, corroboration (independent publishers), its strongest signal and its member signals (paged: limit, cursor from members.pagination.next_cursor).',
  },
  {
    name: 'get_trending',
    title: 'Trending spikes',
    path: '/api/v1/trending',
    description:
      'The top 8 threat layers and countries by activity spike ratio (the last 6 hours against a 7-day baseline), strongest spike first. No arguments. Use it to see what is escalating now.',
  },
  {
    name: 'get_compound_crises',
    title: 'Compound crises',
    path: '/api/v1/compound-crises',
    description:
      'Countries where 2 or more distinct threat layers have converged above the severity threshold, ranked by composite severity; window_type `acute` (7 days) or `chronic` (30 days), both when omitted.',
  },
  {
    name: 'get_brief',
    title: 'Watch brief',
    path: '/api/v1/brief',
    description:
      'The synthesized watch brief of the past 4 hours: headline, executive summary, active theaters, emerging threats and key entities, citing signal ids. No arguments. A good first call for an overview.',
  },
  {
    name: 'get_entity',
    title: 'Entity profile',
    path: '/api/v1/entity',
    description:
      'Signals mentioning one named entity (person, organisation or location; name ≥ 2 characters), with its layer breakdown, a daily timeline and the entities mentioned with it.',
  },
  {
    name: 'get_stats',
    title: 'Stream statistics',
    path: '/api/v1/stats',
    description:
      'Public statistics of the stream: signal volumes, source counts, language coverage and the threat layer breakdown.',
  },
  {
    name: 'list_sources',
    title: 'Sources',
    path: '/api/v1/sources',
    description:
      'The sources the signals come from, with their tier (core, community, discovered), coverage and health.',
  },
];
