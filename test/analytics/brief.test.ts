import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIEF } from '../../src/analytics/brief';
import type { DatabaseHandle } from '../../src/db/client';
import { ingestSignals } from '../../src/ingest/pipeline';
import { createKey, startTestApp, testPglite } from '../support/harness';

const NOW = new Date('2026-11-22T12:00:00Z');

type Mode = 'good' | 'malformed' | 'wrong-shape' | 'unknown-id' | 'hang' | 'error';

/** A fake OpenAI-compatible endpoint on loopback whose behaviour each test picks. */
function fakeLlm() {
  const state = { mode: 'good' as Mode, requests: [] as { auth?: string; body: any }[] };
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => void answer(req, res));
  async function answer(req: IncomingMessage, res: ServerResponse) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    state.requests.push({ auth: req.headers.authorization, body });
    const input = JSON.parse(body.messages[1].content);
    const reply = (content: string) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    };
    const first = input.signals[0].id as string;
    const good = {
      headline: 'Kharkiv under combined military and cyber pressure',
      executive_summary: 'Shelling and a grid intrusion hit Kharkiv within two hours.',
      active_theaters: [{ name: 'Ukraine', summary: 'Shelling near Kharkiv.', signal_ids: [first] }],
      emerging_threats: [
        { title: 'Grid intrusion', summary: 'Frostbite Group claims an attack.', signal_ids: [first] },
      ],
      key_entities: [{ name: input.entities[0].name, note: 'Named in most signals.' }],
    };
    switch (state.mode) {
      case 'good':
        return reply('```json\n' + JSON.stringify(good) + '\n```');
      case 'malformed':
        return reply('{"headline": "Kharkiv", "executive_summary": ');
      case 'wrong-shape':
        return reply(JSON.stringify({ headline: 'Only a headline' }));
      case 'unknown-id':
        return reply(
          JSON.stringify({
            ...good,
            active_theaters: [{ name: 'X', summary: 'Y', signal_ids: ['made-up'] }],
          }),
        );
      case 'error':
        res.writeHead(500).end('upstream exploded');
        return;
      case 'hang':
        hanging.push(res);
        return;
    }
  }
  return {
    state,
    start: () =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('GET /api/v1/brief with an LLM', () => {
  let database: DatabaseHandle;
  let key: string;
  const llm = fakeLlm();
  let port: number;

  beforeAll(async () => {
    database = await testPglite();
    const items = [
      ['military', 8, 'Shelling near Kharkiv as Armed Forces of Ukraine hold line', 1],
      ['cyber', 7, 'Frostbite Group hits Kharkiv power grid', 2],
      ['political', 3, 'Budget vote delayed in Paris', 3],
    ].map(([layer, score, title, hoursAgo], i) => ({
      threat_layer: layer,
      significance_score: score,
      signal_valence: 'crisis',
      title,
      content_display: `${title}.`,
      country_codes: [i === 2 ? 'FR' : 'UA'],
      published_at: new Date(NOW.getTime() - (hoursAgo as number) * 3_600_000).toISOString(),
      source_url: `https://example.org/brief/${i}`,
      source: { name: 'Brief Wire', tier: 'core' },
    }));
    expect(await ingestSignals(database.db, items)).toMatchObject({ accepted: 3 });
    key = (await createKey(database.db, 'pro')).key;
    port = await llm.start();
  });
  afterAll(async () => {
    await llm.close();
    await database?.close();
  });

  /** A fresh app (and so a fresh cache) per scenario, all talking to the fake LLM. */
  async function brief(mode: Mode) {
    llm.state.mode = mode;
    const app = await startTestApp(database.db, {
      deps: { now: () => NOW },
      config: {
        BRIEF_LLM_URL: `http://127.0.0.1:${port}/v1`,
        BRIEF_LLM_API_KEY: 'sk-test',
        BRIEF_LLM_MODEL: 'fake-model',
        // The fake LLM listens on loopback, which the outbound guard refuses otherwise.
        WEBHOOK_ALLOW_INSECURE: true,
      },
    });
    try {
      const res = await app.fetch('/api/v1/brief', { headers: { 'X-Api-Key': key } });
      expect(res.status).toBe(200);
      return await res.json<Record<string, any>>();
    } finally {
      await app.close();
    }
  }

  it('uses a well-formed answer, citing only given signals, and says so', async () => {
    const before = llm.state.requests.length;
    const body = await brief('good');
    const request = llm.state.requests[before]!;
    expect(request.auth).toBe('Bearer sk-test');
    expect(request.body).toMatchObject({ model: 'fake-model', response_format: { type: 'json_object' } });
    const given = JSON.parse(request.body.messages[1].content);
    expect(given.signals.map((s: { title: string }) => s.title)).toEqual([
      'Shelling near Kharkiv as Armed Forces of Ukraine hold line',
      'Frostbite Group hits Kharkiv power grid',
      'Budget vote delayed in Paris',
    ]);
    expect(body).toMatchObject({
      generator: 'llm',
      model: 'fake-model',
      fallback_reason: null,
      headline: 'Kharkiv under combined military and cyber pressure',
      active_theaters: [{ name: 'Ukraine', country_codes: ['UA'], signal_ids: [given.signals[0].id] }],
      emerging_threats: [{ title: 'Grid intrusion', threat_layer: 'military' }],
      key_entities: [
        { name: given.entities[0].name, type: given.entities[0].type, note: 'Named in most signals.' },
      ],
      signal_ids: [given.signals[0].id],
      numbers: { signal_count: 3, crisis_count: 3 },
    });
  });

  it.each([
    ['malformed', 'LLM answer was not valid JSON'],
    ['wrong-shape', 'LLM answer did not match the brief schema'],
    ['unknown-id', 'LLM cited 1 signal id(s) it was not given'],
    ['error', 'LLM answered HTTP 500'],
  ] as const)('falls back to the heuristic when the LLM answers %s', async (mode, reason) => {
    const body = await brief(mode);
    expect(body).toMatchObject({ generator: 'heuristic', model: null, fallback_reason: reason });
    expect(body.headline).toBe('Shelling near Kharkiv as Armed Forces of Ukraine hold line');
    expect(body.active_theaters.map((t: { name: string }) => t.name)).toEqual(['Ukraine', 'France']);
    expect(body.signal_ids.length).toBeGreaterThan(0);
  });

  it(
    'answers with the heuristic when the LLM hangs, after its time limit',
    async () => {
      const body = await brief('hang');
      expect(body).toMatchObject({
        generator: 'heuristic',
        fallback_reason: `LLM did not answer within ${BRIEF.llmTimeoutMs} ms`,
      });
      expect(body.headline).toBe('Shelling near Kharkiv as Armed Forces of Ukraine hold line');
    },
    BRIEF.llmTimeoutMs + 10_000,
  );
});
