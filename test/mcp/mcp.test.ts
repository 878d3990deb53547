import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/mcp/tools';
import { createKey, withTestApp, seedFixtures } from '../support/harness';

const NOW = new Date('2026-11-20T12:00:00Z');

describe('the MCP server at /api/v1/mcp', () => {
  let client: Client;

  /** An MCP client of the SDK itself, speaking Streamable HTTP to the running server. */
  async function connect(apiKey: string): Promise<Client> {
    const mcp = new Client({ name: 'test-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/api/v1/mcp`), {
      requestInit: { headers: { 'X-Api-Key': apiKey } },
    });
    await mcp.connect(transport);
    return mcp;
  }

  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  const http = async (path: string) => {
    const res = await app.fetch(path, { headers: { 'X-Api-Key': app.key } });
    expect(res.status).toBe(200);
    return res.json();
  };
  const app = withTestApp({ seed: seedFixtures, key: 'pro', deps: { now: () => NOW } });
  beforeAll(async () => {
    client = await connect(app.key);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('initializes and lists every tool with an input schema taken from its route', async () => {
    expect(client.getServerVersion()?.name).toBe('signal-intel');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'get_brief',
        'get_compound_crises',
        'get_entity',
        'get_event',
        'get_signal',
        'get_stats',
        'get_trending',
        'list_sources',
        'search_signals',
      ].sort(),
    );
    const search = tools.find((tool) => tool.name === 'search_signals')!;
    const properties = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).toEqual(
      expect.arrayContaining(['layers', 'min_score', 'country', 'limit', 'distinct']),
    );
    expect(properties.distinct).toMatchObject({ enum: ['event'] });
    const event = tools.find((tool) => tool.name === 'get_event')!;
    expect(event.inputSchema.required).toEqual(['id']);
    expect(properties).not.toHaveProperty('format');
    const entity = tools.find((tool) => tool.name === 'get_entity')!;
    expect(entity.inputSchema.required).toEqual(['name']);
    expect(tools.every((tool) => (tool.description ?? '').length > 40)).toBe(true);
  });

  it('search_signals answers exactly what GET /api/v1/signals answers, plus a text rendering', async () => {
    const result = await call('search_signals', { layers: 'cyber', limit: 2 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(await http('/api/v1/signals?layers=cyber&limit=2'));
    const data = (result.structuredContent as { data: { title: string }[] }).data;
    expect(data).toHaveLength(2);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain(data[0]!.title);
  });

  it('search_signals with distinct=event answers one signal per event, as the route does', async () => {
    const result = await call('search_signals', { distinct: 'event', limit: 5 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(await http('/api/v1/signals?distinct=event&limit=5'));
    const bad = await call('search_signals', { distinct: 'story' });
    expect(bad.isError).toBe(true);
  });

  it('get_event answers the event of a signal found by search_signals', async () => {
    const found = await call('search_signals', { limit: 1 });
    const eventId = (found.structuredContent as { data: { event_id: string }[] }).data[0]!.event_id;
    const result = await call('get_event', { id: eventId, limit: 5 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(await http(`/api/v1/events/${eventId}?limit=5`));
  });

  it('get_signal answers the detail of an id found by search_signals', async () => {
    const found = await call('search_signals', { country: 'UA', limit: 1 });
    const id = (found.structuredContent as { data: { id: string }[] }).data[0]!.id;
    const result = await call('get_signal', { id });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(await http(`/api/v1/signals/${id}`));
  });

  it.each([
    ['get_trending', {}, '/api/v1/trending'],
    ['get_compound_crises', { window_type: 'acute' }, '/api/v1/compound-crises?window_type=acute'],
    ['get_brief', {}, '/api/v1/brief'],
    ['get_entity', { name: 'Kyiv' }, '/api/v1/entity?name=Kyiv'],
    ['get_stats', {}, '/api/v1/stats'],
    ['list_sources', {}, '/api/v1/sources'],
  ])('%s answers what its route answers', async (name, args, path) => {
    const result = await call(name, args);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(await http(path));
    expect((result.content[0] as { text: string }).text.length).toBeGreaterThan(0);
  });

  it('covers every tool in the tests above', () => {
    // A new tool must join the tests above, so each is called against its route (get_event has its own).
    expect(TOOLS).toHaveLength(9);
  });

  it('answers invalid arguments as a tool error naming the field, never a 500', async () => {
    const result = await call('search_signals', { min_score: 42, limit: 500 });
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^400 /);
    expect(text).toContain('min_score');
    expect(text).toContain('limit');
    const missing = await call('get_signal', { id: 'not-a-uuid' });
    expect(missing.isError).toBe(true);
    expect((missing.content[0] as { text: string }).text).toContain('id');
    const unknown = await call('get_entity', {});
    expect(unknown.isError).toBe(true);
    expect((unknown.content[0] as { text: string }).text).toContain('name');
  });

  it('refuses a request without a key with 401 problem+json', async () => {
    const res = await app.fetch('/api/v1/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await res.json<{ code: string }>()).code).toBe('missing_api_key');
  });

  it("counts each POST once against the key's limit, with the limit headers, and answers 429 past it", async () => {
    const free = (await createKey(app.db, 'free')).key;
    const post = (id: number) =>
      app.fetch('/api/v1/mcp', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'X-Api-Key': free,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'search_signals', arguments: { limit: 1 } },
        }),
      });
    const first = await post(1);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('100');
    expect(first.headers.get('x-ratelimit-tier')).toBe('free');
    const body = await first.json<{ result: CallToolResult }>();
    expect(body.result.isError).toBeFalsy();
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99');
    // The tool's own request inside the app is not counted a second time.
    const second = await post(2);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('98');
    for (let i = 3; i <= 100; i += 1) expect((await post(i)).status).toBe(200);
    const over = await post(101);
    expect(over.status).toBe(429);
    expect((await over.json<{ code: string }>()).code).toBe('rate_limited');
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
