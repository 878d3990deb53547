import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureItems } from '../support/fixture';
import { testDatabaseUrl } from '../support/services';
import { adminPost, issueKeyThrough, startNeonWorker, type WorkerdInstance } from './workerd';
import { closeAfterAll } from '../support/harness';

// The real API Worker in workerd, on the CI Postgres through the Neon driver and the bridge.
describe.skipIf(!testDatabaseUrl())('API Worker in workerd', () => {
  let worker: WorkerdInstance;
  let key: string;

  const closing = closeAfterAll();
  beforeAll(async () => {
    worker = closing(await startNeonWorker());
    // Data and key go in through the Worker's own admin API: that is part of what is proven.
    const ingest = await adminPost(worker, '/api/v1/admin/signals', fixtureItems());
    expect(ingest.status).toBe(200);
    expect(await ingest.json()).toMatchObject({ accepted: 10, rejected: 0 });
    key = await issueKeyThrough(worker, 'workerd@example.org');
    expect(key).toMatch(/^sig_/);
  }, 120_000);

  const get = (path: string) => worker.fetch(path, { headers: { 'X-Api-Key': key } });
  const expectProblem = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status, code });
  };

  it('serves signals with filters, pages and detail', async () => {
    const all = await get('/api/v1/signals?limit=100');
    expect(all.status).toBe(200);
    const page = await all.json<{ data: { id: string; significance_score: number }[] }>();
    expect(page.data).toHaveLength(10);
    const scores = page.data.map((s) => s.significance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));

    const filtered = await (
      await get('/api/v1/signals?layers=military,cyber&min_score=5')
    ).json<{
      data: { threat_layer: string; significance_score: number }[];
    }>();
    expect(filtered.data.length).toBeGreaterThan(0);
    for (const s of filtered.data) {
      expect(['military', 'cyber']).toContain(s.threat_layer);
      expect(s.significance_score).toBeGreaterThanOrEqual(5);
    }

    const csv = await get('/api/v1/signals?format=csv&limit=3');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);

    const detail = await get(`/api/v1/signals/${page.data[0]!.id}`);
    expect(detail.status).toBe(200);
    expect(await detail.json()).toMatchObject({ id: page.data[0]!.id });
  });

  it('answers 401, 400 and 404 as problem+json', async () => {
    await expectProblem(await worker.fetch('/api/v1/signals'), 401, 'missing_api_key');
    await expectProblem(
      await worker.fetch('/api/v1/signals', { headers: { 'X-Api-Key': 'sig_nope' } }),
      401,
      'invalid_api_key',
    );
    await expectProblem(await get('/api/v1/signals?min_score=11'), 400, 'invalid_request');
    await expectProblem(await get('/api/v1/signals/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    await expectProblem(await worker.fetch('/nowhere'), 404, 'not_found');
  });

  it('answers an MCP tool call over Streamable HTTP', async () => {
    const res = await worker.fetch('/api/v1/mcp', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'X-Api-Key': key,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'search_signals', arguments: { layers: 'cyber', limit: 2 } },
      }),
    });
    expect(res.status).toBe(200);
    const body = await res.json<{
      id: number;
      result: { isError?: boolean; structuredContent: { data: { threat_layer: string }[] } };
    }>();
    expect(body.id).toBe(7);
    expect(body.result.isError).toBeFalsy();
    expect(body.result.structuredContent.data.map((s) => s.threat_layer)).toEqual(['cyber', 'cyber']);
  });

  it('reports health and publishes its OpenAPI document', async () => {
    expect(await (await worker.fetch('/api/v1/health')).json()).toMatchObject({ status: 'ok' });
    const doc = await (await worker.fetch('/api/v1/openapi.json')).json<{ openapi: string }>();
    expect(doc.openapi).toBe('3.1.0');
  });
});
